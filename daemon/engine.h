// Engine: the scheduling state as the wire sees it. It maps machine, job and
// task names to the core's dense ids, drives the Scheduler, learns alpha and
// gamma, enforces retry and size limits, and keeps a short history of
// finished jobs. The Dispatcher calls one method per command, on the
// event-loop thread only; time comes from the injected Clock, no I/O here.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "algorithms/core/locality.h"
#include "algorithms/core/rate_estimator.h"
#include "algorithms/core/scheduler.h"
#include "algorithms/core/wait_reason.h"
#include "algorithms/hta/permit_rebalancer.h"
#include "base/status.h"
#include "config/config.h"
#include "daemon/arrival_window.h"
#include "daemon/clock.h"
#include "daemon/histogram.h"
#include "daemon/job_names.h"
#include "daemon/name_index.h"
#include "daemon/rebalancer.h"
#include "daemon/user_groups.h"
#include "io/wire/json_writer.h"
#include "io/wire/request.h"

namespace locsched {

// Parsed snapshot records, defined in engine_snapshot.cc.
struct SavedCounters;
struct SavedMachine;
struct SavedJob;
struct SavedFinished;

/// How a job left the daemon.
enum class JobOutcome : uint8_t { kDone, kFailed, kCancelled };

/// Scheduling state keyed by name; one handler per state-touching command.
class Engine {
 public:
  /// Receives one line for each notable event (a failure, a lost machine) to log.
  using Notify = std::function<void(const std::string&)>;

  /// State built from cfg's [scheduler] and [limits]; `clock` must outlive it. Notable
  /// events go to `notify` (locschedd logs them; none: dropped). The tasks of each
  /// accepted job_submit are counted into `arrivals` (the LP planner's rates; none: not
  /// counted), which must outlive the engine. With any [queue.*] in cfg (tenancy on), the
  /// policy shares the cluster among the queues (QueueSharing); users' groups come from
  /// `users` (none: the system's database), which must outlive the engine.
  Engine(const Config& cfg, const Clock& clock, Notify notify = nullptr,
         ArrivalWindow* arrivals = nullptr, const UserDirectory* users = nullptr);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Sets the LP's job ranks (index = job id, valid for the given arrival seqs): the
  /// `priority` intra order of JSQ-MaxWeight, or late binding's `lp` job order; false when
  /// the policy has no rank order.
  bool SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs);
  /// When running task t was started (engine clock).
  double TaskStartedAt(TaskId t) const { return t < task_started_.size() ? task_started_[t] : 0; }

  /// Applies the reloadable settings of cfg (rates, retries, limits).
  void ApplyConfig(const Config& cfg);
  /// reload: swaps in the queue tree and groups of q (QueueSharing::Reconfigure without
  /// keeping orphans). Refused, changing nothing, if tenancy would turn on or off (a
  /// restart does that) or the tree drops a queue that holds jobs.
  Status ReloadQueues(const QueueConfig& q);

  // Tenancy in recovery: snapshot load and journal replay place each job in the leaf
  // recorded with it, not by today's rules, ACLs or states.
  /// While true, job_submit and task_add take their job's queue from
  /// SetRecordedQueue instead of the placement rules (the Dispatcher sets it around each
  /// replayed record).
  void SetReplaying(bool replaying, std::string_view recorded_queue) {
    replaying_ = replaying;
    recorded_queue_ = recorded_queue;
  }
  /// Forgets the last placement: the Dispatcher calls it before each command.
  void ClearPlaced() { placed_queue_.clear(); }
  /// The leaf name the job submitted by the command since the last ClearPlaced was placed
  /// in ("" if none, or tenancy is off): the journal records it with the event.
  std::string_view placed_queue() const { return placed_queue_; }
  /// After recovery: the config's tree again, keeping each queue it dropped that still
  /// holds jobs as a stopped queue until they finish; one Notify line per kept queue.
  void FinishRecovery();
  /// True if tenant queues are on ([queue.*] in the config at start).
  bool tenancy() const { return sched_.sharing() != nullptr; }

