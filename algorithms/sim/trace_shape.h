// TraceShape: reshapes a loaded workload for the trace simulator's scenarios: job weights
// (for weighted completion time) and a skewed cluster whose data sits on a hot subset of
// the machines. Called by locsched-sim --trace (--weights, --hot-share) and tests. Pure;
// deterministic per seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// How jobs draw their weights.
enum class WeightDraw : uint8_t {
  kOne,       ///< every job weighs 1
  kUniform,   ///< an integer uniform in 1..10
  kPriority,  ///< priority classes: weight 1, 2, 4 or 8 with probability 0.4, 0.3, 0.2, 0.1
};

/// Parses "one", "uniform", "priority"; nullopt if unknown.
std::optional<WeightDraw> ParseWeightDraw(std::string_view name);
/// Sets w.weights, one per job in job order, from a stream seeded by `seed` alone.
void DrawWeights(TraceWorkload& w, WeightDraw draw, uint64_t seed);
/// Moves every replica onto the first ceil(share * machines) machines (at least each
/// task's replica count where the cluster has that many): replica m goes to m modulo
/// that count, or the next free one past it, so a task keeps distinct replicas. share in (0, 1].
void ConcentrateReplicas(TraceWorkload& w, uint32_t machines, double share);

}  // namespace locsched
