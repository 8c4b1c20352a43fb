// SynchPack-L, the practical SynchPack: the same interval LP and bound as SynchPack-2,
// then serial list scheduling in LP order (job LP completion times, or task α-points)
// where each task takes the allowed machine on which it finishes first, backfilling
// gaps. Called by tools/solve/lp_commands.cc (`synchpack`) and tests. Pure; no threads.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/lp/class_lp.h"
#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// Knobs of SynchPack-L.
struct SynchPackListOptions {
  double epsilon = 1.0;        ///< LP interval growth
  size_t max_columns = 20000;  ///< LP size limit
  /// α values whose task α-points are tried as orders, besides the job LP completion order.
  std::vector<double> alphas = {0.25, 0.5, 0.75};
  /// Order by the class LP (class_lp.h) instead of the per-task LP: its bound is lower
  /// or equal, and it scales to 10,000 tasks; α-points are then per class.
  bool use_classes = false;
  ClassLpOptions classes;  ///< its knobs (epsilon is taken from `epsilon`)
};

/// SynchPack-L's result: the best schedule among the orders tried, and which order won.
struct SynchPackListResult {
  SolverResult solved;    ///< schedule, objective, LP bound
  std::string order;      ///< "lp-completion" or "alpha=<a>"
  size_t lp_columns = 0;  ///< columns of the LP solved
};

/// Packs the tasks of `order` (flat indices, FlattenTasks order) one by one, each at
/// the earliest finish over its allowed machines (gaps included), after its release
/// and, for a reduce, after its job's maps; a reduce met before its job's last map
/// waits until that map is packed.
Schedule PackInOrder(const LpInstance& instance, const std::vector<size_t>& order);
/// Task orders from the LP: by job LP completion (ties: higher weight per work), and
/// by each task's α-point (the time its LP fraction reaches α) for every α given.
std::vector<std::pair<std::string, std::vector<size_t>>> LpOrders(
    const LpInstance& instance, const IntervalLpResult& lp, const std::vector<double>& alphas);
/// SynchPack-L on the whole instance; lower_bound is the LP's optimum.
Status SolveSynchPackList(const LpInstance& instance, const SynchPackListOptions& options,
                          SynchPackListResult* result);

}  // namespace locsched
