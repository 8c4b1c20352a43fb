#include "algorithms/lp/lp_instance.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace locsched {

double TaskDuration(const LpInstance& instance, TaskRef t, uint32_t i) {
  const LpTask& task = instance.jobs[t.job].tasks[t.task];
  if (task.demand > instance.capacity[i]) return kNotAllowed;
  if (std::find(task.placement.begin(), task.placement.end(), i) != task.placement.end())
    return task.duration + task.shuffle;
  return task.remote_penalty >= 1.0 ? task.duration * task.remote_penalty + task.shuffle
                                    : kNotAllowed;
}

std::vector<TaskRef> FlattenTasks(const LpInstance& instance) {
  std::vector<TaskRef> flat;
  for (uint32_t j = 0; j < instance.jobs.size(); ++j)
    for (uint32_t k = 0; k < instance.jobs[j].tasks.size(); ++k) flat.push_back({j, k});
  return flat;
}

namespace {

bool Positive(double v) {
  return std::isfinite(v) && v > 0;
}

// One task's fields; `path` is "jobs[j].tasks[k]".
Status ValidateTask(const LpInstance& instance, TaskRef ref, const std::string& path) {
  const LpTask& task = instance.jobs[ref.job].tasks[ref.task];
  const double max_capacity = *std::max_element(instance.capacity.begin(), instance.capacity.end());
  if (!Positive(task.demand) || task.demand > max_capacity)
    return Status::InvalidArgument(path + ".demand", "must be in (0, capacity]");
  if (!Positive(task.duration)) return Status::InvalidArgument(path + ".duration", "must be > 0");
  if (!(task.remote_penalty == 0.0 ||
        (std::isfinite(task.remote_penalty) && task.remote_penalty >= 1.0)))
    return Status::InvalidArgument(path + ".remote_penalty", "must be >= 1");
  if (!std::isfinite(task.shuffle) || task.shuffle < 0)
    return Status::InvalidArgument(path + ".shuffle", "must be >= 0");
  if (task.shuffle > 0 && task.kind != LpTaskKind::kReduce)
    return Status::InvalidArgument(path + ".shuffle", "only a reduce has a shuffle");
  if (task.placement.empty() && task.remote_penalty == 0.0)
    return Status::InvalidArgument(path + ".placement", "is empty and there is no remote_penalty");
  for (size_t p = 0; p < task.placement.size(); ++p)
    if (task.placement[p] >= instance.capacity.size())
      return Status::InvalidArgument(path + ".placement[" + std::to_string(p) + "]",
                                     "no such machine");
  for (uint32_t i = 0; i < instance.capacity.size(); ++i)
    if (TaskDuration(instance, ref, i) != kNotAllowed) return Status::Ok();
  return Status::InvalidArgument(path + ".demand", "must be in (0, capacity] of a usable machine");
}

}  // namespace

Status ValidateInstance(const LpInstance& instance) {
  if (instance.capacity.empty()) return Status::InvalidArgument("machines", "must not be empty");
  for (size_t i = 0; i < instance.capacity.size(); ++i)
    if (!Positive(instance.capacity[i]))
      return Status::InvalidArgument("machines[" + std::to_string(i) + "].capacity", "must be > 0");
  if (instance.jobs.empty()) return Status::InvalidArgument("jobs", "must not be empty");
  for (uint32_t j = 0; j < instance.jobs.size(); ++j) {
    const LpJob& job = instance.jobs[j];
    const std::string path = "jobs[" + std::to_string(j) + "]";
    if (!Positive(job.weight)) return Status::InvalidArgument(path + ".weight", "must be > 0");
    if (!std::isfinite(job.release) || job.release < 0)
      return Status::InvalidArgument(path + ".release", "must be >= 0");
    if (job.tasks.empty()) return Status::InvalidArgument(path + ".tasks", "must not be empty");
    for (uint32_t k = 0; k < job.tasks.size(); ++k) {
      Status s = ValidateTask(instance, {j, k}, path + ".tasks[" + std::to_string(k) + "]");
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

}  // namespace locsched