  // Mutating commands: validate everything first, then change state, so an
  // error leaves the state untouched. Each writes its reply fields into w.
  /// machine_up: adds a machine or brings a known one back (slots may change).
  Status MachineUp(const Request& r, JsonWriter& w);
  /// machine_down: marks it down and requeues what ran on it.
  Status MachineDown(const Request& r, JsonWriter& w);
  /// machine_drain: stops (or resumes) giving it new tasks.
  Status MachineDrain(const Request& r, JsonWriter& w);
  /// machine_lost: the machine went silent (the daemon's Liveness sends it past
  /// machines.expiry_s): requeued like machine_down, but its next heartbeat or machine_up
  /// brings it back.
  Status MachineLost(const Request& r, JsonWriter& w);

  // Liveness (the daemon's Liveness asks; these change nothing).
  /// A running task, by name.
  struct RunningTask {
    std::string job, task, machine;
  };
  /// Machines that take work (up, draining or not) last heard before `before`.
  std::vector<std::string> SilentSince(double before) const;
  /// Tasks running on machines that are up, started (or confirmed) before `before`.
  std::vector<RunningTask> StartedBefore(double before) const;
  /// Counts every machine as heard now: after a restart or a takeover no last-heard time
  /// is trusted, so each machine gets a full machines.expiry_s.
  void HearAll();
  /// A heartbeat's first step, live or replayed: `machine` is heard, and back if lost.
  Status Hear(const std::string& machine, MachineId* m);
  /// True if machine m is lost (silent past the expiry; back on a heartbeat).
  bool lost(MachineId m) const { return m < liveness_.size() && liveness_[m].lost; }
  /// job_submit: a new job with its tasks.
  Status JobSubmit(const Request& r, JsonWriter& w);
  /// What JobSubmit would refuse in r (a live job of that name, too many tasks, an
  /// unknown replica, a duplicate task), changing nothing; JobAssembly checks each part.
  Status CheckJob(const Request& r) const;
  /// What JobSubmit's placement would refuse for r (an unknown or stopped queue, an ACL,
  /// no rule placing the user); Ok with tenancy off or while replaying. JobAssembly's
  /// first part is checked with it, so a refused job is refused before its parts.
  Status CheckPlacement(const Request& r) const;
  /// limits.max_tasks_per_job now.
  uint64_t max_tasks_per_job() const { return max_tasks_per_job_; }
  /// heartbeat: fills up to free_slots slots of the machine; replies with "assign".
  Status Heartbeat(const Request& r, JsonWriter& w);
  /// task_started: the cluster confirms a start (restarts the task's timer).
  Status TaskStarted(const Request& r, JsonWriter& w);
  /// task_done: a running task finished.
  Status TaskDone(const Request& r, JsonWriter& w);
  /// task_failed: retried up to the limit, then its job fails.
  Status TaskFailed(const Request& r, JsonWriter& w);
  /// task_preempted: a machine confirms it stopped a run its heartbeat reply listed under
  /// "preempt" (engine_preemption.cc); the task was requeued then, so only a count moves.
  Status TaskPreempted(const Request& r, JsonWriter& w);
  /// Journal replay of one task a heartbeat preempted before a restart (running until then).
  Status ReplayPreempt(std::string_view job, std::string_view task);
  /// Writes the stop orders machine m is owed as the reply's "preempt" list (nothing if
  /// none) and forgets them; returns how many. A heartbeat, live or replayed, calls it.
  uint64_t DeliverStops(MachineId m, JsonWriter& w);
  /// The tasks the last heartbeat preempted (valid until the next command).
  std::span<const TaskId> last_preempted() const { return preempted_; }
  /// How many stop orders the last heartbeat delivered.
  uint64_t last_delivered() const { return delivered_; }
  /// Journal replay of one assignment a heartbeat made before a restart; writes it into
  /// w as the heartbeat's reply did.
  Status ReplayAssign(const std::string& machine, std::string_view job, std::string_view task,
                      JsonWriter& w);
  /// The assignments of the last successful heartbeat (valid until the next command).
  std::span<const Assignment> last_assigned() const { return assigned_; }
  /// True if the last heartbeat (or machine heard) brought a lost machine back.
  bool revived() const { return revived_; }
  /// The name of live job j.
  std::string_view JobName(JobId j) const { return jobs_[j].name; }
  /// The job of task t.
  JobId JobOf(TaskId t) const { return sched_.cluster().task(t).job; }
  /// The name of task t (of a live job).
  std::string_view TaskName(TaskId t) const;
  /// job_cancel: removes a live job.
  Status JobCancel(const Request& r, JsonWriter& w);
  /// rebalance, run on the calling thread (no worker installed): writes the run's figures.
  Status Rebalance(const Request& r, JsonWriter& w);
  /// Late binding with rebalance.enabled: runs the remote-permit plan if a large job came
  /// or its timer is due (the daemon's rebalance timer calls this; synchronous, on the loop).
  void RebalancePermits();

