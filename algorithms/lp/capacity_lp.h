// CapacityLp: the capacity region of Wang et al.'s Theorem 1 (ALGORITHMS.md §1) as
// an LP: the largest rho such that arrival rates rho * lambda_L per locality type L
// can be split over machines with sum_{L containing m} lambda_{L,m}/alpha + r_m/gamma
// <= slots_m, remote work aggregated as r_m. The load is 1/rho. Called by the
// daemon's headroom report; pure, each call owns its GLPK problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"

namespace locsched {

/// One locality type: tasks whose input is on `machines`, arriving at `rate` per second.
struct ArrivalType {
  std::vector<uint32_t> machines;  ///< the local set L (machine indices); empty = remote only
  double rate = 0;                 ///< lambda_L, tasks per second, >= 0
};

/// The machines and the arrival rates.
struct CapacityInstance {
  std::vector<double> slots;       ///< per machine: slots that take work (0 = none)
  double alpha = 0.8;              ///< local tasks per second per slot
  double gamma = 0.2;              ///< remote tasks per second per slot, <= alpha
  std::vector<ArrivalType> types;  ///< the arrival rates per type
};

/// The LP optimum.
struct CapacityResult {
  double rho = 0;      ///< the largest supportable multiple of lambda (inf without arrivals)
  double load = 0;     ///< 1 / rho: the arrival rates as a fraction of capacity
  size_t rows = 0;     ///< LP rows
  size_t columns = 0;  ///< LP columns
};

/// Checks an instance; InvalidArgument names a bad type, rate, slot count or gamma.
Status ValidateCapacityInstance(const CapacityInstance& in);
/// Solves the capacity-region LP with GLPK; InvalidArgument names a bad type or rate.
Status SolveCapacityLp(const CapacityInstance& in, CapacityResult* result);

}  // namespace locsched
