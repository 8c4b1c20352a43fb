// locsched-tail --check: parses every file without sending and prints the counts.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "io/traces/trace_reader.h"
#include "tools/tail/hosts.h"
#include "tools/tail/options.h"

namespace locsched {
namespace {

// What a replay of the files would send, beyond TraceCounts: what an emulated cluster for
// it needs (how many hosts, how long to run, how many jobs to expect done).
struct SendTally {
  bool placed = false;                    // swim, google: the parser placed every replica
  std::unordered_set<std::string> hosts;  // replica hosts the trace names (before placement)
  uint64_t submits = 0;                   // job_submit requests a replay sends
  double first = -1, last = -1;           // trace times of the first and the last of them

  void Add(const TraceEvent& e) {
    for (const TraceTask& t : e.tasks)
      if (!placed) hosts.insert(t.replicas.begin(), t.replicas.end());
    const bool submit =
        e.kind == TraceEventKind::kRequest
            ? e.op == "job_submit"
            : (e.kind == TraceEventKind::kJobSubmit || e.kind == TraceEventKind::kTaskSubmit) &&
                  !e.tasks.empty();
    if (!submit) return;
    ++submits;
    if (e.time < 0) return;
    first = first < 0 ? e.time : std::min(first, e.time);
    last = std::max(last, e.time);
  }
};

}  // namespace

volatile std::sig_atomic_t g_tail_stop = 0;

void ReportMalformed(const TailOptions& o, const std::string& file,
                     const std::vector<Malformed>& bad, uint64_t* reported) {
  for (const Malformed& m : bad) {
    if (*reported == o.max_reports)
      std::fprintf(stderr, "locsched-tail: more malformed records are counted, not printed\n");
    if ((*reported)++ >= o.max_reports) continue;
    std::fprintf(stderr, "%s:%llu: malformed, skipped: %s\n", file.c_str(),
                 static_cast<unsigned long long>(m.pos.line), m.error.message().c_str());
  }
}

namespace {

// Parses one file into the tallies; with --map-hosts, fails once the hosts outgrow --machines.
Status CheckFile(const TailOptions& o, const std::string& file, TraceCounts* total,
                 SendTally* sends, HostMapper* mapper, uint64_t* reported) {
  std::unique_ptr<TraceParser> parser = MakeTraceParser(o.format, o.synth);
  Status mapped = Status::Ok();
  const Status s = ParseTraceFile(file, parser.get(), total, [&](ParseSink* sink) {
    ReportMalformed(o, file, sink->malformed, reported);
    for (TraceEvent& e : sink->events) {
      sends->Add(e);
      if (o.map_hosts && mapped.ok()) mapped = mapper->Map(&e);
    }
    sink->events.clear();
    sink->malformed.clear();
  });
  return s.ok() ? mapped : s;
}

}  // namespace

int RunCheck(const TailOptions& o) {
  TraceCounts total;
  SendTally sends;
  sends.placed = o.format == TraceFormat::kSwim || o.format == TraceFormat::kGoogleJobEvents;
  HostMapper mapper(o.synth.machine_prefix, o.synth.machines);
  uint64_t reported = 0;
  for (const std::string& file : o.files) {
    if (Status s = CheckFile(o, file, &total, &sends, &mapper, &reported); !s.ok()) {
      std::fprintf(stderr, "locsched-tail: %s\n", s.message().c_str());
      return 1;
    }
  }
  const nlohmann::json out = {{"format", TraceFormatName(o.format)},
                              {"files", o.files.size()},
                              {"lines", total.lines},
                              {"jobs", total.jobs},
                              {"tasks", total.tasks},
                              {"attempts", total.attempts},
                              {"events", total.events},
                              {"malformed", total.malformed},
                              {"hosts", sends.hosts.size()},
                              {"machines", o.synth.machines},
                              {"submits", sends.submits},
                              {"span", sends.last - sends.first}};
  std::printf("%s\n", out.dump().c_str());
  if (total.malformed > 0 && total.events == 0) {
    std::fprintf(stderr,
                 "locsched-tail: every one of the %llu records is malformed: is --format %s "
                 "the format of these files?\n",
                 static_cast<unsigned long long>(total.malformed),
                 std::string(TraceFormatName(o.format)).c_str());
    return 1;
  }
  return 0;
}

}  // namespace locsched
