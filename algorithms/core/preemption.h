// Preemption for tenant queues: what to do so that a leaf queue kept below its guarantee
// gets its slots back without waiting for other queues' tasks to end. A leaf is starved
// once it has been below its guarantee, with admitted tasks queued, for the timeout
// (QueueSharing::BelowSince) and for the guarantee grace (QueueSharing::Owed; before the
// grace a freed slot follows the job order and could go back where it came from). Its
// deficit is min(running + admitted pending, its guarantee in whole slots) - running, where
// a guarantee in whole slots is floor(guaranteed x usable slots); the leaves' add up to at
// most the cluster, so the deficits can always be met.
//
// A round first keeps the free slots for the starved queues (one a starved queue would
// decline for locality now runs its task off the holders: QueueSharing::KeepSlot), then
// stops running tasks for what free slots do not cover. A queue gets the free slots at the
// timeout, and victims only once it has been starved kill_wait_s longer: the slots that
// free meanwhile are kept for it as they free (YARN's max_wait_before_kill plays the same
// part), so a deficit that the turnover covers costs no work. Victims are running tasks
// of queues above their guarantee, the most recently started first (least work lost;
// ties: lower task id), never taking a queue or any ancestor below its own guarantee in
// whole slots, and never more than the deficits of the queues starved that long, less
// the free slots.
//
// Pure: it reads the Scheduler and changes nothing; the caller keeps each slot
// (Scheduler::KeepSlot) and stops each victim (Scheduler::Preempt) and on its machine.
// Called by TraceSim at each instant when preemption is on, and by the daemon's Engine on
// a heartbeat; single-threaded, on the thread that owns the Scheduler.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"

namespace locsched {

class QueueSharing;
class Scheduler;

/// A starved leaf queue and how many slots it lacks.
struct StarvedQueue {
  uint32_t queue = 0;
  uint32_t deficit = 0;  ///< min(demand, guaranteed slots) - running, > 0
};

/// One round of preemption.
struct PreemptionPlan {
  /// Free slots to keep for the starved queues, one entry a slot (a machine with two
  /// appears twice); slots kept earlier and still free are not repeated.
  std::vector<MachineId> keep;
  /// Running tasks to stop, least work lost first.
  std::vector<TaskId> victims;
  bool empty() const { return keep.empty() && victims.empty(); }
};

/// The leaves of qs starved at `now` for timeout_s: owed (QueueSharing::Owed), and below
/// their guarantee with admitted tasks queued since now - timeout_s or earlier; in tree
/// order.
std::vector<StarvedQueue> StarvedQueues(const QueueSharing& qs, double now, double timeout_s);

/// The round to run now in s (see the file comment): free slots kept for queues starved
/// timeout_s, victims for those starved timeout_s + kill_wait_s (0: at the timeout too).
/// Empty without tenant queues or a starved queue.
PreemptionPlan PlanPreemption(const Scheduler& s, double timeout_s, double kill_wait_s = 0);

}  // namespace locsched
