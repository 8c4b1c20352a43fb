// TraceShape: reshapes a loaded workload for the trace simulator's scenarios: a skewed
// cluster whose data sits on a hot subset of the machines (job weights are JobWeights').
// Called by locsched-sim --trace (--hot-share) and tests. Pure and deterministic.
#pragma once

#include <cstdint>

#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// Moves every replica onto the first ceil(share * machines) machines (at least each
/// task's replica count where the cluster has that many): replica m goes to m modulo
/// that count, or the next free one past it, so a task keeps distinct replicas. share in (0, 1].
void ConcentrateReplicas(TraceWorkload& w, uint32_t machines, double share);

}  // namespace locsched
