// The trace mode's centralized list policies (synchpack: online SynchPack, tetris, jsq-mw):
// their names, and one run of each through algorithms/sim/list_trace_sim.h. Called by
// tools/sim/trace_mode.cc; one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/sim/list_trace_sim.h"

namespace locsched {

/// True for the names of the list policies: synchpack, tetris, jsq-mw.
bool IsListPolicy(std::string_view name);

/// Online SynchPack's re-solve timer (--resolve-first, --resolve-growth).
struct ListPolicySettings {
  double resolve_first = 10;  ///< first interval, seconds; 0: 10 x the mean gap between jobs
  double resolve_growth = 1.02;
};

/// What one run gives besides the common result.
struct ListRunStats {
  uint64_t lp_solves = 0, lp_failures = 0;
  double first_interval_s = 0;  ///< synchpack: the first re-solve interval used
};

/// Runs policy `name` on `w` with these weights; throws std::runtime_error if the policy
/// misbehaves (a bug), std::invalid_argument for bad settings.
TraceSimResult RunListPolicy(std::string_view name, const TraceWorkload& w,
                             const TraceClusterModel& cluster, uint64_t seed,
                             const std::vector<double>& weights, const ListPolicySettings& s,
                             ListRunStats* stats);

}  // namespace locsched
