// YarnPolicy: the leaf-queue half of the models of YARN's two schedulers
// (capacity-scheduler, fair-scheduler); QueueSharing holds one per leaf and
// orders the queues by the model's rule, and without a tree it is the whole
// policy (a single root leaf). Jobs go in the leaf's job order (fifo for the
// CapacityScheduler, fair for the FairScheduler, or the leaf's `order`); a free
// slot walks them, and each job it reaches counts one scheduling opportunity,
// as YARN counts them, then runs a task local to the slot, else one in the
// slot's rack if its missed opportunities allow, else any task if they allow
// that; a job that may not passes the slot on to the next.
//
// What the counts allow:
//  * capacity-scheduler: rack-local once missed > min(machines,
//    node_locality_delay); off-rack once missed > min(machines,
//    node_locality_delay + rack_locality_delay), or with rack_locality_delay -1
//    once missed > min(machines, queued x min(1, locations / machines)) (YARN's
//    derived delay; so a job of few tasks may go off-rack before rack-local).
//    A node- or rack-local start resets the count; an off-rack one does not.
//  * fair-scheduler: a level per job, node first; at node, missed > threshold_node
//    x machines moves it to rack, at rack, missed > threshold_rack x machines to
//    off-rack, each move resetting the count; a start resets the count and brings
//    the level back to the start's locality if that is closer. A negative
//    threshold turns the delays off.
// In both, a job whose queued tasks name no location (reduces; YARN's ANY-only
// asks) runs anywhere at once.
//
// Owned by the Scheduler or by QueueSharing (one per leaf); single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/job_heap.h"
#include "algorithms/core/job_index.h"
#include "algorithms/core/policy.h"
#include "algorithms/core/rack_index.h"

namespace locsched {

/// The locality levels a job may run at now, as its missed opportunities allow.
struct YarnAllowance {
  bool rack = false;  ///< a task with a replica in the slot's rack
  bool any = false;   ///< any task
};

/// The leaf policy of capacity-scheduler and fair-scheduler (see the file comment).
class YarnPolicy final : public Policy {
 public:
  /// params.kind must be kCapacityScheduler or kFairScheduler.
  YarnPolicy(const PolicyParams& params, Cluster& cluster);

  /// Missed opportunities of job j since its count was last reset (0 if not queued).
  uint32_t Missed(JobId j) const;
  /// What job j's missed opportunities allow now.
  YarnAllowance Allowed(JobId j) const;

  void AddMachine(MachineId) override {}
  void Enqueue(TaskId t) override;
  void Withdraw(TaskId t) override;
  /// Like a pick of t on m: the start resets its job's count as a pick would.
  void Assigned(TaskId t, MachineId m) override;
  Pick PickFor(MachineId m) override;
  /// PickFor, else the first job's task off its holders, whatever its count (a slot
  /// preemption freed for this queue, QueueSharing::KeepSlot).
  Pick PickAnyFor(MachineId m) override;
  void OnJobChanged(JobId j) override;
  void OnMachineUnavailable(MachineId) override {}
  void OnMachineAvailable(MachineId) override {}
  void SetRates(double, double) override {}
  QueueStats Stats() const override { return QueueStats{queued_, 0, 0}; }
  uint64_t LocalQueueLength(MachineId) const override { return 0; }
  /// Why queued task t waits, by PickFor's rules: a free holder runs it in its job's turn;
  /// other free slots only once its job's count allows.
  WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const override;
  uint32_t JobsAhead(JobId j, uint32_t cap) const override;

 private:
  enum class Level : uint8_t { kNode, kRack, kAny };
  struct JobLocality {
    uint32_t missed = 0;
    uint32_t locations = 0;      // distinct machines and racks of its queued tasks, + 1 (ANY)
    Level level = Level::kNode;  // fair-scheduler's allowed level
  };
  Level LevelOf(TaskId t, MachineId m) const;
  uint32_t CountLocations(JobId j) const;
  void Relax(JobId j);
  void Started(JobId j, Level at);
  TaskId Find(JobId j, MachineId m);
  Pick Take(TaskId t, JobId j, MachineId m);

  Cluster& cluster_;
  PolicyKind kind_;
  uint32_t node_delay_;
  int32_t rack_delay_;
  double threshold_node_;
  double threshold_rack_;
  JobIndex index_;
  RackIndex racks_;
  JobHeap order_;
  std::vector<JobLocality> jobs_;  // by job id; valid while the job is in order_
  uint64_t queued_ = 0;
};

}  // namespace locsched
