// SolveHtaExact: the optimal max load of a small HTA instance by GLPK MIPs, one
// per plateau of w_rem (remote count capped at the plateau's end, remote cost at
// its value, L starting at HtaLowerBound), plus the fewest remote tasks any
// optimum uses (Theorem 5.4's w_rem^O is w_rem of that count). Called by
// tools/solve/hta_command.cc and the tests. GLPK stays inside hta_exact.cc. Not
// thread-safe (GLPK's terminal switch is global).
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/hta/hta_instance.h"
#include "base/status.h"

namespace locsched {

/// Largest tasks × servers the exact solver accepts (one binary per pair).
constexpr size_t kHtaExactMaxCells = 400;

/// An optimal assignment and the figures the tests compare with.
struct HtaExact {
  std::vector<int> assignment;  ///< an optimal assignment with min_remote remote tasks
  double max_load = 0;          ///< the optimum L_O
  int min_remote = 0;           ///< the fewest remote tasks of any optimal assignment
};

/// Solves valid `instance` exactly. ResourceExhausted if it has more than
/// kHtaExactMaxCells task-server pairs or GLPK cannot prove optimality within
/// `time_limit_ms` per MIP.
Status SolveHtaExact(const HtaInstance& instance, HtaExact* out, int time_limit_ms = 20000);

}  // namespace locsched
