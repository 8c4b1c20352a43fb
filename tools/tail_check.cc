// locsched-tail --check: parses every file without sending and prints the counts.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "io/trace_reader.h"
#include "tools/tail_options.h"

namespace locsched {

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

int RunCheck(const TailOptions& o) {
  TraceCounts total;
  uint64_t reported = 0;
  for (const std::string& file : o.files) {
    std::unique_ptr<TraceParser> parser = MakeTraceParser(o.format, o.synth);
    const Status s = ParseTraceFile(file, parser.get(), &total, [&](ParseSink* sink) {
      ReportMalformed(o, file, sink->malformed, &reported);
      sink->events.clear();
      sink->malformed.clear();
    });
    if (!s.ok()) {
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
                              {"malformed", total.malformed}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace locsched
