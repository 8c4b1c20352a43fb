#include "tools/tail/requests.h"

#include <nlohmann/json.hpp>

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

std::string RequestLine(const TraceEvent& e, const std::string& id, const SynthesisOptions& o) {
  switch (e.kind) {
    case TraceEventKind::kRequest: {
      nlohmann::json j = nlohmann::json::parse(e.request, nullptr, false);
      if (j.is_discarded() || !j.is_object()) return "";
      if (!j.contains("id")) j["id"] = id;
      return j.dump();
    }
    case TraceEventKind::kJobSubmit:
    case TraceEventKind::kTaskSubmit: {
      if (e.tasks.empty()) return "";
      // A JobHistory task arrives on its own: it becomes a one-task job "<job>/<task>".
      const std::string job =
          e.kind == TraceEventKind::kTaskSubmit ? e.job + "/" + e.tasks[0].task : e.job;
      nlohmann::json tasks = nlohmann::json::array();
      for (size_t i = 0; i < e.tasks.size(); ++i) tasks.push_back(TaskJson(e.tasks[i], job, i, o));
      return nlohmann::json{{"op", "job_submit"}, {"id", id}, {"job", job}, {"tasks", tasks}}
          .dump();
    }
    case TraceEventKind::kAttemptStart:
    case TraceEventKind::kAttemptFinish:
      return "";  // the cluster (agents) reports its own starts and finishes
  }
  return "";
}

void MachineAnnouncer::Lines(const std::string& request, std::vector<std::string>* out) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, false);
  if (j.is_discarded() || j.value("op", "") != "job_submit" || !j.contains("tasks")) return;
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
