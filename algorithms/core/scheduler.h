// Scheduler: the pure scheduling core that the daemon and the simulator both
// drive. It owns the Cluster and one Policy, keeps task and job state
// consistent (reduces wait for maps, counts, retries), and answers "what does
// this free slot run?". No I/O, clocks or logging; single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithms/core/backlog_observer.h"
#include "algorithms/core/cluster.h"
#include "algorithms/core/policy.h"
#include "algorithms/core/queue_sharing.h"
#include "algorithms/core/queue_tree.h"

namespace locsched {

/// A task as submitted: its replica machines and optional attributes.
struct TaskSpec {
  std::span<const MachineId> replicas;  ///< distinct, existing machine ids (not owned)
  TaskKind kind = TaskKind::kMap;
  double size = 0;         ///< input bytes, 0 if unknown
  double duration = 0;     ///< expected duration, 0 if unknown
  uint32_t queue = kNoId;  ///< the policy queue to enter (snapshot load); kNoId = route it
  uint32_t tag = 0;        ///< kept in Task::tag for the submitter (the simulator: run lengths)
};

/// Where a job goes among the tenant queues, and whose it is (both resolved by the
/// caller: QueueTree::Place, Scheduler::InternUser).
struct JobTenancy {
  uint32_t queue = kNoId;  ///< its leaf in the tree; kNoId (or not a leaf): the default leaf
  uint32_t user = kNoId;   ///< its user's interned id; kNoId: none
};

/// A task started on a machine slot.
struct Assignment {
  TaskId task = kNoId;
  JobId job = kNoId;
  MachineId machine = kNoId;
  bool local = false;  ///< the machine holds a replica of its input
};

/// A free slot's task, chosen and counted as running but not yet written into the
/// task's own record (Scheduler::ClaimSlot, then Scheduler::Settle).
struct Claim {
  TaskId task = kNoId;  ///< kNoId: the slot gets nothing
  JobId job = kNoId;
  MachineId machine = kNoId;
};

/// What a task completion changed.
struct Completion {
  JobId job = kNoId;
  bool job_done = false;  ///< the job finished and its ids were freed
};

/// The scheduling core: cluster state plus one policy.
class Scheduler {
 public:
  /// A core running the policy described by params. With a queue tree, the policy is
  /// QueueSharing over it (one policy of params per leaf); without, the policy alone.
  explicit Scheduler(const PolicyParams& params, std::optional<QueueTree> tree = std::nullopt);
  // The policy holds a reference to cluster_, so the core stays where it was built.
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Adds a machine (up, idle) and returns its id.
  MachineId AddMachine(Machine machine);
  /// Submits a job; maps become runnable, reduces wait for all maps. Returns its id,
  /// or kNoId for a job without tasks (it is finished at once and nothing is kept).
  /// tenancy places it in a leaf queue and names its user (ignored without a tree but kept
  /// in the job's record).
  JobId SubmitJob(double weight, std::span<const TaskSpec> tasks, JobTenancy tenancy = {});
  /// The id of user `name` (interned on first use; ids stay for the core's life); kNoId
  /// for "".
  uint32_t InternUser(std::string_view name);
  /// The name of user id `user` ("" for kNoId or an unknown id).
  std::string_view UserName(uint32_t user) const;
  /// Fills one free slot of machine m; nullopt if m is full, down, draining or nothing fits.
  std::optional<Assignment> Assign(MachineId m);
  /// Assign's first half: the policy's choice for one free slot of m, counted in the job,
  /// the machine and the totals, and marked running. Task kNoId if Assign would give
  /// nullopt. A caller filling many slots claims several, then settles them in order, so
  /// the chosen tasks' records load in parallel. Until every claim is settled it may
  /// call nothing on the core but ClaimSlot.
  Claim ClaimSlot(MachineId m);
  /// Assign's second half: writes where and how the claimed task runs (locality,
  /// attempts) and tells the observer. Settling each claim at once is Assign.
  Assignment Settle(const Claim& c);
  /// Starts queued task t on machine m, bypassing the policy's choice (journal
  /// replay re-applies decisions made before a restart); the policy notes the start as
  /// its own pick (Policy::Assigned). m must have a free slot.
  Assignment AssignTask(TaskId t, MachineId m);
  /// A running task finished successfully; it keeps its machine and locality, so
  /// views can say where it ran.
  Completion Finish(TaskId t);
  /// A running task failed or was lost: it becomes runnable again.
  void Requeue(TaskId t);
  /// Stops running task t to free its slot for a queue owed its guarantee (preemption,
  /// PlanPreemption): it is requeued, and the stopped start is taken off its attempts, so
  /// it uses no retry. Its machine's next free slot is kept for the owed queues
  /// (QueueSharing::KeepSlot). The caller stops the task on its machine.
  void Preempt(TaskId t);
  /// Keeps a free slot of m for the queues owed their guarantee (PreemptionPlan::keep,
  /// QueueSharing::KeepSlot): its next assignment runs their task, off its holders if
  /// need be. No-op without tenant queues.
  void KeepSlot(MachineId m) {
    if (sharing_ != nullptr) sharing_->KeepSlot(m);
  }
  /// Removes a job: its queued tasks leave the queues, running ones are forgotten.
  void CancelJob(JobId j);
  /// Marks m down and requeues the tasks running on it; returns them. A lost start is
  /// not the task's fault: it is taken off the task's attempts, so it uses no retry.
  std::vector<TaskId> MachineDown(MachineId m);
  /// Marks m up again (it takes work on its next free slot).
  void MachineUp(MachineId m);
  /// Changes a machine's slot count and rack (a machine re-registering).
  void UpdateMachine(MachineId m, uint32_t slots, uint32_t rack);
  /// Sets or clears draining: a draining machine finishes its tasks and takes no new ones.
  void SetDraining(MachineId m, bool draining);
  /// Moves queued task t into `queue` (loading a snapshot restores the policy's routing).
  void Reroute(TaskId t, uint32_t queue) {
    policy_->Withdraw(t);
    policy_->EnqueueTo(t, queue);
  }
  /// Restores how often task t was started (loading a snapshot).
  void SetAttempts(TaskId t, uint32_t attempts) { cluster_.task(t).attempts = attempts; }
  /// Restores when running task t started (loading a snapshot): preemption's victims are the
  /// latest started.
  void SetStarted(TaskId t, double started_s) { started_s_[t] = started_s; }
  /// Forgets where finished task t ran (loading a snapshot that did not record it).
  void ForgetPlacement(TaskId t) {
    cluster_.task(t).machine = kNoId;
    cluster_.task(t).ran_local = false;
  }
  /// Installs who hears of backlog changes (nullptr: nobody); it must outlive the core.
  void SetObserver(BacklogObserver* observer) { observer_ = observer; }
  /// Sets the `priority` intra-queue policy's job ranks (index = job id; a rank holds for
  /// the job whose arrival seq is seqs[id]; other jobs are placed among the ranked ones by
  /// Smith's rule); false if the policy has no rank order (Policy::SetPriorityOrder).
  bool SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs);
  /// Updates the service rates the policy weighs queues by.
  void SetRates(double alpha, double gamma) { policy_->SetRates(alpha, gamma); }
  /// Advances the core's notion of time (seconds, monotone; see Policy::SetNow).
  void SetNow(double now_s) {
    now_ = now_s;
    policy_->SetNow(now_s);
  }
  /// The time last passed to SetNow (0 before the first call).
  double now() const { return now_; }

