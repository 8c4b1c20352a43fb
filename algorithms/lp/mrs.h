// MRS (fotakis-mapreduce-shuffle-unrelated.txt §2): schedule the Map stage and the
// Reduce stage separately from their own interval LPs (rounded by SynchPack-2's
// matching), give job j the width w_j = C_j(maps) + C_j(reduces) (the paper's remark
// for shared processors), then merge: each machine starts its assigned tasks by
// smallest width, a reduce only from time w_j and after its maps.
// Called by tools/solve/lp_commands.cc and the tests. Pure; no threads.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// Knobs of MRS.
struct MrsOptions {
  double epsilon = 1.0;        ///< interval growth of the stage LPs and of the bound LP
  size_t max_columns = 20000;  ///< size limit of each LP
  /// Slow-motion parameters tried for each stage's rounding (the best stage schedule wins).
  std::vector<double> slow_motion = {1.0, 0.8, 0.6, 0.4};
};

/// What MRS computed besides the schedule.
struct MrsResult {
  SolverResult solved;        ///< merged schedule, objective, and the whole-instance LP bound
  std::vector<double> width;  ///< per job: w_j
};

/// MRS on the whole instance.
Status SolveMrs(const LpInstance& instance, const MrsOptions& options, MrsResult* result);

}  // namespace locsched
