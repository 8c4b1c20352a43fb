#include "algorithms/lp/offline_schedule.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace locsched {
namespace {

std::string TaskName(uint32_t j, uint32_t k) {
  return "jobs[" + std::to_string(j) + "].tasks[" + std::to_string(k) + "]";
}

bool Near(double a, double b) {
  return std::fabs(a - b) <=
         kScheduleTolerance * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

// Each task exactly once, on a usable machine, for its duration, after its release.
Status CheckEntries(const LpInstance& instance, const Schedule& schedule) {
  std::vector<std::vector<int>> seen(instance.jobs.size());
  for (size_t j = 0; j < instance.jobs.size(); ++j)
    seen[j].assign(instance.jobs[j].tasks.size(), 0);
  for (const ScheduledTask& e : schedule) {
    if (e.job >= instance.jobs.size() || e.task >= instance.jobs[e.job].tasks.size())
      return Status::NotFound(TaskName(e.job, e.task), "no such task");
    const std::string name = TaskName(e.job, e.task);
    if (seen[e.job][e.task]++) return Status::AlreadyExists(name, "scheduled twice");
    if (e.machine >= instance.capacity.size())
      return Status::NotFound(name + ".machine", "no such machine " + std::to_string(e.machine));
    const double p = TaskDuration(instance, {e.job, e.task}, e.machine);
    if (p == kNotAllowed)
      return Status::InvalidArgument(name + ".machine",
                                     "placement violated: machine " + std::to_string(e.machine));
    if (!std::isfinite(e.start) || !Near(e.end - e.start, p))
      return Status::InvalidArgument(
          name + ".end",
          "wrong duration " + std::to_string(e.end - e.start) + ", expected " + std::to_string(p));
    const double release = instance.jobs[e.job].release;
    if (e.start < release && !Near(e.start, release))
      return Status::InvalidArgument(name + ".start", "starts before its job's release");
  }
  for (size_t j = 0; j < seen.size(); ++j)
    for (size_t k = 0; k < seen[j].size(); ++k)
      if (!seen[j][k])
        return Status::NotFound(TaskName(static_cast<uint32_t>(j), static_cast<uint32_t>(k)),
                                "not scheduled");
  return Status::Ok();
}

// Every reduce starts after every map of its job ended.
Status CheckPrecedence(const LpInstance& instance, const Schedule& schedule) {
  std::vector<double> maps_end(instance.jobs.size(), 0.0);
  for (const ScheduledTask& e : schedule)
    if (instance.jobs[e.job].tasks[e.task].kind == LpTaskKind::kMap)
      maps_end[e.job] = std::max(maps_end[e.job], e.end);
  for (const ScheduledTask& e : schedule)
    if (instance.jobs[e.job].tasks[e.task].kind == LpTaskKind::kReduce &&
        e.start < maps_end[e.job] && !Near(e.start, maps_end[e.job]))
      return Status::InvalidArgument(TaskName(e.job, e.task) + ".start",
                                     "reduce starts before all maps of its job end (at " +
                                         std::to_string(maps_end[e.job]) + ")");
  return Status::Ok();
}

// Sweeps each machine's start/end events in time order (ends first at equal
// times, so back-to-back tasks do not overlap) and tracks the demand in use.
Status CheckCapacity(const LpInstance& instance, const Schedule& schedule) {
  std::vector<std::vector<std::pair<double, double>>> events(instance.capacity.size());
  for (const ScheduledTask& e : schedule) {
    const double demand = instance.jobs[e.job].tasks[e.task].demand;
    events[e.machine].push_back({e.start, demand});
    // An end within the tolerance of a start frees its capacity first (back-to-back tasks).
    events[e.machine].push_back(
        {e.end - kScheduleTolerance * std::max(1.0, std::fabs(e.end)), -demand});
  }
  for (size_t i = 0; i < events.size(); ++i) {
    auto& ev = events[i];
    std::sort(ev.begin(), ev.end());  // by time, ends (negative deltas) first at equal times
    double used = 0;
    const double cap = instance.capacity[i];
    for (const auto& [time, delta] : ev) {
      used += delta;
      if (used > cap * (1 + 1e-9) + 1e-12)
        return Status::InvalidArgument("machines[" + std::to_string(i) + "]",
                                       "capacity exceeded at time " + std::to_string(time) + ": " +
                                           std::to_string(used) + " > " + std::to_string(cap));
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckSchedule(const LpInstance& instance, const Schedule& schedule) {
  Status s = CheckEntries(instance, schedule);
  if (s.ok()) s = CheckPrecedence(instance, schedule);
  if (s.ok()) s = CheckCapacity(instance, schedule);
  return s;
}

std::vector<double> JobCompletions(const LpInstance& instance, const Schedule& schedule) {
  std::vector<double> completion(instance.jobs.size(), 0.0);
  for (const ScheduledTask& e : schedule)
    if (e.job < completion.size()) completion[e.job] = std::max(completion[e.job], e.end);
  return completion;
}

double WeightedCompletion(const LpInstance& instance, const Schedule& schedule) {
  const std::vector<double> completion = JobCompletions(instance, schedule);
  double sum = 0;
  for (size_t j = 0; j < completion.size(); ++j) sum += instance.jobs[j].weight * completion[j];
  return sum;
}

}  // namespace locsched
