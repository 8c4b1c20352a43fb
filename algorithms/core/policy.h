// Policy: the interface every scheduling policy implements (JSQ+MaxWeight and
// the baselines), plus the names and parameters that select one. The Scheduler
// owns one Policy and calls it on every arrival and free slot. Single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/core/wait_reason.h"

namespace locsched {

/// The scheduling policies.
enum class PolicyKind {
  kJsqMaxWeight,    ///< JSQ routing + MaxWeight serving over local queues and one remote queue
  kFair,            ///< naive fair sharing: job with fewest running tasks, local task if any
  kFifo,            ///< Hadoop's default: oldest job first, local task if any
  kDelay,           ///< delay scheduling: fair order, a job waits up to delay_wait for locality
  kLateBinding,     ///< late binding: any replica holder takes a task; remote only when it pays
  kBalancedPandas,  ///< Balanced-PANDAS: per-machine local/rack/remote queues, weighted workload
  kQuincy,          ///< Quincy: a min-cost flow over tasks, machines, racks and waiting costs
  /// YARN CapacityScheduler's model: queues by used / guaranteed, FIFO inside a leaf,
  /// node-locality-delay and rack-locality-additional-delay in missed opportunities
  kCapacityScheduler,
  /// YARN FairScheduler's model: queues by usage / fair share, fair inside a leaf,
  /// locality.threshold.node and .rack as fractions of the cluster's nodes
  kFairScheduler,
};

/// How a policy that chooses among jobs orders them (late binding, fair, delay).
enum class JobOrder {
  kFair,   ///< fewest running tasks first (ties: oldest)
  kSrpt,   ///< fewest tasks not yet done first (shortest remaining work; ties: oldest)
  kSmith,  ///< largest weight / remaining tasks first (Smith's rule; ties: oldest)
  /// The last LP order (late binding: Policy::SetPriorityOrder); jobs it did not rank are
  /// placed among the ranked by Smith's rule; ties, and every job before the first
  /// order, as smith.
  kLp,
  kFifo,  ///< arrival order (the oldest job first): a tenant queue's `order = "fifo"`
};

/// How a machine picks a job inside the queue it chose (JSQ+MaxWeight only).
enum class IntraQueue {
  kFair,      ///< the job with the fewest running tasks (ties: oldest)
  kFifo,      ///< the oldest job
  kPriority,  ///< the job with the smallest priority rank (set by an LP re-solve; ties: oldest)
};

struct PolicyParams {
  PolicyKind kind = PolicyKind::kLateBinding;
  IntraQueue intra = IntraQueue::kFair;
  double alpha = 0.8;  ///< local service rate
  double gamma = 0.2;  ///< remote service rate, < alpha
  /// Delay scheduling's wait W, in the driver's time unit (SetNow: seconds in the daemon and
  /// the trace simulator, slots in the slotted one): a job without a local task for a free
  /// slot may run a task there once W has passed since it last ran a local task or became
  /// runnable (Zaharia et al.'s rule). 0: it runs remotely at once.
  double delay_wait = 20;
  /// JSQ: a task joins R only if |R| + remote_bias is shorter than each usable local queue;
  /// ties then go local, to the machine with the most free slots. 0: the paper's rule
  /// (shortest of all, ties uniformly at random).
  uint32_t remote_bias = 0;
  /// `priority`: a task JSQ sends to R joins a local queue instead if that queue is at most
  /// |R| + priority_slack long and at most |R| + remote_bias of its tasks would be served
  /// before this one (higher ranked jobs, earlier tasks of its job). 0: off.
  /// 5 by default: docs/benchmarks.md §14 measured it at 60-95% load.
  uint32_t priority_slack = 5;
  uint64_t seed = 1;  ///< seeds JSQ's random tie-breaks
  /// Rack-local service rate, between gamma and alpha (Balanced-PANDAS and late binding;
  /// used only when the machines span more than one rack).
  double beta = 0.4;
  /// Job order of late binding, fair and delay scheduling.
  JobOrder job_order = JobOrder::kFair;
  /// Late binding: a job with queued tasks that started none for this long (in the
  /// driver's clock, see SetNow) is served before any other; 0 turns the bound off.
  double job_aging = 0;
  /// Late binding: the coefficient of variation of task times (1: exponential, 0: fixed),
  /// which its off-holder rule weighs a job's last task by (task_time.h).
  double duration_cv = 1;
  /// Quincy: each job's unscheduled node holds back at most its queued tasks less what
  /// its fair share still asks for (Quincy's fairness without preemption). Off by default:
  /// measured on SWIM hours it ran most tasks off their holders (docs/algorithms.md).
  bool quincy_fair = false;
  /// capacity-scheduler: YARN's node-locality-delay, missed scheduling opportunities (free
  /// slots offered to a job that declined them) before the job may run a task rack-local;
  /// capped at the cluster's machines, as YARN caps it at its nodes.
  uint32_t node_locality_delay = 40;
  /// capacity-scheduler: YARN's rack-locality-additional-delay, further missed opportunities
  /// before off-rack (capped with node_locality_delay at the machines). -1 (YARN's default):
  /// derived per job as YARN does, queued tasks x min(1, locations / machines), where
  /// locations counts the distinct machines and racks holding its queued tasks' input, plus
  /// one (YARN's ANY).
  int32_t rack_locality_delay = -1;
  /// fair-scheduler: YARN's locality.threshold.node, the fraction of the cluster's machines
  /// whose opportunities a job declines before it may run rack-local, in [-1, 1]. Negative
  /// (YARN's default -1) turns delay scheduling off: a job runs anywhere at once.
  double locality_threshold_node = -1;
  /// fair-scheduler: YARN's locality.threshold.rack, the fraction of the machines whose
  /// opportunities a job at the rack level declines before it may run off-rack. Negative:
  /// off, as for locality_threshold_node.
  double locality_threshold_rack = -1;
};

/// "" if params' YARN locality parameters are valid, else "name: why", the parameter named
/// as locsched-sim's flag without its dashes ("rack-locality-delay: ..."), as
/// ValidateTraceSim's errors are.
std::string CheckYarnLocality(const PolicyParams& params);

/// Queue figures for status and tests.
struct QueueStats {
  uint64_t queued = 0;         ///< tasks waiting in all queues
  uint64_t remote_queue = 0;   ///< tasks in the common remote queue (JSQ+MaxWeight)
  uint64_t longest_local = 0;  ///< longest local queue (JSQ+MaxWeight)
};

/// A policy's choice for a free slot: the task and its job (kNoId, kNoId if none). Two
/// 32-bit ids, so it comes back in one register, and the job is known without a read of
/// the task's record (the Scheduler counts the start before that record is in cache).
struct Pick {
  TaskId task = kNoId;
  JobId job = kNoId;
};

/// A scheduling policy: holds the queued tasks and decides what a free slot runs.
class Policy {
 public:
  virtual ~Policy() = default;
  /// Adopts a newly added machine (ids are dense, added in order).
  virtual void AddMachine(MachineId m) = 0;
  /// Takes a task that just became runnable (state already kQueued).
  virtual void Enqueue(TaskId t) = 0;
  /// Puts a queued task back into the queue it held before a restart (loading a
  /// snapshot); a policy without routing, or a queue no longer valid, routes it afresh.
  virtual void EnqueueTo(TaskId t, uint32_t queue) {
    (void)queue;
    Enqueue(t);
  }
  /// Removes a queued task (cancel); its state is still kQueued when called.
  virtual void Withdraw(TaskId t) = 0;
  /// Removes queued task t, which the caller starts on machine m without a pick (journal
  /// replay and snapshot loading re-apply recorded assignments): the policy notes the start
  /// as PickFor would have (late binding: when its job last started a task; delay
  /// scheduling: when it last ran local), so that its next picks are the ones it would
  /// have made had it picked t. Its state is still kQueued when called. Default: Withdraw.
  virtual void Assigned(TaskId t, MachineId m) {
    (void)m;
    Withdraw(t);
  }
  /// Chooses a task for one free slot of machine m and removes it from the queues; task
  /// kNoId if none. (A plain pair of ids, not an optional: that return cost a
  /// store-forwarding stall per decision. The Scheduler asks the task whether it is local
  /// to m.) The task's state still reads kQueued until the Scheduler marks it running, which
  /// it does before it asks again.
  virtual Pick PickFor(MachineId m) = 0;
  /// The job whose task local to m PickFor(m) would run by the policy's job order (late
  /// binding: the first job of its order's front with a task local to m), without taking
  /// it; kNoId if it has none there or does not walk a job order (default). QueueSharing
  /// compares its leaves' answers, so that a free slot serves the job first in the
  /// cluster's order among the queues' local ones.
  virtual JobId FirstLocalJob(MachineId m) {
    (void)m;
    return kNoId;
  }
  /// Like PickFor, but for a slot kept for this policy's queue (preemption's hand-over,
  /// QueueSharing::KeepSlot): a policy that would decline m for locality runs a task there
  /// anyway. Default: PickFor.
  virtual Pick PickAnyFor(MachineId m) { return PickFor(m); }
  /// Job j's running or queued count changed (the Scheduler calls this after every change).
  virtual void OnJobChanged(JobId j) = 0;
  /// Machine m went down or started draining: it takes no more local work.
  virtual void OnMachineUnavailable(MachineId m) = 0;
  /// Machine m is up and not draining again.
  virtual void OnMachineAvailable(MachineId m) = 0;
  /// Updates the service rates (learnt online).
  virtual void SetRates(double alpha, double gamma) = 0;
  /// Updates the rack-local rate (learnt online); policies without a rack level ignore it.
  virtual void SetRackRate(double beta) { (void)beta; }
  /// The driver's clock in seconds, monotone (the core reads no clock of its own: the
  /// daemon passes its workload clock, the simulator its simulated time). Policies that
  /// wait a time, or bound a job's wait, read it; the others ignore it.
  virtual void SetNow(double now_s) { (void)now_s; }
  /// Sets job priority ranks (index = job id; a rank holds for the job whose arrival seq
  /// is seqs[id]; other jobs are placed among the ranked ones by Smith's rule). A
  /// capability: false (and nothing changes) for a policy that does not order jobs by rank.
  virtual bool SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) {
    (void)ranks;
    (void)seqs;
    return false;
  }
  /// Random state a snapshot saves (empty if the policy draws no random numbers).
  virtual std::vector<uint64_t> RandomState() const { return {}; }
  /// Continues from what RandomState returned.
  virtual void SetRandomState(std::span<const uint64_t> state) { (void)state; }
  /// Queue lengths now.
  virtual QueueStats Stats() const = 0;
  /// Tasks queued for machine m specifically (its local queue), if the policy has one.
  virtual uint64_t LocalQueueLength(MachineId m) const = 0;
  /// Why queued task t is not running (wait_reason.h): by default from its holders alone
  /// (a live holder with a free slot starts it, else it waits for them); policies with a
  /// job order or a locality rule answer by that rule.
  virtual WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const;
  /// Runnable jobs before job j in the policy's job order, counting at most `cap` (0 for a
  /// policy without one).
  virtual uint32_t JobsAhead(JobId j, uint32_t cap) const {
    (void)j;
    (void)cap;
    return 0;
  }
};

