// Schedule: a schedule of an LpInstance (one entry per task, or per piece of a task
// when preemption is allowed) and CheckSchedule, the feasibility validator every LP
// solver and test relies on.
// Called by the solvers, tools/solve/lp_commands.cc and the tests. Pure functions; no threads.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/lp/lp_instance.h"
#include "base/status.h"

namespace locsched {

/// Task `task` of job `job` runs on `machine` during [start, end).
struct ScheduledTask {
  uint32_t job;      ///< input index of the job
  uint32_t task;     ///< input index of the task within its job
  uint32_t machine;  ///< input index of the machine
  double start;      ///< start time
  double end;        ///< end time = start + TaskDuration(...)
};

/// One entry per task (per piece when preempted), in any order.
using Schedule = std::vector<ScheduledTask>;

/// What a schedule may do with a task.
enum class Preemption {
  kNone,         ///< one entry per task, run without interruption
  kSameMachine,  ///< pieces on one machine, never two at once
  kMigration,    ///< pieces on any usable machines, never two at once
};

/// What every offline solver returns.
struct SolverResult {
  Schedule schedule;       ///< feasible for the instance
  double objective = 0;    ///< sum w_j C_j of `schedule`
  double lower_bound = 0;  ///< the interval LP's optimum (a lower bound on any schedule)
};

/// Relative tolerance of the validator's time and capacity comparisons.
inline constexpr double kScheduleTolerance = 1e-9;

/// Ok if `schedule` is feasible for `instance`; else names the first violation
/// (a missing or repeated task, placement, duration, release, map->reduce order, capacity).
/// With preemption a task's pieces must not overlap in time and their lengths, each
/// divided by the task's duration on the piece's machine, must add up to 1.
Status CheckSchedule(const LpInstance& instance, const Schedule& schedule,
                     Preemption preemption = Preemption::kNone);
/// The completion time of each job (the latest end of its tasks; 0 if none scheduled).
std::vector<double> JobCompletions(const LpInstance& instance, const Schedule& schedule);
/// Sum over jobs of weight * completion time.
double WeightedCompletion(const LpInstance& instance, const Schedule& schedule);

}  // namespace locsched
