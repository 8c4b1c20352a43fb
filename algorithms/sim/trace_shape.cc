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

std::string AddEmptyMachines(const ClusterShape& data, double share, ClusterShape* out) {
  if (!(share > 0 && share <= 10)) return "must be in (0, 10]";
  if (data.machines == 0) return "the cluster has no machine";
  const bool racked = data.racks > 1;
  if (racked && data.machines % data.racks != 0)
    return "with racks, the machines (" + std::to_string(data.machines) +
           ") must be a multiple of the racks (" + std::to_string(data.racks) +
           ") so that a new rack is the size of the others";
  // Whole new racks, or (without topology) machines; 1e-9 keeps 0.1 x 20 at 2, not 3.
  const double base = racked ? data.racks : data.machines;
  const double added = std::max(1.0, std::ceil(share * base - 1e-9));
  const double per = racked ? data.machines / data.racks : 1;
  if (data.machines + added * per > double{1 << 24})
    return "the grown cluster passes 2^24 machines";
  out->machines = data.machines + static_cast<uint32_t>(added * per);
  out->racks = racked ? data.racks + static_cast<uint32_t>(added) : data.racks;
  return "";
}

}  // namespace locsched
