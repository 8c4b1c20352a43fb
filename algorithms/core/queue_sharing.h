// QueueSharing: the Policy that shares the cluster among a QueueTree's leaf
// queues. Each leaf holds one inner policy (the configured one: late binding,
// delay, JSQ+MaxWeight, ...) over its own jobs, in the leaf's job order. A
// free slot walks the tree from root, level by level, skipping queues at their
// maximum (Serve). With capacity-scheduler or fair-scheduler (the models of YARN's
// two schedulers) each queue simply takes its turn by the model's key (ModelTurns:
// used / guaranteed, or usage / fair share), and its leaf policy (YarnPolicy)
// decides by its missed opportunities. Otherwise, locsched's order:
//  1. Owed queues first: a queue that has been below its guarantee, with work
//     queued, for the guarantee grace (one mean local task time, 1/alpha) has
//     first claim, lowest used / guaranteed first (CapacityScheduler's order).
//  2. Then the others share the slot by one job order, as without queues: the
//     job first in the cluster's order (scheduler.job_order) among their
//     leaves' jobs with a task local to the slot (Policy::FirstLocalJob) runs.
//  3. Then each other queue in the order of its first job, by its inner
//     policy's rule for a run off the holders.
// So a guarantee is met within the grace and one turnover of the running
// tasks, a queue's inner policy still decides whether it runs a task off its
// holders, and a slot one queue declines passes to the next, so no slot idles
// while some queue would run a task there.
//
// Jobs a leaf's running-job limit does not admit yet, and jobs of a user at the
// leaf's per-user limit, are held outside the inner policy until they may run, and
// admitted in arrival order when they may. The per-user limit gates admission: a
// user whose admitted jobs in the leaf already run or queue floor(user_limit x the
// leaf's maximum in slots) tasks has its further jobs held; a job once admitted runs
// to its end (preemption restores guarantees, not user limits), so one large job can
// take its user past the limit. Jobs without a user are not limited per user.
//
// Owned by the Scheduler (Scheduler::Scheduler with a tree); single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/core/policy.h"
#include "algorithms/core/queue_tree.h"

namespace locsched {

/// A queue's live figures (a parent's add up its subtree).
struct QueueUsage {
  uint32_t running_tasks = 0;  ///< tasks running now
  uint32_t pending_tasks = 0;  ///< runnable tasks waiting, held ones included
  uint32_t held_tasks = 0;     ///< of pending_tasks, those of held jobs
  uint32_t running_jobs = 0;   ///< jobs admitted (queued or running tasks)
  uint32_t held_jobs = 0;      ///< jobs waiting for the running-job or user limit
  uint32_t users = 0;          ///< distinct users with live jobs
  uint32_t slots = 0;          ///< the cluster's usable slots now (the shares' base)
  /// Share of the cluster in use: running_tasks / slots (0 without slots).
  double share() const { return slots ? double(running_tasks) / slots : 0; }
};

/// The Policy over a queue tree (see the file comment).
class QueueSharing : public Policy {
 public:
  /// One inner policy per leaf of tree, built from params with the leaf's job order.
  QueueSharing(const PolicyParams& params, Cluster& cluster, QueueTree tree);
  ~QueueSharing() override;

  /// Swaps in a new tree (reload): leaves are matched by name and keep their jobs. Refused,
  /// with the old tree kept, if a leaf that still holds jobs is missing or no longer a leaf
  /// ("queue.etl: removed while it holds 3 jobs"). keep_orphans: such a leaf is kept
  /// instead, as a stopped child of root with no guarantee, until its jobs finish (a
  /// restart whose config dropped a queue the snapshot still uses); *kept names them.
  Status Reconfigure(QueueTree tree, bool keep_orphans, std::vector<std::string>* kept);

