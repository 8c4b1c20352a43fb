// BacklogObserver: the one interface through which the scheduling core reports
// to the code that drives it. The core owns and documents it; a driver (the
// daemon's Rebalancer) implements it and installs it with Scheduler::SetObserver.
// Called on the Scheduler's thread, from inside its methods; must be cheap.
#pragma once

#include "algorithms/core/cluster.h"

namespace locsched {

/// Told when a task enters or leaves the policy's queues, or a machine starts or
/// stops taking new work, so an observer can keep its own view of the backlog in
/// step with the core's. The core calls nothing else outside itself. An observer
/// must not call back into the Scheduler from these methods.
class BacklogObserver {
 public:
  virtual ~BacklogObserver() = default;
  /// Task t became queued (submitted, released after its maps, requeued). During
  /// SubmitJob the job's later tasks do not exist yet (job.tasks holds kNoId for them).
  virtual void OnQueued(TaskId t) = 0;
  /// Task t left the queues (started, by Scheduler::Settle or AssignTask, or cancelled).
  virtual void OnUnqueued(TaskId t) = 0;
  /// Machine m was added, or whether it takes new work (up, not draining) changed.
  virtual void OnMachineUsable(MachineId m, bool usable) = 0;
};

}  // namespace locsched