  /// The cluster state (read-only).
  const Cluster& cluster() const { return cluster_; }
  /// The tenant queues' policy; nullptr when tenancy is off.
  QueueSharing* sharing() { return sharing_; }
  /// The tenant queues' policy, read-only; nullptr when tenancy is off.
  const QueueSharing* sharing() const { return sharing_; }
  /// The policy (for inspection and policy-specific controls).
  Policy& policy() { return *policy_; }
  /// The policy (read-only).
  const Policy& policy() const { return *policy_; }
  /// The parameters the policy was built with.
  const PolicyParams& params() const { return params_; }
  /// Tasks runnable and waiting.
  uint64_t queued() const { return queued_; }
  /// Tasks running.
  uint64_t running() const { return running_; }
  /// Reduces waiting for their job's maps.
  uint64_t blocked() const { return blocked_; }
  /// Tasks preempted so far (Preempt).
  uint64_t preempted() const { return preempted_; }
  /// When running task t started (now() at its Settle); meaningless for other tasks.
  double started_s(TaskId t) const { return started_s_[t]; }

 private:
  // Queues a task that became runnable, without telling the policy its job changed
  // (SubmitJob tells it once for the whole job).
  void Enqueue(TaskId t, uint32_t queue);
  // Enqueue, then tell the policy (a single task: a requeue).
  void MakeRunnable(TaskId t);
  Claim Begin(TaskId t, JobId j, MachineId m);
  void ReleaseReduces(Job& job);
  void StopRunning(Task& task);

  PolicyParams params_;
  Cluster cluster_;
  std::unique_ptr<Policy> policy_;
  QueueSharing* sharing_ = nullptr;  // policy_ when it is QueueSharing
  std::vector<std::string> user_names_;
  std::unordered_map<std::string, uint32_t> user_ids_;
  BacklogObserver* observer_ = nullptr;
  uint64_t queued_ = 0;
  uint64_t running_ = 0;
  uint64_t blocked_ = 0;
  uint64_t preempted_ = 0;
  std::vector<double> started_s_;  // by task id: now_ at its last Settle
  double now_ = 0;
  uint32_t unsettled_ = 0;  // claims not yet settled (checked by asserts)
};

}  // namespace locsched