  // Read-only views (engine_views.cc).
  /// status: machines, slots, tasks, jobs, rates, locality.
  Status Summary(const Request& r, JsonWriter& w) const;
  /// machine_queues: the remote queue, the longest local queues and a length histogram.
  Status MachineQueues(const Request& r, JsonWriter& w) const;
  /// jobs: live jobs with their counts, or the finished-job history (r.finished); filtered
  /// by r.state, sorted by r.sort, at most r.limit.
  Status Jobs(const Request& r, JsonWriter& w) const;
  /// job: one live or recently finished job, with its tasks; each waiting task with its
  /// holders and why it waits (algorithms/core/wait_reason.h).
  Status JobDetail(const Request& r, JsonWriter& w) const;
  /// machines: machines with their state and local queue; filtered, sorted, limited.
  Status Machines(const Request& r, JsonWriter& w) const;
  /// queue: every tenant queue (or r.queue alone) with its guarantee, maximum, share in
  /// use, pending tasks, running and held jobs, users and state.
  Status Queues(const Request& r, JsonWriter& w) const;
  /// Appends Prometheus gauges and counters of the state to *out.
  void AppendMetrics(std::string* out) const;

  // Snapshots (engine_snapshot.cc).
  /// Receives one snapshot record.
  using Sink = std::function<void(std::string_view record)>;
  /// Emits the whole state as snapshot records (machines, live jobs, history, counters).
  void Save(const Sink& emit) const;
  /// Rebuilds the state from records Save emitted; the engine must be empty.
  /// Records it does not know (the dispatcher's) are left to the caller.
  Status Load(const std::vector<std::string>& records);

  /// The engine's clock reading now.
  double Now() const { return clock_.Now(); }
  /// Passes the clock to the core (Scheduler::SetNow). The Dispatcher calls it before every
  /// mutating command, live or replayed, so that what the policy stamps (when a job became
  /// runnable or last started a task) reads that command's time, never the time of a
  /// heartbeat that left no journal record.
  void SyncPolicyClock() { sched_.SetNow(clock_.Now()); }
  /// The clock (the Dispatcher times heartbeats with its Fresh reading).
  const Clock& clock() const { return clock_; }
  /// Seconds from submission to the last task's end of the jobs that finished.
  const Histogram& completion_times() const { return completion_times_; }
  /// The core (tests inspect it).
  const Scheduler& scheduler() const { return sched_; }
  /// The learnt rates.
  const RateEstimator& rates() const { return rates_; }
  /// The rebalancer, or nullptr when the policy is not jsq-maxweight.
  Rebalancer* rebalancer() { return rebalancer_.get(); }
  /// The rebalancer (read-only), or nullptr.
  const Rebalancer* rebalancer() const { return rebalancer_.get(); }
  /// Late binding's rebalancer (remote permits), or nullptr for the other policies.
  const PermitRebalancer* permit_rebalancer() const { return permits_.get(); }

  /// Most entries a jobs/job listing returns (it says when it truncated).
  static constexpr size_t kMaxListed = 10000;

