#include "daemon/journal_replay.h"

#include <simdjson.h>

#include <string>
#include <vector>

#include "io/wire/request.h"

namespace locsched {

namespace {

// The fields of one record: {"t":time,"line":request,"preempt":[[job,task],...],
// "assign":[[job,task],...],"queue":leaf}; preempt only for a heartbeat that preempted,
// assign only for one that assigned, queue only for an event that submitted a job with
// tenancy on.
struct Record {
  double t = 0;
  std::string_view line;
  std::string_view queue;
  std::vector<JournaledAssignment> assigned, preempted;
};

// The [job, task] pairs under `key`, if the record has it.
Status ParsePairs(simdjson::dom::object obj, const char* key,
                  std::vector<JournaledAssignment>* out) {
  simdjson::dom::element list;
  if (obj[key].get(list) != simdjson::SUCCESS) return Status::Ok();
  simdjson::dom::array pairs;
  if (list.get(pairs) != simdjson::SUCCESS)
    return Status::InvalidArgument("journal", "\"" + std::string(key) + "\" must be a list");
  for (simdjson::dom::element pair : pairs) {
    simdjson::dom::array names;
    JournaledAssignment a;
    if (pair.get(names) != simdjson::SUCCESS || names.size() != 2 ||
        names.at(0).get(a.job) != simdjson::SUCCESS || names.at(1).get(a.task) != simdjson::SUCCESS)
      return Status::InvalidArgument("journal",
                                     "each of \"" + std::string(key) + "\" must be [job, task]");
    out->push_back(a);
  }
  return Status::Ok();
}

// The views into *rec stay valid until the parser parses again.
Status Parse(simdjson::dom::parser& parser, std::string_view text, Record* rec) {
  simdjson::dom::object obj;
  if (parser.parse(text.data(), text.size()).get(obj) != simdjson::SUCCESS ||
      obj["t"].get(rec->t) != simdjson::SUCCESS || obj["line"].get(rec->line) != simdjson::SUCCESS)
    return Status::InvalidArgument("journal", "unreadable record");
  if (obj["body"].error() == simdjson::SUCCESS)
    return Status::InvalidArgument(
        "journal",
        "a heartbeat record holding reply text (\"body\") is not replayed; "
        "stop the daemon that wrote it cleanly (it leaves a snapshot) and start again");
  if (obj["queue"].error() == simdjson::SUCCESS &&
      obj["queue"].get(rec->queue) != simdjson::SUCCESS)
    return Status::InvalidArgument("journal", "\"queue\" must be a string");
  if (Status s = ParsePairs(obj, "preempt", &rec->preempted); !s.ok()) return s;
  return ParsePairs(obj, "assign", &rec->assigned);
}

}  // namespace

Status ReplayRecord(std::string_view record, Dispatcher& dispatcher, DaemonClock& clock) {
  thread_local simdjson::dom::parser parser;
  Record rec;
  if (Status s = Parse(parser, record, &rec); !s.ok()) return s;
  clock.Pin(rec.t);
  Request r;
  if (Status s = DecodeRequest(rec.line, &r); !s.ok()) return s;
  if (r.op == Op::kHeartbeat) return dispatcher.ReplayHeartbeat(r, rec.assigned, rec.preempted);
  std::string out;
  Caller caller = Caller::Journal();
  caller.queue = rec.queue;
  dispatcher.HandleLine(rec.line, caller, &out);
  if (out.rfind("{\"ok\":true", 0) != 0)
    return Status::Internal("journal", "replay refused: " + out);
  return Status::Ok();
}

}  // namespace locsched
