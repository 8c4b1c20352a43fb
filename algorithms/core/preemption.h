// Preemption for tenant queues: which running tasks to stop so that a leaf queue kept
// below its guarantee gets its slots back without waiting for other queues' tasks to end.
// A leaf is starved once it has been below its guarantee, with admitted tasks queued, for
// the timeout (QueueSharing::BelowSince) and for the guarantee grace (QueueSharing::Owed;
// before the grace a freed slot follows the job order and could go back where it came
// from). Its deficit is min(running + admitted pending, floor(guaranteed x usable slots))
// - running. Victims are running tasks of queues above their guarantee, the most recently
// started first (least work lost; ties: lower task id), never taking a queue or any
// ancestor below its own guarantee, and never more than the starved queues' deficits
// together, less the slots already free (a free slot goes to an owed queue first, or is
// one it declines).
//
// Pure: it reads the Scheduler and changes nothing; the caller stops each victim
// (Scheduler::Preempt) and on its machine. Called by TraceSim at each instant when
// preemption is on; single-threaded, on the thread that owns the Scheduler.
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

/// The leaves of qs starved at `now` for timeout_s: owed (QueueSharing::Owed), and below
/// their guarantee with admitted tasks queued since now - timeout_s or earlier; in tree
/// order.
std::vector<StarvedQueue> StarvedQueues(const QueueSharing& qs, double now, double timeout_s);

/// The tasks to preempt now in s (see the file comment), least work lost first; empty
/// without tenant queues or a starved queue.
std::vector<TaskId> PlanPreemption(const Scheduler& s, double timeout_s);

}  // namespace locsched
