// ListScheduler: event-driven non-preemptive list scheduling of an LpInstance.
// At each release, completion or policy wake-up, every machine asks its policy
// for ready tasks that fit its free capacity until none does (greedy packing).
// Used by the packing baselines and MRS's merge step; one run per call, single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// The decisions of one list-scheduling rule; tasks are flat indices (FlattenTasks order).
class ListPolicy {
 public:
  virtual ~ListPolicy() = default;
  /// Task `t` became ready at `now` (its job was released; a reduce: its maps also ended).
  virtual void OnReady(size_t t, double now) = 0;
  /// A ready task allowed on `machine` with demand <= `free` to start now, or -1; it is then
  /// started.
  virtual long Pick(uint32_t machine, double now, double free) = 0;
  /// The next instant after `now` at which Pick could answer differently without an event.
  virtual double NextWake(double now) {
    (void)now;
    return std::numeric_limits<double>::infinity();
  }
};

/// Runs `policy` to completion; Internal if it leaves tasks that never start.
Status RunListScheduler(const LpInstance& instance, ListPolicy& policy, Schedule* schedule);

}  // namespace locsched
