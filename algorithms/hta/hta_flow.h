// Algorithm 2 of Fischer, Su and Yin: for tau = 1, 2, ... a warm-started
// max-cover (MaxCover) plus bal-assign (BalAssign), keeping the best complete
// assignment; and Rebalance, its incremental form around the last best tau.
// Called by tools/solve/hta_command.cc, the tests and bench/hta_bench.cc. Pure; the
// MaxCover passed in is the only state and must not be shared across threads.
#pragma once

#include <vector>

#include "algorithms/hta/hta_instance.h"
#include "algorithms/hta/max_cover.h"

namespace locsched {

/// The best complete assignment found.
struct HtaSolution {
  std::vector<int> assignment;  ///< server per task (input order, or MaxCover ids)
  double max_load = 0;          ///< real max load: local·w_loc + remote·w_rem(r)
  int remote_tasks = 0;         ///< r
  int tau = 0;                  ///< the tau whose bal-assign gave the assignment
  int iterations = 0;           ///< tau values whose bal-assign ran
};

/// Algorithm 2 over `cover`'s live tasks, tau = first_tau, first_tau + 1, ... warm
/// from the flow it holds. Stops once tau·w_loc >= the best load (a better assignment
/// has fewer than tau local tasks on every server, and those taus were tried) or
/// when the flow stops growing (the max-cover value is concave in tau, so it never
/// grows again). Leaves `cover` at the last tau tried.
HtaSolution RunAlgorithm2(MaxCover& cover, const HtaCosts& costs, int first_tau = 1);

/// Algorithm 2 from scratch on `instance` (valid per ValidateHtaInstance).
HtaSolution SolveHtaFlow(const HtaInstance& instance);

/// Incremental rebalance: bal-assign at cover.tau() (after Augment). If that max load
/// is above `good_enough`, walk tau up, else down, while the max load improves.
/// Callers pass the previous result's load (a 1% churn rarely moves the best tau, and
/// probing a lower tau re-augments a tighter flow, the expensive step) or a lower
/// bound; the default 0 always walks. Leaves `cover` at the best tau with a maximum
/// flow, ready for the next updates. A local search: it may stop at a worse tau than
/// RunAlgorithm2 from tau = 1 would find.
HtaSolution Rebalance(MaxCover& cover, const HtaCosts& costs, double good_enough = 0);

}  // namespace locsched
