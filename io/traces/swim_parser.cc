#include "io/traces/swim_parser.h"

#include <charconv>
#include <cmath>

namespace locsched {

std::vector<std::string_view> SplitFields(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t at = line.find(sep, start);
    if (at == std::string_view::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, at - start));
    start = at + 1;
  }
}

Status ParseCount(std::string_view field, const char* what, uint64_t* out) {
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, *out);
  if (field.empty() || ec != std::errc() || ptr != end)
    return Status::InvalidArgument(what, "'" + std::string(field) + "' is not a count");
  return Status::Ok();
}

Status SwimParser::ParseRow(std::string_view line, TraceEvent* out) const {
  const std::vector<std::string_view> f = SplitFields(line, '\t');
  if (f.size() < 6)
    return Status::InvalidArgument(
        "row", "has " + std::to_string(f.size()) + " tab-separated fields, expected at least 6");
  if (f[0].empty()) return Status::InvalidArgument("job_id", "is empty");
  uint64_t submit = 0, gap = 0, input = 0, shuffle = 0, output = 0;
  for (const auto& [field, name, value] :
       {std::tuple{f[1], "submit_time_seconds", &submit}, std::tuple{f[2], "gap_seconds", &gap},
        std::tuple{f[3], "map_input_bytes", &input}, std::tuple{f[4], "shuffle_bytes", &shuffle},
        std::tuple{f[5], "reduce_output_bytes", &output}}) {
    if (Status s = ParseCount(field, name, value); !s.ok()) return s;
  }
  out->kind = TraceEventKind::kJobSubmit;
  out->job = std::string(f[0]);
  out->time = static_cast<double>(submit);
  // SWIM's replay enforces a one-block minimum input, so every job has a map.
  const auto maps = static_cast<uint64_t>(
      std::max(1.0, std::ceil(static_cast<double>(input) / options_.block_bytes)));
  const auto reduces =
      static_cast<uint64_t>(std::ceil(static_cast<double>(shuffle) / options_.reduce_bytes));
  for (uint64_t i = 0; i < maps + reduces; ++i) {
    TraceTask t;
    const bool map = i < maps;
    t.task = (map ? "m" : "r") + std::to_string(map ? i : i - maps);
    t.kind = map ? TaskKind::kMap : TaskKind::kReduce;
    t.size = map ? static_cast<double>(input) / static_cast<double>(maps)
                 : static_cast<double>(shuffle) / static_cast<double>(reduces);
    t.replicas = PlaceReplicas(options_, out->job, i);
    out->tasks.push_back(std::move(t));
  }
  return Status::Ok();
}

void SwimParser::Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  TraceEvent e;
  e.pos = pos;
  if (Status s = ParseRow(line, &e); !s.ok())
    sink->malformed.push_back({pos, std::move(s)});
  else
    sink->events.push_back(std::move(e));
}

}  // namespace locsched
