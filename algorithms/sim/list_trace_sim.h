// ListTraceSim: the trace simulator's centralized mode. A recorded workload runs on the
// cluster model of trace_sim.h (the same Exp(1) work draws per seed, local/rack/remote
// slowdowns), but every decision is a ListPolicy's (algorithms/lp: online SynchPack,
// Tetris, JSQ+MaxWeight) taken at each arrival, completion or policy wake-up, with no
// heartbeats. Called by locsched-sim --trace and tests. Pure; single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/lp/list_scheduler.h"
#include "algorithms/lp/lp_instance.h"
#include "algorithms/sim/trace_sim.h"
#include "base/status.h"

namespace locsched {

/// What the policies see of a workload: machines of `slots_per_machine` units, jobs with
/// their weights (1 if `weights` is empty) released at their submit times, tasks of demand 1
/// taking local_mean_s on a replica and remote_slowdown times longer elsewhere (the means
/// of the cluster model, not the draws). Flat task t is the workload's task t.
LpInstance TraceListModel(const TraceWorkload& w, const TraceClusterModel& cluster,
                          const std::vector<double>& weights);

/// Runs the workload with `policy` deciding (built on TraceListModel's instance); `seed`
/// seeds the work draws as in SimulateTrace. Internal if the policy starts a task that is
/// not ready, not allowed or does not fit. heartbeats and the LP fields stay 0.
Status SimulateTraceList(const TraceWorkload& w, const TraceClusterModel& cluster, uint64_t seed,
                         ListPolicy& policy, TraceSimResult* result);

}  // namespace locsched
