// SynchPack-2 (synchpack-packing-placement.txt §4): solve the interval LP, apply
// slow motion, map each task to one machine-interval by an integral matching on
// the LP's fractions, then pack each machine greedily interval by interval.
// Called by tools/solve/lp_commands.cc, the MRS solver (per-stage schedules) and tests. Pure; no
// threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// Knobs of SynchPack-2.
struct SynchPackOptions {
  double epsilon = 1.0;        ///< LP interval growth (the paper's LP2 doubles: 1)
  size_t max_columns = 20000;  ///< LP size limit
  /// Slow-motion parameters lambda in (0, 1] tried (stretch 1/lambda); the best schedule wins.
  std::vector<double> slow_motion = {1.0, 0.8, 0.6, 0.4};
};

/// The machine and LP interval a task was mapped to.
struct MachineInterval {
  uint32_t machine;   ///< i
  uint32_t interval;  ///< l >= 1
};

/// Slow motion with `lambda`, then an integral matching of the LP's covered tasks
/// (lp.tasks order) to copies of machine-intervals (Shmoys–Tardos style).
std::vector<MachineInterval> MapToMachineIntervals(const LpInstance& instance,
                                                   const IntervalLpResult& lp, double lambda);
/// Packs lp.tasks on their mapped machines, interval by interval, each at its earliest
/// fit; with `precedence`, reduces are packed after the maps and wait for them.
Schedule PackMapped(const LpInstance& instance, const IntervalLpResult& lp,
                    const std::vector<MachineInterval>& mapping, bool precedence);
/// SynchPack-2 on the whole instance; lower_bound is the LP's optimum.
Status SolveSynchPack(const LpInstance& instance, const SynchPackOptions& options,
                      SolverResult* result);

}  // namespace locsched
