#include "algorithms/sim/trace_shape.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/rng.h"

namespace locsched {

std::optional<WeightDraw> ParseWeightDraw(std::string_view name) {
  if (name == "one") return WeightDraw::kOne;
  if (name == "uniform") return WeightDraw::kUniform;
  if (name == "priority") return WeightDraw::kPriority;
  return std::nullopt;
}

void DrawWeights(TraceWorkload& w, WeightDraw draw, uint64_t seed) {
  Rng rng(seed ^ 0x7765696768747300ULL);  // its own stream: durations draw from Rng(seed)
  w.weights.assign(w.jobs.size(), 1);
  for (double& weight : w.weights) {
    if (draw == WeightDraw::kUniform) {
      weight = 1 + rng.Below(10);
    } else if (draw == WeightDraw::kPriority) {
      const double u = rng.Unit();
      weight = u < 0.4 ? 1 : u < 0.7 ? 2 : u < 0.9 ? 4 : 8;
    }
  }
}

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
