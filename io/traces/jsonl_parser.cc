#include "io/traces/jsonl_parser.h"

#include "io/wire/command_table.h"
#include "io/wire/request.h"

namespace locsched {

void JsonlParser::Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  Request r;
  if (Status s = DecodeRequest(line, &r); !s.ok()) {
    sink->malformed.push_back({pos, std::move(s)});
    return;
  }
  TraceEvent e;
  e.kind = TraceEventKind::kRequest;
  e.pos = pos;
  e.op = std::string(SpecOf(r.op).name);
  e.job = r.job;
  e.task = r.task;
  e.machine = r.machine;
  for (TaskRequest& t : r.tasks) {
    TraceTask task;
    task.task = std::move(t.task);
    task.kind = t.kind;
    task.replicas = std::move(t.replicas);
    task.size = t.size;
    task.duration = t.duration;
    e.tasks.push_back(std::move(task));
  }
  e.request = std::string(line);
  sink->events.push_back(std::move(e));
}

}  // namespace locsched
