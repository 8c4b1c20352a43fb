// ClassLp: the interval LP of interval_lp.h aggregated for large instances. The tasks
// of a job that differ only in placement form one class with a multiplicity, and the
// machines fold into groups; a class's variables count its tasks ending on a group
// in an interval (locally, at most the tasks with a replica there, or remotely). Every
// feasible schedule maps onto a feasible solution, so the optimum is a lower bound on
// sum w_j C_j (never above the per-task LP's with the same grid and thresholds). Called
// by SynchPack-L and tools/solve (`lp-bound --lp classes`). Pure; one GLPK problem per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/lp_instance.h"
#include "base/status.h"

namespace locsched {

/// Knobs of the class LP.
struct ClassLpOptions {
  double epsilon = 1.0;         ///< interval growth, as in IntervalLpOptions
  size_t groups = 0;            ///< machine groups; 0 (or >= machines): one per machine
  size_t max_thresholds = 8;    ///< release thresholds of the capacity rows, besides 0
  size_t max_columns = 400000;  ///< larger LPs are refused (ResourceExhausted)
  /// Drop a job's interval variables x_{j,l} and rows (c)-(e): C_j is only bounded by
  /// each class's mean interval start (E max >= max E: a weaker bound, a much smaller LP).
  /// Jobs of one class never need them.
  bool per_class_completion = false;
};

/// One class: tasks of one job with equal kind, demand, duration, penalty and shuffle.
struct TaskClass {
  uint32_t job;                 ///< index into LpInstance::jobs
  std::vector<uint32_t> tasks;  ///< its tasks (indices into the job's tasks)
  double ready = 0;             ///< earliest start (release; a reduce also waits for one map)
};

/// A class's tasks ending in one interval on one machine group.
struct ClassFraction {
  uint32_t group;     ///< machine group
  bool remote;        ///< run off their placement (duration x remote_penalty)
  uint32_t interval;  ///< l >= 1
  double count;       ///< tasks (fractional)
};

/// The class LP's optimum.
struct ClassLpResult {
  double objective = 0;                       ///< the lower bound
  std::vector<double> endpoints;              ///< d_0 = 0, ..., d_L
  std::vector<TaskClass> classes;             ///< in job order
  std::vector<std::vector<ClassFraction>> z;  ///< per class, its nonzero counts
  std::vector<double> completion;             ///< LP C_j per job
  std::vector<uint32_t> group_of;             ///< per machine, its group
  size_t columns = 0;                         ///< LP size, for reports
  size_t rows = 0;
};

/// The classes of an instance (tasks of a job equal but for placement), in job order.
std::vector<TaskClass> BuildTaskClasses(const LpInstance& instance);
/// The number of columns the class LP would have.
size_t ClassLpColumns(const LpInstance& instance, const ClassLpOptions& options);
/// Solves the class LP of a valid instance; ResourceExhausted above options.max_columns.
Status SolveClassLp(const LpInstance& instance, const ClassLpOptions& options,
                    ClassLpResult* result);
/// The class LP as per-task fractions (each task gets its class's counts / size; the
/// machine is the group's first machine), for orders built on IntervalLpResult.
IntervalLpResult ClassLpAsTaskLp(const ClassLpResult& lp);

}  // namespace locsched
