#include "algorithms/hta/hta_lower_bound.h"

#include <algorithm>

#include "algorithms/hta/max_cover.h"

namespace locsched {

double HtaLowerBound(const HtaInstance& instance) {
  const int m = static_cast<int>(instance.tasks.size());
  const int n = instance.servers;
  const HtaCosts& c = instance.costs;
  if (m == 0) return 0;
  MaxCover cover(n, 0);
  for (const std::vector<int>& replicas : instance.tasks) cover.AddTask(replicas);
  const double pigeonhole = ((m + n - 1) / n) * c.w_loc;
  // Shape: L in [tau·w_loc, (tau+1)·w_loc) allows at most tau local tasks per
  // server; return the first L that is consistent with its own interval.
  for (int tau = 0, previous = -1;; ++tau) {
    cover.SetTau(tau);
    cover.Augment();
    const int f = cover.flow(), r = m - f;
    const double total = f * c.w_loc + r * c.Remote(static_cast<size_t>(r));
    const double need =
        std::max({pigeonhole, total / n, r > 0 ? c.Remote(static_cast<size_t>(r)) : 0.0});
    const double at_least = std::max(tau * c.w_loc, need);
    // No growth: f stays the same for every larger tau, so `need` is final.
    if (at_least < (tau + 1) * c.w_loc || f == previous) return at_least;
    previous = f;
  }
}

}  // namespace locsched
