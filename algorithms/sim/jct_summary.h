// SummarizeJct: the job completion time figures both trace simulators report (mean,
// nearest-rank p95, Σ w_j C_j, and the same by job size) from a run's per-job JCTs.
// Called by SimulateTrace and SimulateTraceList at the end of a run; pure,
// single-threaded.
#pragma once

#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// Fills r's mean_jct_s, p95_jct_s, weighted_jct_s and buckets from r->jct_s (-1 for a
/// job not done), with w's task counts and weights (none: every weight 1).
void SummarizeJct(const TraceWorkload& w, TraceSimResult* r);

}  // namespace locsched
