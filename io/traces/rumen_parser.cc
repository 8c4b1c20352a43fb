#include "io/traces/rumen_parser.h"

#include <nlohmann/json.hpp>

namespace locsched {
namespace {

using nlohmann::json;

// A time field in epoch ms as seconds; -1 when absent or unknown (-1 in Rumen).
double Seconds(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() < 0) return -1;
  return it->get<double>() / 1000;
}

// The last layer of each preferred location (the host).
std::vector<std::string> PreferredHosts(const json& task) {
  std::vector<std::string> out;
  const auto it = task.find("preferredLocations");
  if (it == task.end() || !it->is_array()) return out;
  for (const json& loc : *it) {
    const auto layers = loc.find("layers");
    if (layers != loc.end() && layers->is_array() && !layers->empty() && layers->back().is_string())
      out.push_back(layers->back().get<std::string>());
  }
  return out;
}

// A string field, or "" when absent or not a string.
std::string Text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string HostOf(const json& attempt) {
  const auto it = attempt.find("hostName");
  if (it == attempt.end() || !it->is_string()) return "";
  const std::string& h = it->get_ref<const std::string&>();
  return h.substr(h.rfind('/') == std::string::npos ? 0 : h.rfind('/') + 1);
}

// Appends the start and finish events of each attempt of `task`.
void AttemptEvents(const json& task, const TraceEvent& base, std::vector<TraceEvent>* out) {
  const auto it = task.find("attempts");
  if (it == task.end() || !it->is_array()) return;
  for (const json& a : *it) {
    TraceEvent e = base;
    e.kind = TraceEventKind::kAttemptStart;
    if (!a.is_object()) continue;
    e.attempt = Text(a, "attemptID");
    e.machine = HostOf(a);
    e.time = Seconds(a, "startTime");
    out->push_back(e);
    e.kind = TraceEventKind::kAttemptFinish;
    e.time = Seconds(a, "finishTime");
    e.success = Text(a, "result") == "SUCCESS";
    out->push_back(std::move(e));
  }
}

// Appends the map or reduce tasks of `list` to job->tasks and their attempts to *attempts.
Status AddTasks(const json& j, const char* list, TraceEvent* job,
                std::vector<TraceEvent>* attempts) {
  const auto it = j.find(list);
  if (it == j.end()) return Status::Ok();
  if (!it->is_array()) return Status::InvalidArgument(list, "is not an array");
  for (const json& task : *it) {
    if (!task.is_object() || !task.contains("taskID") || !task["taskID"].is_string())
      return Status::InvalidArgument(std::string(list) + "[].taskID", "is missing");
    TraceTask t;
    t.task = task["taskID"].get<std::string>();
    t.kind = list[0] == 'm' ? TaskKind::kMap : TaskKind::kReduce;
    t.replicas = PreferredHosts(task);
    const auto bytes = task.find("inputBytes");
    if (bytes != task.end() && bytes->is_number()) t.size = std::max(0.0, bytes->get<double>());
    const double start = Seconds(task, "startTime"), finish = Seconds(task, "finishTime");
    if (start >= 0 && finish >= start) t.duration = finish - start;
    TraceEvent base;
    base.pos = job->pos;
    base.job = job->job;
    base.task = t.task;
    AttemptEvents(task, base, attempts);
    job->tasks.push_back(std::move(t));
  }
  return Status::Ok();
}

}  // namespace

Status RumenJobEvents(std::string_view text, const SourcePos& pos, std::vector<TraceEvent>* out) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("object", "is not valid JSON");
  if (!j.is_object() || !j.contains("jobID") || !j["jobID"].is_string())
    return Status::InvalidArgument("jobID", "is missing (not a Rumen LoggedJob)");
  TraceEvent job;
  job.kind = TraceEventKind::kJobSubmit;
  job.pos = pos;
  job.job = j["jobID"].get<std::string>();
  job.time = Seconds(j, "submitTime");
  for (const auto& [key, field] : {std::pair{"user", &job.user}, std::pair{"queue", &job.queue}})
    if (const auto it = j.find(key); it != j.end() && it->is_string())
      *field = it->get<std::string>();
  if (job.time < 0) job.time = Seconds(j, "launchTime");
  std::vector<TraceEvent> attempts;
  for (const char* list : {"mapTasks", "reduceTasks"})
    if (Status s = AddTasks(j, list, &job, &attempts); !s.ok()) return s;
  out->push_back(std::move(job));
  for (TraceEvent& e : attempts) out->push_back(std::move(e));
  for (size_t i = 0; i < out->size(); ++i) (*out)[i].index = static_cast<uint32_t>(i);
  return Status::Ok();
}

size_t RumenParser::Scan(std::string_view line, size_t from) {
  for (size_t i = from; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string_) {
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
    } else if (c == '{') {
      ++depth_;
    } else if (c == '}' && --depth_ == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

void RumenParser::Reset() {
  text_.clear();
  depth_ = 0;
  in_string_ = escaped_ = false;
}

void RumenParser::Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) {
  // Shape: alternate between blanks outside objects and object text; an object may
  // span lines and several may share one ("} {"), so positions carry the column.
  size_t i = 0;
  while (i < line.size()) {
    if (depth_ == 0) {
      i = line.find_first_not_of(" \t\r", i);
      if (i == std::string_view::npos) return;
      if (line[i] != '{') {
        SourcePos at = pos;
        at.offset += i;
        sink->malformed.push_back(
            {at, Status::InvalidArgument("line", "is outside any JSON object")});
        return;
      }
      pos_ = pos;
      pos_.offset += i;
    }
    const size_t end = Scan(line, i);
    if (end == std::string_view::npos) {
      text_.append(line.substr(i)).push_back('\n');
      pos_.end = pos.end;
      if (text_.size() > kMaxObjectBytes) {
        sink->malformed.push_back(
            {pos_, Status::ResourceExhausted("object", "longer than 64 MiB")});
        Reset();
      }
      return;
    }
    text_.append(line.substr(i, end - i));
    pos_.end = pos.offset + end;
    EmitObject(sink);
    i = end;
  }
}

void RumenParser::EmitObject(ParseSink* sink) {
  std::vector<TraceEvent> events;
  Status s;
  try {
    s = RumenJobEvents(text_, pos_, &events);
  } catch (const nlohmann::json::exception& e) {  // a field of an unexpected type
    s = Status::InvalidArgument("object", e.what());
  }
  if (!s.ok()) {
    sink->malformed.push_back({pos_, std::move(s)});
  } else {
    for (TraceEvent& e : events) sink->events.push_back(std::move(e));
  }
  Reset();
}

void RumenParser::Finish(ParseSink* sink) {
  if (depth_ == 0) return;
  sink->malformed.push_back(
      {pos_, Status::InvalidArgument("object", "truncated: the input ends inside it")});
  Reset();
}

}  // namespace locsched
