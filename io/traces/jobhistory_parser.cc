#include "io/traces/jobhistory_parser.h"

#include <cctype>
#include <tuple>

#include "io/traces/swim_parser.h"

namespace locsched {
namespace {

bool IsKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Reads a quoted value starting after its opening quote; false if the text ends first.
bool ReadValue(std::string_view text, size_t* i, std::string* out) {
  for (; *i < text.size(); ++*i) {
    const char c = text[*i];
    if (c == '\\' && *i + 1 < text.size()) {
      out->push_back(text[++*i]);
    } else if (c == '"') {
      ++*i;
      return true;
    } else {
      out->push_back(c);
    }
  }
  return false;
}

bool StartsRecord(std::string_view line) {
  for (const std::string_view type : {"Job ", "Task ", "MapAttempt ", "ReduceAttempt ", "Meta "})
    if (line.starts_with(type)) return line.find("=\"") != std::string_view::npos;
  return false;
}

// The value of `key`, or "" if the record lacks it.
std::string_view Value(const JobHistoryRecord& r, const char* key) {
  const auto it = r.keys.find(key);
  return it == r.keys.end() ? std::string_view() : std::string_view(it->second);
}

Status Require(const JobHistoryRecord& r, const char* key, std::string* out) {
  const auto it = r.keys.find(key);
  if (it == r.keys.end() || it->second.empty())
    return Status::InvalidArgument(key, "is missing from a " + r.type + " record");
  *out = it->second;
  return Status::Ok();
}

// Reads the epoch-millisecond `key` into e->time and appends e to the sink.
Status TimeOf(const JobHistoryRecord& r, const char* key, TraceEvent* e, ParseSink* sink) {
  std::string text;
  uint64_t ms = 0;
  if (Status s = Require(r, key, &text); !s.ok()) return s;
  if (Status s = ParseCount(text, key, &ms); !s.ok()) return s;
  e->time = static_cast<double>(ms) / 1000;
  sink->events.push_back(std::move(*e));
  return Status::Ok();
}

// task_200904211745_0002_m_000010 -> job_200904211745_0002
Status JobOfTask(const std::string& task, std::string* job) {
  const std::vector<std::string_view> parts = SplitFields(task, '_');
  if (parts.size() != 5 || parts[0] != "task" || (parts[3] != "m" && parts[3] != "r"))
    return Status::InvalidArgument("TASKID", "'" + task + "' is not task_<cluster>_<job>_m|r_<n>");
  *job = "job_" + std::string(parts[1]) + "_" + std::string(parts[2]);
  return Status::Ok();
}

// "/rack/host,/rack/host" (or bare hosts) -> the host names.
std::vector<std::string> SplitHosts(std::string_view splits) {
  std::vector<std::string> out;
  if (splits.empty()) return out;
  for (std::string_view h : SplitFields(splits, ',')) {
    if (const size_t slash = h.rfind('/'); slash != std::string_view::npos)
      h.remove_prefix(slash + 1);
    if (!h.empty()) out.emplace_back(h);
  }
  return out;
}

// "tracker_host.example.com:localhost/127.0.0.1:54153" -> "host.example.com"
std::string TrackerHost(std::string_view tracker) {
  if (tracker.starts_with("tracker_")) tracker.remove_prefix(8);
  return std::string(tracker.substr(0, tracker.find(':')));
}

}  // namespace

RecordParse ParseJobHistoryRecord(std::string_view text, JobHistoryRecord* out, Status* error,
                                  bool* in_value) {
  if (in_value != nullptr) *in_value = false;
  size_t i = 0;
  while (i < text.size() && IsKeyChar(text[i])) ++i;
  out->type = std::string(text.substr(0, i));
  if (out->type.empty() || i >= text.size() || text[i] != ' ') {
    *error = Status::InvalidArgument("record", "does not start with a record type and a space");
    return RecordParse::kBad;
  }
  // Shape: (' ' KEY '="' value '"')* ' .' with nothing but blanks after the dot.
  for (;;) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) return RecordParse::kNeedMore;
    if (text[i] == '.') {
      if (text.find_first_not_of(" \r\n", i + 1) != std::string_view::npos) break;
      return RecordParse::kComplete;
    }
    const size_t key_start = i;
    while (i < text.size() && IsKeyChar(text[i])) ++i;
    if (i == key_start || i + 1 >= text.size() || text[i] != '=' || text[i + 1] != '"') break;
    std::string key(text.substr(key_start, i - key_start));
    i += 2;
    std::string value;
    if (!ReadValue(text, &i, &value)) {
      if (in_value != nullptr) *in_value = true;
      return RecordParse::kNeedMore;
    }
    out->keys[std::move(key)] = std::move(value);
  }
  *error = Status::InvalidArgument(
      "record", "expected KEY=\"value\" or the closing ' .' at column " + std::to_string(i + 1));
  return RecordParse::kBad;
}

