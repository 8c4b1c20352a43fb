#include "tools/tail/requests.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

namespace locsched {
namespace {

nlohmann::json TaskJson(const TraceTask& t, std::string_view job, uint64_t index,
                        const SynthesisOptions& o) {
  nlohmann::json j = {{"task", t.task},
                      {"replicas", t.replicas.empty() ? PlaceReplicas(o, job, index) : t.replicas}};
  if (t.kind == TaskKind::kReduce) j["kind"] = "reduce";
  if (t.size > 0) j["size"] = t.size;
  if (t.duration > 0) j["duration"] = t.duration;
  return j;
}

}  // namespace

std::string EventId(std::string_view source, uint64_t generation, const TraceEvent& e) {
  std::string id(source);
  id.append(":")
      .append(std::to_string(generation))
      .append(":")
      .append(std::to_string(e.pos.offset));
  if (e.index > 0) id.append(".").append(std::to_string(e.index));
  return id;
}

std::string NewRunId() {
  std::random_device rd;
  char text[16];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(rd()));
  return text;
}

std::string RunIdProblem(std::string_view run) {
  if (run.empty() || run.size() > 64) return "a run id has 1 to 64 characters";
  for (const char c : run)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return "a run id is made of letters, digits, '.', '_' and '-'";
  return "";
}

std::string RunJobName(std::string_view job, std::string_view run) {
  std::string name(job);
  if (!run.empty()) name.append("@").append(run);
  return name;
}

namespace {

// `{"id":ID,"job":JOB,"op":OP` (keys in nlohmann's order, no closing brace): the
// head of a request line the tasks are appended to.
std::string Head(std::string_view op, const std::string& id, const std::string& job) {
  std::string head = nlohmann::json{{"id", id}, {"job", job}, {"op", op}}.dump();
  head.pop_back();
  return head;
}

// One line: head, tasks [first, last), and tasks_total when the job goes in parts.
std::string Line(const std::string& head, std::vector<std::string>& tasks, size_t first,
                 size_t last, uint64_t total) {
  std::string line = head + ",\"tasks\":[";
  for (size_t i = first; i < last; ++i) {
    if (i > first) line += ',';
    line += tasks[i];
    std::string().swap(tasks[i]);  // each task's text is needed once
  }
  line += ']';
  if (total > 0) line += ",\"tasks_total\":" + std::to_string(total);
  line += '}';
  return line;
}

// A job's lines: one job_submit, or (past max_bytes) a job_submit with tasks_total and
// task_add parts. Each task is written once, on its own, never the whole job at once.
std::vector<std::string> JobLines(const TraceEvent& e, const std::string& id,
                                  const SynthesisOptions& o, size_t max_bytes,
                                  std::string_view run) {
  if (e.tasks.empty()) return {};
  // A JobHistory task arrives on its own: it becomes a one-task job "<job>/<task>".
  // Replicas are placed by the trace's own name, so a run places them as any other.
  const std::string trace_job =
      e.kind == TraceEventKind::kTaskSubmit ? e.job + "/" + e.tasks[0].task : e.job;
  const std::string job = RunJobName(trace_job, run);
  std::vector<std::string> tasks;
  tasks.reserve(e.tasks.size());
  size_t bytes = 0;
  for (size_t i = 0; i < e.tasks.size(); ++i) {
    tasks.push_back(TaskJson(e.tasks[i], trace_job, i, o).dump());
    bytes += tasks.back().size() + 1;
  }
  std::string head = Head("job_submit", id, job);
  // The job's own queue and user where the log names them (the daemon places the job).
  if (!e.queue.empty()) head += ",\"queue\":" + nlohmann::json(e.queue).dump();
  if (!e.user.empty()) head += ",\"user\":" + nlohmann::json(e.user).dump();
  constexpr size_t kSlack = 64;  // ",\"tasks\":[", "]", tasks_total, "}"
  if (head.size() + bytes + kSlack <= max_bytes) return {Line(head, tasks, 0, tasks.size(), 0)};
  std::vector<std::string> lines;
  size_t first = 0;
  while (first < tasks.size()) {
    const std::string part_head =
        lines.empty() ? head : Head("task_add", id + "#" + std::to_string(lines.size()), job);
    size_t last = first, size = part_head.size() + kSlack;
    while (last < tasks.size() && (last == first || size + tasks[last].size() + 1 <= max_bytes))
      size += tasks[last++].size() + 1;
    lines.push_back(Line(part_head, tasks, first, last, lines.empty() ? tasks.size() : 0));
    first = last;
  }
  return lines;
}

}  // namespace

