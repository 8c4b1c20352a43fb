// RemotePlan: rebalancing for late binding, where queued tasks are bound to no queue. For
// one job's queued tasks it solves max-cover + bal-assign (Fischer, Su and Yin's Algorithm 2)
// over every usable machine, each loaded with what it runs and its share of the other
// queued tasks it holds; the tasks the assignment places off their holders are the ones
// that finish sooner remote, and get a remote permit (algorithms/core/remote_permits.h).
// Called by the trace simulator's and the daemon's rebalancers; pure, single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/hta/hta_instance.h"

namespace locsched {

/// What planning one job found.
struct RemotePlan {
  std::vector<TaskId> remote;  ///< queued tasks the assignment runs off their holders
  uint64_t tasks = 0;          ///< the job's queued tasks planned
  uint64_t local = 0;          ///< of those, placed on a holder
  double max_load = 0;         ///< the assignment's max load (w_loc units per slot)
  int tau = 0;                 ///< the max-cover capacity it came from
};

/// Plans job j's queued tasks on `sched`'s cluster. A usable machine's base load is its
/// running tasks plus, for its queued local tasks of other jobs, its share of them (their
/// count over the task's replica count), per slot, rounded up: the work late binding
/// may run there before j. costs: w_loc = 1/alpha, w_rem = {1/gamma}.
RemotePlan PlanRemoteRuns(const Scheduler& sched, JobId j, const HtaCosts& costs);

/// What one run of GrantRemotePermits did.
struct PermitRun {
  uint64_t jobs = 0;     ///< large jobs with queued tasks, planned
  uint64_t tasks = 0;    ///< their queued tasks
  uint64_t granted = 0;  ///< remote permits granted
};

/// Plans every runnable job of at least `min_tasks` tasks, in the order of ids, and
/// replaces the late-binding policy's remote permits with the tasks the plans run remote.
/// The policy must be late binding.
PermitRun GrantRemotePermits(Scheduler& sched, uint64_t min_tasks, const HtaCosts& costs);

}  // namespace locsched