 private:
  struct JobMeta {
    std::string name;
    NameIndex tasks;  // task names; position i is the job's i-th task
    double submitted_at = 0;
  };
  // One finished job of the history (history.finished_jobs of them, oldest first).
  struct Finished {
    std::string name;
    JobOutcome outcome;
    uint32_t tasks;
    double seconds;       // from submission to the end: the job completion time
    double ended_at = 0;  // engine clock; 0 if unknown (an older snapshot)
    uint32_t done = 0;    // tasks that finished
    uint32_t local = 0;   // of those, the ones that ran on a holder of their input
  };
  // Tasks of a job that finished, and how many of them ran local.
  struct DoneTally {
    uint32_t done = 0, local = 0;
  };

  struct MachineTotals {
    uint64_t up = 0, down = 0, draining = 0, lost = 0, slots = 0, busy = 0;
  };
  MachineTotals CountMachines() const;
  std::string_view MachineState(MachineId m) const;
  Status FindMachine(std::string_view field, const std::string& name, MachineId* m) const;
  Status FindJob(const std::string& name, JobId* j) const;
  // The live job named `name`, if any.
  std::optional<JobId> LiveJob(std::string_view name) const {
    return job_ids_.Find(name, [this](JobId j) -> std::string_view { return jobs_[j].name; });
  }
  // Live job ids in arrival order.
  std::vector<JobId> LiveJobs() const;
  Status FindTask(const std::string& job, const std::string& task, TaskId* t) const;
  Status FindRunningTask(const Request& r, TaskId* t) const;
  bool StaleReport(const Request& r, JsonWriter& w);
  void PreemptIfStarved(double now);
  void Preempt(TaskId t, double now);
  void TakeBack(std::span<const TaskId> tasks, MachineId m);
  Locality NoteStarted(const Assignment& a, double now);
  Status CheckSubmit(const Request& r, std::vector<MachineId>* replicas, NameIndex* names) const;
  Status Place(const Request& r, JobTenancy* out) const;
  uint32_t RecordedLeaf(std::string_view name);
  bool Configured(std::string_view queue) const;
  Status CheckDropped(const QueueTree& next) const;
  std::string_view QueueName(JobId j) const;
  void WriteQueue(uint32_t q, JsonWriter& w) const;
  void AppendQueueMetrics(std::string* out) const;
  void IndexJob(const std::string& name, JobId j, NameIndex names, double submitted_at);
  DoneTally TallyDone(JobId j) const;
  void ForgetJob(JobId j, JobOutcome outcome, DoneTally tally);
  void Remember(Finished f);
  void TrimHistory();
  // The latest finished run of the job named `name`, or nullptr.
  const Finished* FindFinished(const std::string& name) const;
  void ObserveDuration(TaskId t);
  uint32_t RackId(const std::string& rack);
  // True once machines named more than one rack: the rack level is on (locality.h).
  bool RacksInUse() const { return rack_ids_.size() > 1; }
  // Hands the learnt rates to the policy (the rack-local one only with racks).
  void PushRates();
  void WriteAssignment(const Assignment& a, Locality level, JsonWriter& w) const;
  void WriteJobCounts(JobId j, JsonWriter& w) const;
  void WritePermitRun(const char* trigger, const PermitRun& run, JsonWriter& w) const;
  void WriteTasks(JobId j, JsonWriter& w) const;
  void WriteWait(TaskId t, const WaitFacts& facts, JsonWriter& w) const;
  void WriteHolders(TaskId t, JsonWriter& w) const;
  Status FinishedJobs(const Request& r, JsonWriter& w) const;
  void WriteFinished(const Finished& f, JsonWriter& w) const;
  void SaveCounters(const Sink& emit) const;
  void SaveJob(JobId j, std::string* rec) const;
  void SaveMachine(MachineId m, std::string* rec) const;
  struct LoadScratch;  // what Load applies after the last record
  void LoadCounters(const SavedCounters& c);
  void LoadFinished(const SavedFinished& f);
  Status Apply(const std::variant<SavedCounters, SavedMachine, SavedJob, SavedFinished>& rec,
               LoadScratch* scratch);
  Status LoadMachine(const SavedMachine& m, LoadScratch* scratch);
  Status LoadJob(const SavedJob& job, LoadScratch* scratch);
  Status LoadTasks(JobId j, const SavedJob& job, LoadScratch* scratch);