void JobHistoryParser::Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (pending_.empty() && line.starts_with('\f')) line.remove_prefix(1);  // a page break
  if (!pending_.empty() && StartsRecord(line)) {
    // A new record where a continuation was expected: the open one was cut short.
    sink->malformed.push_back(
        {pending_pos_, Status::InvalidArgument("record", "truncated: the next record starts")});
    pending_.clear();
    in_value_ = false;
  }
  if (pending_.empty()) {
    // Outside a record: blank lines, the "!!FILE=" separators and the job conf XML are skipped.
    if (line.find_first_not_of(" \t") == std::string_view::npos || line.starts_with("!!FILE=") ||
        line.starts_with("<"))
      return;
    pending_pos_ = pos;
  } else {
    pending_.push_back('\n');
  }
  pending_.append(line);
  pending_pos_.end = pos.end;
  // Inside a quoted value, a line without a quote cannot end it: no need to parse again
  // (re-parsing every line would make a long record quadratic).
  if (in_value_ && line.find('"') == std::string_view::npos && pending_.size() <= kMaxRecordBytes)
    return;
  Complete(sink);
}

// Parses the pending text; emits it (or reports it) unless it needs more lines.
void JobHistoryParser::Complete(ParseSink* sink) {
  JobHistoryRecord record;
  Status error;
  RecordParse result = ParseJobHistoryRecord(pending_, &record, &error, &in_value_);
  if (result == RecordParse::kNeedMore && pending_.size() > kMaxRecordBytes) {
    error = Status::ResourceExhausted("record", "longer than 1 MiB without its closing ' .'");
    result = RecordParse::kBad;
  }
  if (result == RecordParse::kNeedMore) return;
  if (result == RecordParse::kComplete) error = Emit(record, pending_pos_, sink);
  if (!error.ok()) sink->malformed.push_back({pending_pos_, std::move(error)});
  pending_.clear();
  in_value_ = false;
}

Status JobHistoryParser::Emit(const JobHistoryRecord& r, const SourcePos& pos, ParseSink* sink) {
  TraceEvent e;
  e.pos = pos;
  if (r.type == "Job") {
    if (!r.keys.contains("SUBMIT_TIME")) return Status::Ok();  // priority, launch, status updates
    if (Status s = Require(r, "JOBID", &e.job); !s.ok()) return s;
    e.kind = TraceEventKind::kJobSubmit;
    e.user = std::string(Value(r, "USER"));
    e.queue = std::string(Value(r, "JOB_QUEUE"));
    if (owners_.size() >= kMaxOwners) owners_.clear();
    if (!e.user.empty() || !e.queue.empty()) owners_[e.job] = {e.user, e.queue};
    return TimeOf(r, "SUBMIT_TIME", &e, sink);
  }
  const bool attempt = r.type == "MapAttempt" || r.type == "ReduceAttempt";
  if (r.type != "Task" && !attempt) return Status::Ok();  // Meta and unknown record types
  std::string type;
  if (Status s = Require(r, "TASK_TYPE", &type); !s.ok()) return s;
  if (type != "MAP" && type != "REDUCE") return Status::Ok();  // SETUP and CLEANUP
  if (Status s = Require(r, "TASKID", &e.task); !s.ok()) return s;
  if (Status s = JobOfTask(e.task, &e.job); !s.ok()) return s;
  return attempt ? EmitAttempt(r, &e, sink) : EmitTask(r, type, &e, sink);
}

Status JobHistoryParser::EmitTask(const JobHistoryRecord& r, const std::string& type, TraceEvent* e,
                                  ParseSink* sink) const {
  if (!r.keys.contains("START_TIME")) return Status::Ok();  // the task's finish record
  e->kind = TraceEventKind::kTaskSubmit;
  if (const auto it = owners_.find(e->job); it != owners_.end())
    std::tie(e->user, e->queue) = it->second;
  TraceTask t;
  t.task = e->task;
  t.kind = type == "MAP" ? TaskKind::kMap : TaskKind::kReduce;
  t.replicas = SplitHosts(Value(r, "SPLITS"));
  e->tasks.push_back(std::move(t));
  return TimeOf(r, "START_TIME", e, sink);
}

Status JobHistoryParser::EmitAttempt(const JobHistoryRecord& r, TraceEvent* e, ParseSink* sink) {
  if (Status s = Require(r, "TASK_ATTEMPT_ID", &e->attempt); !s.ok()) return s;
  if (r.keys.contains("START_TIME")) {
    e->kind = TraceEventKind::kAttemptStart;
    e->machine = TrackerHost(Value(r, "TRACKER_NAME"));
    return TimeOf(r, "START_TIME", e, sink);
  }
  if (!r.keys.contains("FINISH_TIME")) return Status::Ok();  // progress updates
  e->kind = TraceEventKind::kAttemptFinish;
  std::string status;
  if (Status s = Require(r, "TASK_STATUS", &status); !s.ok()) return s;
  e->success = status == "SUCCESS";
  const std::vector<std::string> host = SplitHosts(Value(r, "HOSTNAME"));
  if (!host.empty()) e->machine = host.front();
  return TimeOf(r, "FINISH_TIME", e, sink);
}

void JobHistoryParser::Finish(ParseSink* sink) {
  if (pending_.empty()) return;
  sink->malformed.push_back(
      {pending_pos_, Status::InvalidArgument("record", "truncated: the input ends inside it")});
  pending_.clear();
  in_value_ = false;
}

}  // namespace locsched