/// Builds the policy selected by params over `cluster` (which must outlive it).
std::unique_ptr<Policy> MakePolicy(const PolicyParams& params, Cluster& cluster);

/// Parses a name of the policy table ("jsq-maxweight", "fair", "fifo", "delay",
/// "late-binding", "balanced-pandas", "quincy", "capacity-scheduler", "fair-scheduler");
/// nullopt if unknown.
std::optional<PolicyKind> ParsePolicyKind(std::string_view name);
/// The canonical name of a policy.
std::string_view PolicyKindName(PolicyKind kind);
/// Parses "fair", "fifo", "priority"; nullopt if unknown.
std::optional<IntraQueue> ParseIntraQueue(std::string_view name);
/// The canonical name of an intra-queue policy.
std::string_view IntraQueueName(IntraQueue intra);
/// Every policy name, in the table's order (the league and --help enumerate it).
std::span<const std::string_view> PolicyNames();
/// The job order a policy runs with unless one is chosen: srpt for late binding (the
/// default policy, measured with it), fifo for capacity-scheduler (YARN's default FIFO
/// ordering policy inside a leaf), fair (Zaharia et al.'s order) for the others.
JobOrder DefaultJobOrder(PolicyKind kind);
/// The aging bound the daemon and the simulators default to, in the driver's clock (seconds
/// in the daemon and the trace simulator): long enough never to cost a measured run its
/// mean (docs/algorithms.md), short enough that srpt cannot starve a large job for long.
inline constexpr double kDefaultJobAging = 300;
/// Parses "fair", "srpt", "smith", "lp", "fifo"; nullopt if unknown.
std::optional<JobOrder> ParseJobOrder(std::string_view name);
/// The canonical name of a job order.
std::string_view JobOrderName(JobOrder order);

}  // namespace locsched
