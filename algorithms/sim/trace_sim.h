// TraceSim: an event-driven, continuous-time simulation of a recorded workload (jobs
// with submit times, tasks with replica machines) on the cluster model of
// locsched-agents --no-jobs, the emulator behind tools/replay.sh, over the same
// Scheduler the daemon runs. Pure and single-threaded: locsched-sim --trace and tests call it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/core/policy.h"
#include "algorithms/core/queue_tree.h"
#include "algorithms/lp/backlog_lp.h"
#include "algorithms/sim/queue_meter.h"

namespace locsched {

class Scheduler;

/// One job of a workload: its tasks are TraceWorkload's [first_task, first_task + tasks).
struct TraceJob {
  double submit_s = 0;  ///< when it arrives, seconds from the start of the run
  uint32_t first_task = 0;
  uint32_t tasks = 0;
};

/// A workload: jobs in submission order, tasks in one flat table (machine ids < machines).
struct TraceWorkload {
  std::vector<TraceJob> jobs;
  std::vector<TaskKind> kinds;                ///< per task: map or reduce
  std::vector<uint32_t> replica_begin = {0};  ///< per task + 1: where its replicas start
  std::vector<MachineId> replicas;            ///< every task's replicas, in task order
  std::vector<double> weights;  ///< per job: its weight in weighted completion time (empty: 1)
  /// Appends a job at `submit_s` (times must not decrease); returns its index.
  uint32_t AddJob(double submit_s);
  /// Appends a task to the last job.
  void AddTask(TaskKind kind, const std::vector<MachineId>& task_replicas);
  /// Tasks in the workload.
  uint32_t num_tasks() const { return static_cast<uint32_t>(kinds.size()); }
};

/// The emulator's cluster (tools/agents): task times Exp(mean local_mean_s) where a replica
/// is, rack_slowdown times longer elsewhere in a replica holder's rack, remote_slowdown
/// times longer elsewhere; each machine heartbeats every heartbeat_s
/// (phases spread evenly over one period) while it has a free slot and tasks wait, and at
/// once when a task of it ends.
struct TraceClusterModel {
  uint32_t machines = 600;
  uint32_t slots_per_machine = 1;
  /// Racks: machine m is in rack m * racks / machines. 0 or 1: no topology (every non-local
  /// task counts as off-rack, and the run is the same as without racks).
  uint32_t racks = 0;
  double local_mean_s = 25;
  double remote_slowdown = 4;
  /// A rack-local task's slowdown (with racks > 1), in [1, remote_slowdown]; 0: the
  /// geometric mean sqrt(remote_slowdown) (2 at 4), so the rack-local rate is the geometric
  /// mean of the local and remote rates (RackSlowdown).
  double rack_slowdown = 0;
  double heartbeat_s = 3;
  /// Every task's work is 1 (local_mean_s local) instead of an Exp(1) draw: a workload
  /// whose schedule can be worked out by hand.
  bool fixed_durations = false;
  /// Stop this long after the last submission even if tasks are left (the replay's
  /// drain limit); the run then counts as unstable.
  double drain_limit_s = 36000;
};

/// The rack-local slowdown the model runs: rack_slowdown, or sqrt(remote_slowdown) if 0.
double RackSlowdown(const TraceClusterModel& c);

/// LP priority (the daemon's lp.enabled with intra_queue = priority): the backlog LP
/// re-solved on the simulated clock with the daemon's adaptive timer: after a solve the
/// interval grows by `growth` up to max_interval_s; burst_tasks more queued or blocked
/// tasks than at the last solve reset it to base_interval_s and solve at once. Its order
/// ranks the jobs of policy.intra = kPriority.
struct TraceLpParams {
  bool enabled = false;
  double base_interval_s = 5;   ///< lp.base_interval_s
  double max_interval_s = 60;   ///< lp.max_interval_s
  double growth = 2;            ///< lp.growth
  uint64_t burst_tasks = 1000;  ///< lp.burst_tasks
  uint32_t classes = 4;         ///< lp.classes
  BacklogLpOptions options;     ///< lp.max_jobs, lp.epsilon, ...
};

/// Work beside heartbeats that lives outside algorithms/ (locsched-sim hooks in the
/// daemon's rebalancer): called on the simulation's thread, on the simulated clock.
class TraceSimHook {
 public:
  virtual ~TraceSimHook() = default;
  /// Once, with the machines added, before the first event.
  virtual void Attach(Scheduler& sched) = 0;
  /// A job of `tasks` tasks was just submitted.
  virtual void OnJobSubmitted(uint64_t tasks) = 0;
  /// After the events of instant `now` (as the daemon's loop after a burst).
  virtual void AfterStep(Scheduler& sched, double now) = 0;
};

struct TraceSimParams {
  TraceClusterModel cluster;
  PolicyParams policy;           ///< kind, intra order, delay_wait in seconds; alpha/gamma as rates
  uint64_t seed = 1;             ///< seeds the task durations
  TraceLpParams lp;              ///< LP priority (needs policy.intra = kPriority)
  TraceSimHook* hook = nullptr;  ///< not owned; may be null
  /// Tenant queues (not owned; null: none): the run shares the cluster among its leaves.
  const QueueTree* queues = nullptr;
  /// Per job: its leaf in *queues (empty, or kNoId for a job: the default leaf).
  std::vector<uint32_t> job_queues;
  /// Preemption (needs queues; 0: off): at each instant, after completions and arrivals,
  /// the run keeps the free slots and stops the tasks PlanPreemption picks for leaves
  /// starved this long, requeues them (Scheduler::Preempt; their completions are dropped)
  /// and heartbeats the machines of both.
  double preemption_timeout_s = 0;
  /// With preemption: further seconds a starved leaf takes the slots that free (kept for
  /// it) before tasks are stopped for it (PlanPreemption's kill_wait_s; 0: at the timeout).
  double preemption_kill_wait_s = 0;
};

/// One leaf queue's figures in a run with tenant queues.
struct TraceQueueResult {
  std::string name;
  double guarantee = 0;       ///< fraction of the cluster guaranteed
  double maximum = 0;         ///< fraction of the cluster at most
  uint32_t max_slots = 0;     ///< its maximum in slots
  uint32_t peak_running = 0;  ///< most tasks it ran at once (never above max_slots)
  uint64_t jobs = 0, jobs_done = 0;
  double mean_jct_s = 0, p95_jct_s = 0;
  double locality = 0;           ///< node-local share of its started tasks
  QueueMeterResult meter;        ///< time-to-guarantee and share-deficit-seconds
  uint64_t preempted_tasks = 0;  ///< its tasks preempted (each stop counts)
  double preempted_task_s = 0;   ///< the run time those stops threw away
};

/// JCT figures of the jobs whose task count lies in [min_tasks, max_tasks].
struct JctBucket {
  uint32_t min_tasks = 0, max_tasks = 0;
  uint64_t jobs = 0;
  double mean_jct_s = 0, p95_jct_s = 0;
};

struct TraceSimResult {
  uint64_t jobs = 0, jobs_done = 0, tasks = 0, tasks_done = 0;
  double mean_jct_s = 0, p95_jct_s = 0;
  double weighted_jct_s = 0;  ///< sum of weight * JCT over the jobs done
  /// Lower bounds over the jobs done, from the run's drawn work (TraceJctBound): on
  /// mean_jct_s (the larger of the two parts: the mean critical path, and SRPT on one
  /// server as fast as the holders' slots), and on weighted_jct_s (sum of weight *
  /// critical path).
  double lower_bound_mean_jct_s = 0;
  double lower_bound_critical_path_s = 0, lower_bound_srpt_s = 0;
  double lower_bound_weighted_jct_s = 0;
  double mean_task_wait_s = 0;  ///< runnable (submitted, or released after its maps) to start
  double locality = 0;          ///< node-local share of started tasks
  double rack_local = 0;        ///< rack-local (not node-local) share
  double off_rack = 0;          ///< the rest
  /// Service rates learnt from the completions (RateEstimator, one window over the whole
  /// run, the policy's rates as the prior), to compare with the model's true rates: 1 /
  /// local_mean_s over 1, RackSlowdown and remote_slowdown. Reported, not fed back.
  double learnt_alpha = 0, learnt_beta = 0, learnt_gamma = 0;
  uint64_t local_done = 0, rack_done = 0, off_rack_done = 0;  ///< completions per level
  double span_s = 0;                                          ///< last submission
  double makespan_s = 0;                                      ///< last completion
  double throughput = 0;    ///< tasks finished per second over the makespan
  double offered_load = 0;  ///< the work submitted, run local, per slot-second of the span
  /// Task-seconds spent queued while a replica holder of the task had a free slot: what
  /// binding a task to one machine early (or a slow heartbeat) costs.
  double idle_holder_task_s = 0;
  bool stable = true;  ///< every job done, and the last within max(1800 s, span / 2) of the span
  uint64_t heartbeats = 0;                  ///< heartbeats that asked the scheduler for work
  uint64_t lp_solves = 0, lp_failures = 0;  ///< LP priority's re-solves
  /// Preemption (preemption_timeout_s): tasks stopped, the task-seconds they had run, and
  /// that as a share of all task-seconds run (completed runs plus preempted ones).
  uint64_t preempted_tasks = 0;
  double preempted_task_s = 0, preempted_share = 0;
  std::vector<JctBucket> buckets;        ///< 1, 2-10, 11-100, 101-1000, >1000 tasks
  std::vector<double> jct_s;             ///< per job, in input order; -1 if not done
  std::vector<TraceQueueResult> queues;  ///< per leaf queue, in tree order (with queues)
};

/// "" if the workload and params fit, else "field: what is wrong" (flag names as
/// locsched-sim spells them).
std::string ValidateTraceSim(const TraceWorkload& w, const TraceSimParams& p);
/// The seed of the task-duration stream for run seed `seed`: mixed, so that a policy
/// seeded with the same number (JSQ's tie-breaks) does not draw the same stream (its
/// remote picks would get the long durations). Every trace-mode simulator draws from it.
inline uint64_t DurationSeed(uint64_t seed) {
  return seed * 0x9e3779b97f4a7c15ULL + 0xd0e5;
}

/// What every trace-mode simulator starts from, so that all draw the same work: per
/// task, its job and its Exp(1) work in task order from DurationSeed(seed) (1 with
/// fixed durations); per job, its map and task counts.
void DrawTraceTasks(const TraceWorkload& w, bool fixed_durations, uint64_t seed,
                    std::vector<uint32_t>* job_of, std::vector<double>* work,
                    std::vector<uint32_t>* maps_left, std::vector<uint32_t>* tasks_left);

/// Runs the workload through the cluster model (validated by ValidateTraceSim).
TraceSimResult SimulateTrace(const TraceWorkload& w, const TraceSimParams& p);

}  // namespace locsched
