// CapacityFlow: the capacity-region LP of capacity_lp.h solved as a parametric
// max-flow, exact and fast enough for 10,000 machines (the GLPK LP takes minutes
// there). Called by the daemon's LpPlanner on its worker thread; the GLPK LP stays
// as the tests' reference. Pure; each call owns its graph. Compiled as C++17 (LEMON).
#pragma once

#include "algorithms/lp/capacity_lp.h"
#include "base/status.h"

namespace locsched {

/// Same answer as SolveCapacityLp, by Newton steps over LEMON Preflow min cuts;
/// rows and columns report the flow network's nodes and arcs.
Status SolveCapacityFlow(const CapacityInstance& in, CapacityResult* result);

}  // namespace locsched