  /// The tree now (kept orphans included).
  const QueueTree& tree() const { return tree_; }
  /// Queue q's live figures.
  QueueUsage Usage(uint32_t q) const;
  /// Queue q's maximum in slots now: floor(maximum x usable slots), at least 1 when its
  /// maximum is above 0. No start takes q above it.
  uint32_t MaxSlots(uint32_t q) const;
  /// Since when queue q has run fewer tasks than its guaranteed slots with admitted tasks
  /// queued (the time SetNow gave then), or kNotBelow. The guarantee grace and
  /// preemption's timeout (PlanPreemption) both count from it.
  double BelowSince(uint32_t q) const;
  /// BelowSince's "not below its guarantee".
  static constexpr double kNotBelow = -1;
  /// True once queue q has been below its guarantee for the guarantee grace (one mean local
  /// task time, 1/alpha): it has first claim on the slots that free.
  bool Owed(uint32_t q) const;
  /// True while job j waits for its leaf's running-job or per-user limit.
  bool Held(JobId j) const;
  /// fair-scheduler's instantaneous fair share of queue q, in slots: its parent's, divided
  /// among the parent's active children (running or queued admitted tasks) by weight (the
  /// guarantee); root's is the usable slots, an inactive queue's 0.
  double FairShare(uint32_t q) const;
  /// A machine's slot count changed (Scheduler::UpdateMachine): the shares' base moves.
  void OnSlotsChanged();
  /// Keeps machine m's next free slot for the owed queues (Scheduler::Preempt freed it for
  /// them): the next PickFor(m) walks the owed queues first, in their turn, and the first
  /// with work runs a task there even off its holders (Policy::PickAnyFor), so the slot
  /// does not go back to the queue it was taken from.
  void KeepSlot(MachineId m);
  /// Machine m's slots kept by KeepSlot that no PickFor(m) has used yet.
  uint32_t Kept(MachineId m) const;

  // Policy.
  void AddMachine(MachineId m) override;
  void Enqueue(TaskId t) override;
  void EnqueueTo(TaskId t, uint32_t queue) override;
  void Withdraw(TaskId t) override;
  void Assigned(TaskId t, MachineId m) override;
  Pick PickFor(MachineId m) override;
  void OnJobChanged(JobId j) override;
  void OnMachineUnavailable(MachineId m) override;
  void OnMachineAvailable(MachineId m) override;
  void SetRates(double alpha, double gamma) override;
  void SetRackRate(double beta) override;
  void SetNow(double now_s) override;
  bool SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) override;
  std::vector<uint64_t> RandomState() const override;
  void SetRandomState(std::span<const uint64_t> state) override;
  QueueStats Stats() const override;
  uint64_t LocalQueueLength(MachineId m) const override;
  WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const override;
  uint32_t JobsAhead(JobId j, uint32_t cap) const override;

 private:
  struct Impl;
  void AddCounts(uint32_t q, int64_t running, int64_t in, int64_t out);
  void AddJobs(uint32_t q, int64_t admitted, int64_t held, int64_t users);
  bool UserBelowLimit(uint32_t q, uint32_t user) const;
  bool UnderJobLimit(uint32_t q) const;
  void Track(JobId j);
  void Admit(JobId j);
  void TryAdmit(uint32_t q);
  void Retire(JobId j);
  bool In(TaskId t) const;
  void SyncHead(JobId j);
  bool Below(uint32_t q) const;
  void MarkBelow(uint32_t q);
  bool Eligible(uint32_t q) const;
  bool Before(JobId a, JobId b) const;
  JobId Head(uint32_t q) const;
  std::vector<uint32_t> Turns(uint32_t q) const;
  std::vector<uint32_t> ModelTurns(uint32_t q) const;
  bool Active(uint32_t q) const;
  void FirstLocal(uint32_t q, MachineId m, JobId* best, uint32_t* leaf);
  Pick Descend(uint32_t q, MachineId m);
  Pick Serve(uint32_t q, MachineId m);
  Pick ServeOwed(uint32_t q, MachineId m);
  uint32_t AtMaximum(uint32_t leaf) const;
  bool OthersFirst(uint32_t leaf) const;
  uint32_t LiveJobs(uint32_t q) const;
  Status KeepOrphans(QueueTree* tree, std::vector<std::string>* kept) const;
  void MoveLeaves(QueueTree& tree, const std::vector<uint32_t>& to);
  void Recount();

  std::unique_ptr<Impl> impl_;
  QueueTree tree_;
};

}  // namespace locsched