namespace {

// The own id of a forwarded locsched line, qualified by run `run` (a string id
// or an integer's digits after "<run>:"); untouched when there is no run.
void QualifyId(nlohmann::json& j, std::string_view run) {
  if (run.empty() || !(j["id"].is_string() || j["id"].is_number())) return;
  const std::string own = j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump();
  j["id"] = std::string(run) + ":" + own;
}

}  // namespace

std::vector<std::string> RequestLines(const TraceEvent& e, const std::string& id,
                                      const SynthesisOptions& o, size_t max_bytes,
                                      std::string_view run) {
  switch (e.kind) {
    case TraceEventKind::kRequest: {
      nlohmann::json j = nlohmann::json::parse(e.request, nullptr, false);
      if (j.is_discarded() || !j.is_object()) return {};
      if (!j.contains("id"))
        j["id"] = id;  // the run's already
      else
        QualifyId(j, run);
      if (!run.empty() && j.contains("job") && j["job"].is_string())
        j["job"] = RunJobName(j["job"].get<std::string>(), run);
      return SplitRequest(j.dump(), max_bytes);
    }
    case TraceEventKind::kJobSubmit:
    case TraceEventKind::kTaskSubmit:
      return JobLines(e, id, o, max_bytes, run);
    case TraceEventKind::kAttemptStart:
    case TraceEventKind::kAttemptFinish:
      return {};  // the cluster (agents) reports its own starts and finishes
  }
  return {};
}

std::string RequestLine(const TraceEvent& e, const std::string& id, const SynthesisOptions& o,
                        std::string_view run) {
  std::vector<std::string> lines = RequestLines(e, id, o, SIZE_MAX, run);
  return lines.empty() ? std::string() : std::move(lines[0]);
}

namespace {

// The id of part k of a request whose id is `id` (a string or an integer).
nlohmann::json PartId(const nlohmann::json& id, size_t k) {
  if (k == 0) return id;
  const std::string base = id.is_string() ? id.get<std::string>() : id.dump();
  return base + "#" + std::to_string(k);
}

}  // namespace

std::vector<std::string> SplitRequest(const std::string& line, size_t max_bytes) {
  if (line.size() <= max_bytes) return {line};
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("op", "") != "job_submit" ||
      !j.contains("tasks") || !j["tasks"].is_array() || j["tasks"].size() < 2 ||
      j.contains("tasks_total"))
    return {line};  // the daemon will say what is wrong with it
  nlohmann::json tasks = std::move(j["tasks"]);
  const nlohmann::json id = j.contains("id") ? j["id"] : nlohmann::json();
  nlohmann::json head = j;  // job_submit's own fields (weight) stay on the first part
  head["tasks"] = nlohmann::json::array();
  head["tasks_total"] = tasks.size();
  std::vector<std::string> parts;
  nlohmann::json part = head;
  // Room for the part's own fields: its op, job and id, and the brackets.
  const size_t overhead = head.dump().size() + 64;
  size_t bytes = overhead;
  for (nlohmann::json& task : tasks) {
    const size_t size = task.dump().size() + 1;
    if (bytes + size > max_bytes && !part["tasks"].empty()) {
      parts.push_back(part.dump());
      part = {{"op", "task_add"}, {"job", j["job"]}, {"tasks", nlohmann::json::array()}};
      if (!id.is_null()) part["id"] = PartId(id, parts.size());
      bytes = overhead;
    }
    part["tasks"].push_back(std::move(task));
    bytes += size;
  }
  parts.push_back(part.dump());
  return parts;
}

void MachineAnnouncer::Lines(const std::string& request, std::vector<std::string>* out) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, false);
  const std::string op = j.is_discarded() ? "" : j.value("op", "");
  if ((op != "job_submit" && op != "task_add") || !j.contains("tasks")) return;
  for (const auto& task : j["tasks"]) {
    if (!task.is_object() || !task.contains("replicas")) continue;
    for (const auto& host : task["replicas"]) {
      if (!host.is_string() || !announced_.insert(host.get<std::string>()).second) continue;
      out->push_back(nlohmann::json{
          {"op", "machine_up"}, {"id", "up:" + host.get<std::string>()}, {"machine", host}}
                         .dump());
    }
  }
}

}  // namespace locsched
