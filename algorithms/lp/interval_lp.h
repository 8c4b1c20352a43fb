// IntervalLp: the interval-indexed LP relaxation of ALGORITHMS.md §3 (SynchPack's
// LP2, also MRS's per-stage LP), solved with GLPK's dual simplex. Its optimum is a
// lower bound on sum w_j C_j of every feasible schedule. Called by the SynchPack-2
// and MRS solvers; each call owns its own GLPK problem (GLPK is not thread-safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/lp/lp_instance.h"
#include "base/status.h"

namespace locsched {

/// Which tasks the LP covers: all, or one MRS stage.
enum class LpStage { kAll, kMaps, kReduces };

/// Knobs of the LP.
struct IntervalLpOptions {
  double epsilon = 1.0;           ///< interval growth: d_l = unit * (1 + epsilon)^(l-1)
  size_t max_columns = 20000;     ///< larger LPs are refused (ResourceExhausted)
  LpStage stage = LpStage::kAll;  ///< the tasks the LP schedules
  /// Re-solve at the optimum for the earliest task ends (fractions only; the bound is unchanged).
  bool spread = true;
  /// SynchPack's LP1: z is the part of a task *processed* in interval l (any interval
  /// after its ready time), each interval's work fits the machine and a task runs on
  /// one machine at a time; a lower bound on preemptive schedules, with migration or not.
  bool preemptive = false;
  /// Shuffles on separate processors (Fotakis et al. §3.2): a reduce's shuffle delays its
  /// start but takes no capacity of its machine (its duration there excludes the shuffle).
  bool separate_shuffle = false;
};

/// z_{t,i,l}: the part of a task completed (preemptive: processed) on machine i in interval l.
struct LpFraction {
  uint32_t machine;   ///< i
  uint32_t interval;  ///< l >= 1
  double value;       ///< in (0, 1]
};

/// The LP optimum.
struct IntervalLpResult {
  double objective = 0;                    ///< sum w_j C_j: the lower bound
  std::vector<double> endpoints;           ///< d_0 = 0, d_1, ..., d_L
  std::vector<TaskRef> tasks;              ///< the tasks covered, in flat order
  std::vector<std::vector<LpFraction>> z;  ///< per covered task, its nonzero fractions
  std::vector<double> completion;          ///< LP C_j per job (0 for jobs without covered tasks)
};

/// The number of columns the LP would have (for size limits before solving).
size_t IntervalLpColumns(const LpInstance& instance, const IntervalLpOptions& options);
/// Solves the LP for a valid instance; ResourceExhausted above options.max_columns.
Status SolveIntervalLp(const LpInstance& instance, const IntervalLpOptions& options,
                       IntervalLpResult* result);

}  // namespace locsched
