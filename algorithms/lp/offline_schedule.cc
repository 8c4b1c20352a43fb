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

// One entry: a known task on a usable machine, not before its job's release; adds
// the share of the task it runs to `done`.
Status CheckEntry(const LpInstance& instance, const ScheduledTask& e, Preemption preemption,
                  double* done) {
  if (e.job >= instance.jobs.size() || e.task >= instance.jobs[e.job].tasks.size())
    return Status::NotFound(TaskName(e.job, e.task), "no such task");
  const std::string name = TaskName(e.job, e.task);
  if (e.machine >= instance.capacity.size())
    return Status::NotFound(name + ".machine", "no such machine " + std::to_string(e.machine));
  const double p = TaskDuration(instance, {e.job, e.task}, e.machine);
  if (p == kNotAllowed)
    return Status::InvalidArgument(name + ".machine",
                                   "placement violated: machine " + std::to_string(e.machine));
  if (!std::isfinite(e.start) || !std::isfinite(e.end) ||
      (preemption == Preemption::kNone ? !Near(e.end - e.start, p) : e.end < e.start))
    return Status::InvalidArgument(
        name + ".end",
        "wrong duration " + std::to_string(e.end - e.start) + ", expected " + std::to_string(p));
  const double release = instance.jobs[e.job].release;
  if (e.start < release && !Near(e.start, release))
    return Status::InvalidArgument(name + ".start", "starts before its job's release");
  *done += (e.end - e.start) / p;
  return Status::Ok();
}

// A task's pieces: one machine unless migration is allowed, never two at once.
Status CheckPieces(std::vector<ScheduledTask> pieces, Preemption preemption) {
  std::sort(pieces.begin(), pieces.end(),
            [](const ScheduledTask& a, const ScheduledTask& b) { return a.start < b.start; });
  for (size_t k = 1; k < pieces.size(); ++k) {
    const std::string name = TaskName(pieces[k].job, pieces[k].task);
    if (preemption == Preemption::kSameMachine && pieces[k].machine != pieces[0].machine)
      return Status::InvalidArgument(name + ".machine", "migrates between machines");
    if (pieces[k].start < pieces[k - 1].end && !Near(pieces[k].start, pieces[k - 1].end))
      return Status::InvalidArgument(name + ".start", "two pieces run at once");
  }
  return Status::Ok();
}

// Each task exactly once (or in pieces that add up to it), on a usable machine, for
// its duration, after its release.
Status CheckEntries(const LpInstance& instance, const Schedule& schedule, Preemption preemption) {
  std::vector<std::vector<double>> done(instance.jobs.size());
  std::vector<std::vector<std::vector<ScheduledTask>>> pieces(instance.jobs.size());
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    done[j].assign(instance.jobs[j].tasks.size(), 0.0);
    pieces[j].resize(instance.jobs[j].tasks.size());
  }
  for (const ScheduledTask& e : schedule) {
    const bool known = e.job < instance.jobs.size() && e.task < instance.jobs[e.job].tasks.size();
    if (known && preemption == Preemption::kNone && done[e.job][e.task] > 0)
      return Status::AlreadyExists(TaskName(e.job, e.task), "scheduled twice");
    double share = 0;
    Status s = CheckEntry(instance, e, preemption, &share);
    if (!s.ok()) return s;
    done[e.job][e.task] += std::max(share, 1e-300);  // a zero-length piece still counts as seen
    pieces[e.job][e.task].push_back(e);
  }
  for (size_t j = 0; j < done.size(); ++j)
    for (size_t k = 0; k < done[j].size(); ++k) {
      const std::string name = TaskName(static_cast<uint32_t>(j), static_cast<uint32_t>(k));
      if (done[j][k] == 0) return Status::NotFound(name, "not scheduled");
      if (preemption == Preemption::kNone) continue;
      if (std::fabs(done[j][k] - 1) > 1e-6)
        return Status::InvalidArgument(
            name, "its pieces run " + std::to_string(done[j][k]) + " of the task, not all of it");
      Status s = CheckPieces(pieces[j][k], preemption);
      if (!s.ok()) return s;
    }
  return Status::Ok();
}

// Every reduce (each of its pieces) starts after every map of its job ended.
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

Status CheckSchedule(const LpInstance& instance, const Schedule& schedule, Preemption preemption) {
  Status s = CheckEntries(instance, schedule, preemption);
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