  void Note(const std::string& line) const {
    if (notify_) notify_(line);
  }

  const Clock& clock_;
  Notify notify_;
  ArrivalWindow* arrivals_;   // not owned; null when no LP planner counts arrivals
  QueueConfig queue_config_;  // [queue.*], [placement], [groups] as configured
  SystemUserDirectory system_users_;
  const UserDirectory& users_;       // system_users_ unless a test's
  mutable GroupResolver groups_;     // a cache: Place is logically const
  bool replaying_ = false;           // see SetReplaying
  std::string_view recorded_queue_;  // valid while replaying_
  std::string placed_queue_;         // see placed_queue()
  bool orphans_ = false;             // recovery added queues the config lacks
  Scheduler sched_;
  std::unique_ptr<Rebalancer> rebalancer_;     // after sched_: it observes it
  std::unique_ptr<PermitRebalancer> permits_;  // late binding's rebalance
  bool rebalance_enabled_ = false;             // rebalance.enabled: automatic permit runs
  RateEstimator rates_;
  bool learn_rates_;
  uint32_t max_task_retries_;
  uint64_t max_tasks_per_job_;
  double started_at_;

  NameIndex machine_names_;  // position == MachineId (machines are never removed)
  std::unordered_map<std::string, uint32_t> rack_ids_;
  JobNames job_ids_;                  // live jobs by name (their names are jobs_[j].name)
  std::vector<JobMeta> jobs_;         // by JobId
  std::vector<double> task_started_;  // by TaskId; start of the current run
  // By TaskId: the machine whose run of the task the daemon ended without its report (lost
  // or down machine, failure, timeout), so that run's late report is known as stale.
  std::vector<MachineId> taken_from_;
  struct Liveness {
    double heard = 0;   // engine clock of the last heartbeat or machine_up
    bool lost = false;  // silent past machines.expiry_s; the next heartbeat brings it back
  };
  std::vector<Liveness> liveness_;                      // by MachineId
  std::deque<Finished> history_;                        // oldest first
  uint64_t history_first_ = 0;                          // serial of history_.front()
  std::unordered_map<std::string, uint64_t> finished_;  // name -> serial of its latest run
  uint64_t history_cap_;                                // history.finished_jobs
  std::vector<Assignment> assigned_;  // the last heartbeat's (reused, no allocation per beat)
  // Preemption (engine_preemption.cc).
  struct StopOrder {
    std::string job, task;
  };
  PreemptionConfig preemption_;                // [preemption]; timeout_s 0: off
  double next_plan_s_ = 0;                     // no plan before this engine time
  std::vector<std::vector<StopOrder>> stops_;  // by MachineId: runs it is yet to be told to stop
  std::vector<TaskId> preempted_;              // the last heartbeat's victims
  uint64_t delivered_ = 0;                     // stop orders the last heartbeat delivered
  uint64_t tasks_preempted_ = 0, preempt_reports_ = 0;
  double preempted_task_s_ = 0;  // engine seconds the preempted runs had run
  bool revived_ = false;         // the last machine heard had been lost

  uint64_t jobs_submitted_ = 0, jobs_done_ = 0, jobs_failed_ = 0, jobs_cancelled_ = 0;
  uint64_t tasks_done_ = 0, tasks_failed_ = 0, tasks_requeued_ = 0;
  uint64_t machines_lost_ = 0, stale_reports_ = 0;
  // remote counts every start off the task's holders; rack those of them in a holder's
  // rack (off-rack starts are remote - rack).
  uint64_t assigned_local_ = 0, assigned_remote_ = 0, assigned_rack_ = 0;
  Histogram completion_times_ = DurationHistogram();  // done jobs only, since the start
};

/// The wire name of an outcome ("done", "failed", "cancelled").
std::string_view JobOutcomeName(JobOutcome o);

}  // namespace locsched
