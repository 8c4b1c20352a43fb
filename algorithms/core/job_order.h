// JobOrder comparators: how the job-choosing policies (late binding, fair,
// delay) rank jobs: fewest running tasks, shortest remaining work (SRPT),
// Smith's rule, an LP's ranks or arrival (fifo). Keys are read live from the Cluster. Pure;
// single-threaded.
#pragma once

#include "algorithms/core/cluster.h"
#include "algorithms/core/job_heap.h"
#include "algorithms/core/job_ranks.h"
#include "algorithms/core/policy.h"

namespace locsched {

/// Tasks of job j not yet finished (queued, running or blocked): its remaining work.
inline uint32_t RemainingTasks(const Job& job) {
  return static_cast<uint32_t>(job.tasks.size()) - job.done;
}

/// What `order` reads of a job that can change while it waits (its weight and seq are
/// fixed): while this stays the same, so does the job's place in the order.
inline uint32_t JobOrderKey(JobOrder order, const Job& job) {
  if (order == JobOrder::kFifo) return 0;  // arrival order never changes
  return order == JobOrder::kFair ? job.running : RemainingTasks(job);
}

/// The "goes first" relation of `order` over `cluster`'s jobs (ties: the older job). `lp`
/// reads `ranks` (which must outlive it; none: as smith).
JobHeap::Less MakeJobLess(JobOrder order, const Cluster& cluster, const JobRanks* ranks = nullptr);

}  // namespace locsched
