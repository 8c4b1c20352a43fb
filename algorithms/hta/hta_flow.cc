#include "algorithms/hta/hta_flow.h"

#include <algorithm>
#include <limits>

#include "algorithms/hta/bal_assign.h"

namespace locsched {
namespace {

// Max-cover at `tau` (warm from the current flow) followed by bal-assign.
HtaSolution TryTau(MaxCover& cover, const HtaCosts& costs, int tau) {
  cover.SetTau(tau);
  cover.Augment();
  BalResult b = BalAssign(cover, costs);
  return HtaSolution{std::move(b.server), b.max_load, b.remote_tasks, tau, 1};
}

}  // namespace

HtaSolution RunAlgorithm2(MaxCover& cover, const HtaCosts& costs, int first_tau) {
  HtaSolution best;
  best.max_load = std::numeric_limits<double>::infinity();
  int iterations = 0;
  for (int tau = std::max(first_tau, 1);; ++tau) {
    if (tau * costs.w_loc >= best.max_load) break;  // cannot improve on best
    cover.SetTau(tau);
    const int added = cover.Augment();
    if (iterations > 0 && added == 0) break;  // same cover as tau-1, and for ever after
    ++iterations;
    BalResult b = BalAssign(cover, costs);
    if (b.max_load < best.max_load)
      best = HtaSolution{std::move(b.server), b.max_load, b.remote_tasks, tau, 0};
  }
  best.iterations = iterations;
  return best;
}

HtaSolution SolveHtaFlow(const HtaInstance& instance) {
  MaxCover cover(instance.servers, 1);
  for (const std::vector<int>& replicas : instance.tasks) cover.AddTask(replicas);
  return RunAlgorithm2(cover, instance.costs);
}

HtaSolution Rebalance(MaxCover& cover, const HtaCosts& costs, double good_enough) {
  const int start = std::max(cover.tau(), 1);
  HtaSolution best = TryTau(cover, costs, start);
  int iterations = 1;
  // Walk one direction while it improves: up first, then down if up did not help.
  for (int step : {+1, -1}) {
    if (best.max_load <= good_enough) break;
    bool moved = false;
    for (int tau = best.tau + step; tau >= 1; tau += step) {
      if (step > 0 && tau * costs.w_loc >= best.max_load) break;
      HtaSolution next = TryTau(cover, costs, tau);
      ++iterations;
      if (next.max_load >= best.max_load) break;
      best = std::move(next);
      moved = true;
    }
    if (moved) break;
  }
  if (cover.tau() != best.tau) {
    cover.SetTau(best.tau);
    cover.Augment();
  }
  best.iterations = iterations;
  return best;
}

}  // namespace locsched
