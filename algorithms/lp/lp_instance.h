// LpInstance: the offline weighted-completion-time problem (machines
// with a capacity; jobs with a weight, a release time and map/reduce tasks with a
// demand, a placement, a duration and an optional remote penalty). Built by
// tools/solve/lp_commands.cc and the tests, read by every LP solver. Plain data; no threads.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "base/status.h"

namespace locsched {

/// Map tasks run first; a reduce task may start only after every map of its job ended.
enum class LpTaskKind { kMap, kReduce };

/// One task: `duration` on its placement, `duration * remote_penalty` elsewhere.
struct LpTask {
  double demand = 1.0;                 ///< resource units held while running
  std::vector<uint32_t> placement;     ///< machines holding its input (duration applies there)
  double duration = 1.0;               ///< run time on a placement machine, > 0
  double remote_penalty = 0.0;         ///< >= 1 lets it run elsewhere that much slower; 0: never
  LpTaskKind kind = LpTaskKind::kMap;  ///< map or reduce
  /// Reduces only: the shuffle (data transfer) run on the reduce's machine right before
  /// it, after all maps of its job (Fotakis et al. §3, shuffle on the reduce processor).
  double shuffle = 0.0;
};

/// One job: done when its last task ends.
struct LpJob {
  double weight = 1.0;        ///< w_j > 0 in the objective sum w_j C_j
  double release = 0.0;       ///< no task of the job starts earlier
  std::vector<LpTask> tasks;  ///< in input order
};

/// The machines (by capacity) and the jobs.
struct LpInstance {
  std::vector<double> capacity;  ///< c_i > 0, one per machine
  std::vector<LpJob> jobs;       ///< in input order
};

/// A task named by its input indices.
struct TaskRef {
  uint32_t job;   ///< index into LpInstance::jobs
  uint32_t task;  ///< index into that job's tasks
};

/// Marks a machine a task cannot use (off its placement without a penalty, or too small).
inline constexpr double kNotAllowed = std::numeric_limits<double>::infinity();

/// The run time of `t` on machine `i` (shuffle included), or kNotAllowed.
double TaskDuration(const LpInstance& instance, TaskRef t, uint32_t i);
/// Every task, job by job, in input order (the "flat" task index used by the LPs).
std::vector<TaskRef> FlattenTasks(const LpInstance& instance);
/// Checks sizes and ranges; the subject is the field path, e.g. "jobs[2].tasks[0].demand".
Status ValidateInstance(const LpInstance& instance);

}  // namespace locsched
