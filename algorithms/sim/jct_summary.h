// SummarizeJct: the job completion time figures both trace simulators report (mean,
// nearest-rank p95, Σ w_j C_j, the same by job size, and their lower bounds) from a
// run's per-job JCTs and drawn work.
// Called by SimulateTrace and SimulateTraceList at the end of a run; pure,
// single-threaded.
#pragma once

#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// Fills r's mean_jct_s, p95_jct_s, weighted_jct_s and buckets from r->jct_s (-1 for a
/// job not done), with w's task counts and weights (none: every weight 1); and the
/// lower_bound_ fields from each task's drawn work (DrawTraceTasks) on cluster c.
void SummarizeJct(const TraceWorkload& w, const std::vector<double>& work,
                  const TraceClusterModel& c, TraceSimResult* r);

}  // namespace locsched
