#include "algorithms/sim/trace_shape.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace locsched {

void ConcentrateReplicas(TraceWorkload& w, uint32_t machines, double share) {
  const auto hot = static_cast<uint32_t>(
      std::clamp(std::ceil(share * machines), 1.0, static_cast<double>(machines)));
  std::vector<MachineId> moved;
  for (uint32_t t = 0; t < w.num_tasks(); ++t) {
    const uint32_t b = w.replica_begin[t], e = w.replica_begin[t + 1];
    const uint32_t n = e - b;
    const uint32_t pool = std::max(hot, std::min(n, machines));
    moved.clear();
    for (uint32_t k = b; k < e; ++k) {
      MachineId m = w.replicas[k] % pool;
      while (std::find(moved.begin(), moved.end(), m) != moved.end()) m = (m + 1) % pool;
      moved.push_back(m);
    }
    std::copy(moved.begin(), moved.end(), w.replicas.begin() + b);
  }
}

}  // namespace locsched
