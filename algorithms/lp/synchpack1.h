// SynchPack-1 (synchpack-packing-placement.txt §3 and §5): preemptive schedules from the
// preemptive interval LP (LP1). With migration, each task's LP shares (machine, interval)
// are list-scheduled preemptively in interval order; with a single machine per task,
// each machine serves its tasks preemptively in the LP's job order.
// Called by tools/solve/lp_commands.cc and tests. Pure; no threads.
#pragma once

#include <cstddef>

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// Knobs of both SynchPack-1 variants.
struct SynchPack1Options {
  double epsilon = 1.0;        ///< LP interval growth
  size_t max_columns = 20000;  ///< LP size limit
};

/// SynchPack-1 with migration: the schedule has one entry per piece (Preemption::kMigration);
/// lower_bound is LP1's optimum. Slow motion is not applied (λ = 1): it only delays.
Status SolveSynchPack1(const LpInstance& instance, const SynchPack1Options& options,
                       SolverResult* result);
/// The single-machine special case (Preemption::kSameMachine): every task must have
/// exactly one placement machine and no remote penalty (else InvalidArgument naming
/// the task). Jobs are ordered by LP1's completion times (the paper orders by its LP3).
Status SolveSynchPack1Single(const LpInstance& instance, const SynchPack1Options& options,
                             SolverResult* result);

}  // namespace locsched
