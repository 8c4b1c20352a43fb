#include "io/traces/google_job_events_parser.h"

#include "io/traces/swim_parser.h"

namespace locsched {

void GoogleJobEventsParser::Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  const std::vector<std::string_view> f = SplitFields(line, ',');
  uint64_t timestamp = 0, job = 0, type = 0;
  Status s = f.size() == 8
                 ? Status::Ok()
                 : Status::InvalidArgument("row", "has " + std::to_string(f.size()) +
                                                      " comma-separated fields, expected 8");
  if (s.ok()) s = ParseCount(f[0], "timestamp", &timestamp);
  if (s.ok()) s = ParseCount(f[2], "job_id", &job);
  if (s.ok()) s = ParseCount(f[3], "event_type", &type);
  if (s.ok() && type > kMaxEventType)
    s = Status::InvalidArgument("event_type", std::to_string(type) + " is not 0..8");
  if (!s.ok()) {
    sink->malformed.push_back({pos, std::move(s)});
    return;
  }
  if (type != kSubmit) return;
  TraceEvent e;
  e.kind = TraceEventKind::kJobSubmit;
  e.pos = pos;
  e.time = static_cast<double>(timestamp) / 1e6;
  e.job = "g" + std::to_string(job);
  e.user = std::string(f[4]);  // hashed; [groups] in the config can map such users
  for (uint64_t i = 0; i < kTasksPerJob; ++i) {
    TraceTask t;
    t.task = "t" + std::to_string(i);
    t.replicas = PlaceReplicas(options_, e.job, i);
    e.tasks.push_back(std::move(t));
  }
  sink->events.push_back(std::move(e));
}

}  // namespace locsched
