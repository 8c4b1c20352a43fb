// PreemptiveList: event-driven preemptive list scheduling of an LpInstance. Work items
// (a share of a task on one machine) are scanned in key order at every event; an item
// runs if its task is ready, not already running elsewhere, and fits the machine's free
// capacity. Used by SynchPack-1, its single-machine variant and PSRS; one run per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// A share of a task to run on one machine.
struct WorkItem {
  size_t task;       ///< flat index (FlattenTasks order)
  uint32_t machine;  ///< where this share runs (usable by the task)
  double share;      ///< in (0, 1]: runs share x the task's duration on `machine`
  double key;        ///< lower keys are served first (ties: input order)
};

/// Runs the items preemptively: at each release or item completion every running item
/// stops and the list is scanned again. The shares of each task must add up to 1.
/// Returns one entry per uninterrupted piece; Internal if some item can never run.
Status RunPreemptiveList(const LpInstance& instance, std::vector<WorkItem> items,
                         Schedule* schedule);

}  // namespace locsched
