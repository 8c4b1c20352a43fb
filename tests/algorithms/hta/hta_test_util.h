// Helpers shared by the HTA tests: seeded random instances and a brute-force
// optimum over all n^m assignments (the independent check on the GLPK MIP).
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "algorithms/hta/hta_instance.h"
#include "base/rng.h"

namespace locsched {

/// Distinct random servers for one task: `k` of them, capped at n.
inline std::vector<int> RandomReplicas(Rng& rng, int n, int k) {
  std::vector<int> out;
  while (static_cast<int>(out.size()) < std::min(k, n)) {
    const int s = static_cast<int>(rng.Below(static_cast<uint32_t>(n)));
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

/// m tasks with up to `max_replicas` replicas each (1..max, random), w_loc = 1 and
/// w_rem > w_loc: a constant, or (table) a random nondecreasing table of m+1 entries.
inline HtaInstance RandomInstance(Rng& rng, int n, int m, int max_replicas, bool table) {
  HtaInstance in;
  in.servers = n;
  in.costs.w_loc = 1;
  in.costs.w_rem = {2.0 + rng.Below(4)};
  if (table) {
    double w = 1.5;
    in.costs.w_rem.clear();
    for (int r = 0; r <= m; ++r) in.costs.w_rem.push_back(w += 0.5 * rng.Below(3));
  }
  for (int t = 0; t < m; ++t)
    in.tasks.push_back(RandomReplicas(
        rng, n, 1 + static_cast<int>(rng.Below(static_cast<uint32_t>(max_replicas)))));
  return in;
}

/// The optimum by enumeration, and the fewest remote tasks among optimal assignments.
struct BruteForce {
  double max_load = std::numeric_limits<double>::infinity();
  int min_remote = 0;
};

inline BruteForce SolveByEnumeration(const HtaInstance& in) {
  BruteForce best;
  const size_t m = in.tasks.size();
  std::vector<int> a(m, 0);
  // Shape: count through all n^m assignments like an odometer.
  while (true) {
    const HtaLoads loads = EvaluateAssignment(in, a);
    if (loads.max_load < best.max_load - 1e-9) {
      best.max_load = loads.max_load, best.min_remote = loads.remote_tasks;
    } else if (loads.max_load <= best.max_load + 1e-9) {
      best.min_remote = std::min(best.min_remote, loads.remote_tasks);
    }
    size_t i = 0;
    while (i < m && ++a[i] == in.servers) a[i++] = 0;
    if (i == m) return best;
  }
}

}  // namespace locsched
