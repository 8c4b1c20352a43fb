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

uint32_t SwimClusterSize(std::string_view row) {
  const std::vector<std::string_view> f = SplitFields(row, '\t');
  return f.size() == 9 && !f[6].empty() ? kSwimFb2010Machines : kSwimFb2009Machines;
}

namespace {

// Columns 7-9 of a 7- or 9-field row into *input: the input path (empty: none); the output
// path is not used; SWIM ends its 9-field rows with a tab, so the 9th field is empty.
Status ParsePaths(const std::vector<std::string_view>& f, std::string* input) {
  if (f.size() != 6 && f.size() != 7 && f.size() != 9)
    return Status::InvalidArgument("row", "has " + std::to_string(f.size()) +
                                              " tab-separated fields, expected 6, 7 "
                                              "(with input_path) or 9 (SWIM's with input paths)");
  if (f.size() == 9 && !f[8].empty())
    return Status::InvalidArgument("row",
                                   "field 9 must be empty (SWIM ends a 9-field row with "
                                   "a tab), not '" +
                                       std::string(f[8]) + "'");
  if (f.size() < 7) return Status::Ok();
  for (const char c : f[6])
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return Status::InvalidArgument(
          "input_path", "'" + std::string(f[6]) + "' holds a space or a control character");
  input->assign(f[6]);
  return Status::Ok();
}

}  // namespace

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
  std::string path;
  if (Status s = ParsePaths(f, &path); !s.ok()) return s;
  out->kind = TraceEventKind::kJobSubmit;
  out->job = std::string(f[0]);
  out->time = static_cast<double>(submit);
  out->queue = std::string(DrawTenant(options_, out->job));
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
    // Map i reads block i of a named input: the holders every reader of that block shares.
    t.replicas = map && !path.empty() ? PlaceInputBlock(options_, path, i)
                                      : PlaceReplicas(options_, out->job, i);
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
