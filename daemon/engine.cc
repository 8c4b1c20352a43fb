#include "daemon/engine.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "algorithms/core/jsq_maxweight.h"
#include "algorithms/core/locality.h"
#include "daemon/workload_timers.h"

namespace locsched {

namespace {

PolicyParams PolicyFrom(const SchedulerConfig& s) {
  PolicyParams p;
  p.kind = s.policy;
  p.intra = s.intra_queue;
  p.alpha = s.alpha;
  p.gamma = s.gamma;
  p.delay_wait = s.delay_wait;
  p.node_locality_delay = s.node_locality_delay;
  p.rack_locality_delay = s.rack_locality_delay;
  p.locality_threshold_node = s.locality_threshold_node;
  p.locality_threshold_rack = s.locality_threshold_rack;
  p.remote_bias = s.remote_bias;
  p.priority_slack = s.priority_slack;
  p.seed = s.seed;
  p.job_order = s.job_order.value_or(DefaultJobOrder(p.kind));
  p.job_aging = s.job_aging;
  p.duration_cv = s.duration_cv;
  p.beta = s.beta;
  return p;
}

// The tree of q, or none with tenancy off. The loader validated it (LoadQueueConfigText
// builds it), so Build cannot fail here.
std::optional<QueueTree> TreeOf(const QueueConfig& q) {
  if (!q.enabled()) return std::nullopt;
  QueueTree tree;
  const Status s = QueueTree::Build(q.spec, &tree);
  assert(s.ok());
  if (!s.ok()) return std::nullopt;
  return tree;
}

PermitRebalancer::Settings PermitSettings(const RebalanceConfig& r) {
  return PermitRebalancer::Settings{r.big_job_tasks, static_cast<double>(r.base_interval_ms) / 1000,
                                    static_cast<double>(r.max_interval_ms) / 1000};
}

std::string Quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

}  // namespace

std::string_view JobOutcomeName(JobOutcome o) {
  switch (o) {
    case JobOutcome::kDone:
      return "done";
    case JobOutcome::kFailed:
      return "failed";
    case JobOutcome::kCancelled:
      return "cancelled";
  }
  return "done";
}

Engine::Engine(const Config& cfg, const Clock& clock, Notify notify, ArrivalWindow* arrivals,
               const UserDirectory* users)
    : clock_(clock),
      notify_(std::move(notify)),
      arrivals_(arrivals),
      queue_config_(cfg.queues),
      users_(users ? *users : system_users_),
      groups_(users_, cfg.queues.groups),
      sched_(PolicyFrom(cfg.scheduler), TreeOf(cfg.queues)),
      rebalancer_(cfg.scheduler.policy == PolicyKind::kJsqMaxWeight
                      ? std::make_unique<Rebalancer>(
                            sched_, WallTimed(cfg.rebalance, cfg.scheduler.workload_speed))
                      : nullptr),
      permits_(cfg.scheduler.policy == PolicyKind::kLateBinding
                   ? std::make_unique<PermitRebalancer>(
                         PermitSettings(WallTimed(cfg.rebalance, cfg.scheduler.workload_speed)))
                   : nullptr),
      rebalance_enabled_(cfg.rebalance.enabled),
      rates_(cfg.scheduler.alpha, cfg.scheduler.gamma, cfg.scheduler.rate_window,
             cfg.scheduler.beta),
      learn_rates_(cfg.scheduler.learn_rates),
      max_task_retries_(cfg.scheduler.max_task_retries),
      max_tasks_per_job_(cfg.limits.max_tasks_per_job),
      started_at_(clock.Now()),
      history_cap_(cfg.history.finished_jobs),
      preemption_(cfg.preemption) {}

void Engine::ApplyConfig(const Config& cfg) {
  const SchedulerConfig& s = cfg.scheduler;
  learn_rates_ = s.learn_rates;
  max_task_retries_ = s.max_task_retries;
  max_tasks_per_job_ = cfg.limits.max_tasks_per_job;
  rates_.Reset(s.alpha, s.gamma, s.rate_window, s.beta);
  PushRates();
  if (rebalancer_) rebalancer_->ApplyConfig(WallTimed(cfg.rebalance, s.workload_speed));
  if (permits_) permits_->ApplySettings(PermitSettings(WallTimed(cfg.rebalance, s.workload_speed)));
  rebalance_enabled_ = cfg.rebalance.enabled;
  history_cap_ = cfg.history.finished_jobs;
  TrimHistory();
  preemption_ = cfg.preemption;
}

bool Engine::SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) {
  return sched_.SetPriorityOrder(std::move(ranks), std::move(seqs));
}

// ---- lookups ---------------------------------------------------------------

Status Engine::FindMachine(std::string_view field, const std::string& name, MachineId* m) const {
  const std::optional<uint32_t> pos = machine_names_.Find(name);
  if (!pos) return Status::NotFound(std::string(field), "unknown machine " + Quoted(name));
  *m = *pos;  // machines are never removed, so a name's position is its id
  return Status::Ok();
}

Status Engine::FindJob(const std::string& name, JobId* j) const {
  if (const std::optional<JobId> live = LiveJob(name)) {
    *j = *live;
    return Status::Ok();
  }
  if (const Finished* f = FindFinished(name))
    return Status::FailedPrecondition("job", Quoted(name) + " is no longer live (" +
                                                 std::string(JobOutcomeName(f->outcome)) + ")");
  return Status::NotFound("job", "unknown job " + Quoted(name));
}

std::vector<JobId> Engine::LiveJobs() const {
  const Cluster& c = sched_.cluster();
  std::vector<JobId> live;
  for (JobId j = 0; j < jobs_.size() && j < c.job_capacity(); ++j)
    if (c.job(j).alive) live.push_back(j);
  std::sort(live.begin(), live.end(),
            [&](JobId a, JobId b) { return c.job(a).seq < c.job(b).seq; });
  assert(live.size() == job_ids_.size());
  return live;
}

// The task `task` of the live job `job`.
Status Engine::FindTask(const std::string& job, const std::string& task, TaskId* t) const {
  JobId j;
  if (Status s = FindJob(job, &j); !s.ok()) return s;
  const std::optional<uint32_t> pos = jobs_[j].tasks.Find(task);
  if (!pos) return Status::NotFound("task", "job " + Quoted(job) + " has no task " + Quoted(task));
  *t = sched_.cluster().job(j).tasks[*pos];
  return Status::Ok();
}

// The task named by r.job/r.task, which must be running (on r.machine if given).
Status Engine::FindRunningTask(const Request& r, TaskId* t) const {
  TaskId id;
  if (Status s = FindTask(r.job, r.task, &id); !s.ok()) return s;
  const Task& task = sched_.cluster().task(id);
  if (task.state != TaskState::kRunning)
    return Status::FailedPrecondition(
        "task", Quoted(r.task) + " of job " + Quoted(r.job) + " is not running");
  const std::string_view on = machine_names_.Name(task.machine);
  if (!r.machine.empty() && r.machine != on)
    return Status::FailedPrecondition("machine", "task " + Quoted(r.task) + " runs on " +
                                                     Quoted(on) + ", not " + Quoted(r.machine));
  *t = id;
  return Status::Ok();
}

uint32_t Engine::RackId(const std::string& rack) {
  const auto [it, inserted] = rack_ids_.try_emplace(rack, static_cast<uint32_t>(rack_ids_.size()));
  return it->second;
}

// ---- machines --------------------------------------------------------------

Status Engine::MachineUp(const Request& r, JsonWriter& w) {
  if (r.slots > UINT32_MAX) return Status::InvalidArgument("slots", "must be at most 4294967295");
  const std::optional<uint32_t> known = machine_names_.Find(r.machine);
  if (!known) {
    if (machine_names_.size() >= NameIndex::kMaxNames)
      return Status::ResourceExhausted(
          "machine", "at most " + std::to_string(NameIndex::kMaxNames) + " machines can join");
    Machine m{RackId(r.rack), static_cast<uint32_t>(r.slots)};
    const MachineId id = sched_.AddMachine(std::move(m));
    machine_names_.Add(r.machine);
    assert(id + 1 == machine_names_.size());
    (void)id;
    liveness_.push_back(Liveness{clock_.Now(), false});  // announced counts as heard
    w.Field("new", true);
    return Status::Ok();
  }
  const Machine& m = sched_.cluster().machine(*known);
  const uint32_t rack = r.rack.empty() ? m.rack : RackId(r.rack);
  sched_.UpdateMachine(*known, static_cast<uint32_t>(r.slots), rack);
  if (!m.up || m.draining) sched_.MachineUp(*known);
  liveness_[*known] = Liveness{clock_.Now(), false};
  w.Field("new", false);
  return Status::Ok();
}

Status Engine::MachineDown(const Request& r, JsonWriter& w) {
  MachineId m;
  if (Status s = FindMachine("machine", r.machine, &m); !s.ok()) return s;
  liveness_[m].lost = false;  // down by the operator: only machine_up brings it back
  if (!sched_.cluster().machine(m).up) {
    w.Field("requeued", uint64_t{0});
    return Status::Ok();
  }
  const std::vector<TaskId> lost = sched_.MachineDown(m);
  TakeBack(lost, m);
  if (m < stops_.size()) stops_[m].clear();  // whatever it ran has ended
  Note("machine " + Quoted(r.machine) + " down; " + std::to_string(lost.size()) +
       " running tasks requeued");
  w.Field("requeued", static_cast<uint64_t>(lost.size()));
  return Status::Ok();
}

Status Engine::MachineLost(const Request& r, JsonWriter& w) {
  MachineId m;
  if (Status s = FindMachine("machine", r.machine, &m); !s.ok()) return s;
  if (!sched_.cluster().machine(m).up) {  // down or lost already
    w.Field("requeued", uint64_t{0});
    return Status::Ok();
  }
  const double silent = clock_.Now() - liveness_[m].heard;
  const std::vector<TaskId> lost = sched_.MachineDown(m);  // keeps its draining flag
  TakeBack(lost, m);
  liveness_[m].lost = true;
  ++machines_lost_;
  Note("machine " + Quoted(r.machine) + " lost: no heartbeat for " +
       std::to_string(static_cast<int64_t>(silent)) + " s; " + std::to_string(lost.size()) +
       " running tasks requeued (no retry used)");
  w.Field("requeued", static_cast<uint64_t>(lost.size()));
  return Status::Ok();
}

// The daemon ended these runs of tasks on m without their report: each is requeued
// already; a late report from m about it is stale.
void Engine::TakeBack(std::span<const TaskId> tasks, MachineId m) {
  tasks_requeued_ += tasks.size();
  for (TaskId t : tasks) taken_from_[t] = m;
}

Status Engine::Hear(const std::string& machine, MachineId* m) {
  if (Status s = FindMachine("machine", machine, m); !s.ok()) return s;
  Liveness& l = liveness_[*m];
  revived_ = l.lost;
  if (l.lost) {
    const bool draining = sched_.cluster().machine(*m).draining;
    sched_.MachineUp(*m);  // clears draining, which the machine had before it went silent
    if (draining) sched_.SetDraining(*m, true);
    l.lost = false;
    Note("machine " + Quoted(machine) + " is back: heartbeat after it was lost");
  }
  if (!sched_.cluster().machine(*m).up)
    return Status::FailedPrecondition("machine",
                                      Quoted(machine) + " is down; send machine_up first");
  l.heard = clock_.Now();
  return Status::Ok();
}

void Engine::HearAll() {
  const double now = clock_.Now();
  for (Liveness& l : liveness_) l.heard = now;
}

std::vector<std::string> Engine::SilentSince(double before) const {
  std::vector<std::string> silent;
  for (MachineId m = 0; m < liveness_.size(); ++m)
    if (sched_.cluster().machine(m).up && liveness_[m].heard < before)
      silent.emplace_back(machine_names_.Name(m));
  return silent;
}

std::vector<Engine::RunningTask> Engine::StartedBefore(double before) const {
  const Cluster& c = sched_.cluster();
  std::vector<RunningTask> late;
  // Once a second at most, and only with scheduler.task_timeout_s set: a scan of the table.
  for (TaskId t = 0; t < c.task_capacity() && t < task_started_.size(); ++t) {
    const Task& task = c.task(t);
    if (task.job == kNoId || task.state != TaskState::kRunning || task_started_[t] >= before ||
        !c.machine(task.machine).up)
      continue;
    late.push_back(RunningTask{std::string(JobName(task.job)), std::string(TaskName(t)),
                               std::string(machine_names_.Name(task.machine))});
  }
  return late;
}

Status Engine::MachineDrain(const Request& r, JsonWriter& w) {
  MachineId m;
  if (Status s = FindMachine("machine", r.machine, &m); !s.ok()) return s;
  const Machine& machine = sched_.cluster().machine(m);
  if (!machine.up)
    return Status::FailedPrecondition(
        "machine", Quoted(r.machine) + (liveness_[m].lost ? " is lost" : " is down"));
  sched_.SetDraining(m, r.drain);
  w.Field("running", machine.running);
  return Status::Ok();
}

// ---- jobs ------------------------------------------------------------------

// Checks a job_submit against the state and the limits; fills the replica ids,
// task by task, in request order.
Status Engine::CheckSubmit(const Request& r, std::vector<MachineId>* replicas,
                           NameIndex* names) const {
  if (LiveJob(r.job)) return Status::AlreadyExists("job", Quoted(r.job) + " is already live");
  if (r.tasks.size() > max_tasks_per_job_)
    return Status::ResourceExhausted("tasks", std::to_string(r.tasks.size()) +
                                                  " tasks exceed limits.max_tasks_per_job (" +
                                                  std::to_string(max_tasks_per_job_) + ")");
  names->Reserve(r.tasks.size());
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const TaskRequest& t = r.tasks[i];
    const auto at = [i] { return "tasks[" + std::to_string(i) + "]"; };  // on errors only
    if (!names->Add(t.task))
      return Status::AlreadyExists(at() + ".task", "duplicate task " + Quoted(t.task));
    const size_t first = replicas->size();
    for (size_t k = 0; k < t.replicas.size(); ++k) {
      const auto field = [&] { return at() + ".replicas[" + std::to_string(k) + "]"; };
      const std::optional<uint32_t> m = machine_names_.Find(t.replicas[k]);
      if (!m) return Status::NotFound(field(), "unknown machine " + Quoted(t.replicas[k]));
      if (std::find(replicas->begin() + first, replicas->end(), *m) != replicas->end())
        return Status::InvalidArgument(field(), "duplicate machine " + Quoted(t.replicas[k]));
      replicas->push_back(*m);
    }
  }
  return Status::Ok();
}

Status Engine::CheckJob(const Request& r) const {
  std::vector<MachineId> replicas;
  NameIndex names;
  return CheckSubmit(r, &replicas, &names);
}

Status Engine::JobSubmit(const Request& r, JsonWriter& w) {
  std::vector<MachineId> replicas;
  NameIndex names;
  placed_queue_.clear();
  if (Status s = CheckSubmit(r, &replicas, &names); !s.ok()) return s;
  JobTenancy placement;
  if (Status s = Place(r, &placement); !s.ok()) return s;
  if (replaying_ && !recorded_queue_.empty()) placement.queue = RecordedLeaf(recorded_queue_);
  if (!r.user.empty()) placement.user = sched_.InternUser(r.user);
  std::vector<TaskSpec> specs(r.tasks.size());
  size_t next = 0;
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const TaskRequest& t = r.tasks[i];
    specs[i] =
        TaskSpec{std::span(replicas).subspan(next, t.replicas.size()), t.kind, t.size, t.duration};
    next += t.replicas.size();
  }
  sched_.SetNow(clock_.Now());  // a waiting policy's clock (delay scheduling's wait starts)
  const JobId j = sched_.SubmitJob(r.weight, specs, placement);
  assert(j != kNoId);  // the decoder rejects an empty task list
  IndexJob(r.job, j, std::move(names), clock_.Now());
  if (tenancy()) placed_queue_ = QueueName(j);
  ++jobs_submitted_;
  if (rebalancer_) rebalancer_->OnJobSubmitted(r.tasks.size());
  if (permits_) permits_->OnJobSubmitted(r.tasks.size());
  if (arrivals_) arrivals_->Add(clock_.Now(), specs);
  w.Field("tasks", static_cast<uint64_t>(r.tasks.size()));
  return Status::Ok();
}

// Records the names of a just-submitted job; task ids follow request order.
void Engine::IndexJob(const std::string& name, JobId j, NameIndex names, double submitted_at) {
  const Cluster& c = sched_.cluster();
  if (jobs_.size() < c.job_capacity()) jobs_.resize(c.job_capacity());
  if (task_started_.size() < c.task_capacity()) task_started_.resize(c.task_capacity(), 0);
  if (taken_from_.size() < c.task_capacity()) taken_from_.resize(c.task_capacity(), kNoId);
  for (TaskId t : c.job(j).tasks) taken_from_[t] = kNoId;  // ids of freed jobs are reused
  JobMeta& meta = jobs_[j];
  meta.name = name;
  meta.submitted_at = submitted_at;
  meta.tasks = std::move(names);
  job_ids_.Add(name, j);
  finished_.erase(name);
}

// Drops a job's names once the core has freed it, and remembers how it ended.
void Engine::ForgetJob(JobId j, JobOutcome outcome, DoneTally tally) {
  JobMeta& meta = jobs_[j];
  const double seconds = clock_.Now() - meta.submitted_at;
  if (outcome == JobOutcome::kDone) completion_times_.Observe(seconds);
  Remember(Finished{meta.name, outcome, static_cast<uint32_t>(meta.tasks.size()), seconds,
                    clock_.Now(), tally.done, tally.local});
  job_ids_.Erase(meta.name, j);
  meta = JobMeta{};
  ++(outcome == JobOutcome::kDone     ? jobs_done_
     : outcome == JobOutcome::kFailed ? jobs_failed_
                                      : jobs_cancelled_);
}

// Appends f to the history, then trims it to history.finished_jobs.
void Engine::Remember(Finished f) {
  finished_[f.name] = history_first_ + history_.size();
  history_.push_back(std::move(f));
  TrimHistory();
}

// Drops the oldest finished jobs past history.finished_jobs.
void Engine::TrimHistory() {
  while (history_.size() > history_cap_) {
    const auto it = finished_.find(history_.front().name);
    if (it != finished_.end() && it->second == history_first_) finished_.erase(it);
    history_.pop_front();
    ++history_first_;
  }
}

const Engine::Finished* Engine::FindFinished(const std::string& name) const {
  const auto it = finished_.find(name);
  return it == finished_.end() ? nullptr : &history_[it->second - history_first_];
}

// The finished tasks of live job j, and how many of them ran on a holder.
Engine::DoneTally Engine::TallyDone(JobId j) const {
  DoneTally tally;
  const Cluster& c = sched_.cluster();
  for (const TaskId t : c.job(j).tasks) {
    const Task& task = c.task(t);
    if (task.state != TaskState::kDone) continue;
    ++tally.done;
    tally.local += task.ran_local;
  }
  return tally;
}

Status Engine::JobCancel(const Request& r, JsonWriter& w) {
  JobId j;
  if (Status s = FindJob(r.job, &j); !s.ok()) return s;
  w.Field("tasks", jobs_[j].tasks.size());
  const DoneTally tally = TallyDone(j);
  sched_.CancelJob(j);
  ForgetJob(j, JobOutcome::kCancelled, tally);
  return Status::Ok();
}

Status Engine::Rebalance(const Request&, JsonWriter& w) {
  if (permits_) {
    sched_.SetNow(clock_.Now());
    const PermitRun run = permits_->Run(sched_, clock_.Now(), rates_.alpha(), rates_.gamma());
    WritePermitRun("forced", run, w);
    return Status::Ok();
  }
  if (!rebalancer_)
    return Status::FailedPrecondition("scheduler.policy",
                                      "rebalance needs the jsq-maxweight or late-binding policy "
                                      "(it moves tasks between queues, or lets free machines "
                                      "take a large job's tasks off their holders)");
  RebalanceStats stats;
  if (Status s =
          rebalancer_->RunNow(clock_.Now(), "forced", rates_.alpha(), rates_.gamma(), &stats);
      !s.ok())
    return s;
  WriteRebalanceStats(stats, w);
  return Status::Ok();
}

void Engine::RebalancePermits() {
  if (!permits_ || !rebalance_enabled_) return;
  const double now = clock_.Now();
  if (permits_->Due(now) == nullptr) return;
  sched_.SetNow(now);
  permits_->Run(sched_, now, rates_.alpha(), rates_.gamma());
}

void Engine::WritePermitRun(const char* trigger, const PermitRun& run, JsonWriter& w) const {
  w.Field("trigger", std::string_view(trigger)).Field("jobs", run.jobs);
  w.Field("backlog", run.tasks).Field("permits", run.granted);
}

// ---- heartbeats and tasks --------------------------------------------------

Status Engine::Heartbeat(const Request& r, JsonWriter& w) {
  MachineId m;
  if (Status s = Hear(r.machine, &m); !s.ok()) return s;
  const double now = clock_.Now();
  sched_.SetNow(now);  // policies that wait a time read the workload clock
  PreemptIfStarved(now);
  // The runs it stops free their slots for this reply's assignments.
  const uint64_t stopped = DeliverStops(m, w);
  const Machine& machine = sched_.cluster().machine(m);
  const uint64_t room = machine.slots > machine.running ? machine.slots - machine.running : 0;
  const uint64_t want = std::min<uint64_t>(r.free_slots + stopped, room);
  w.Key("assign").BeginArray();
  assigned_.clear();
  for (uint64_t i = 0; i < want; ++i) {
    const std::optional<Assignment> a = sched_.Assign(m);
    if (!a) break;
    WriteAssignment(*a, NoteStarted(*a, now), w);
    assigned_.push_back(*a);
  }
  w.EndArray();
  return Status::Ok();
}

std::string_view Engine::TaskName(TaskId t) const {
  // The task's position in its job, kept in the record the caller just read.
  const Task& task = sched_.cluster().task(t);
  return jobs_[task.job].tasks.Name(task.position);
}

Status Engine::ReplayAssign(const std::string& machine, std::string_view job, std::string_view task,
                            JsonWriter& w) {
  MachineId m;
  TaskId t;
  if (Status s = FindMachine("machine", machine, &m); !s.ok()) return s;
  if (Status s = FindTask(std::string(job), std::string(task), &t); !s.ok()) return s;
  if (sched_.cluster().task(t).state != TaskState::kQueued)
    return Status::FailedPrecondition("task", Quoted(task) + " is not queued");
  const Assignment a = sched_.AssignTask(t, m);
  WriteAssignment(a, NoteStarted(a, clock_.Now()), w);
  return Status::Ok();
}

// Starts a task's timer (for rate learning), counts its locality and returns it.
Locality Engine::NoteStarted(const Assignment& a, double now) {
  task_started_[a.task] = now;
  ++(a.local ? assigned_local_ : assigned_remote_);
  if (a.local) return Locality::kNode;
  const Locality level = LocalityOf(sched_.cluster(), a.task, a.machine, RacksInUse());
  assigned_rack_ += level == Locality::kRack;
  return level;
}

// A rack-local start also says "rack": true (the agent cannot tell it from "local" alone).
void Engine::WriteAssignment(const Assignment& a, Locality level, JsonWriter& w) const {
  w.BeginObject()
      .Field("job", jobs_[a.job].name)
      .Field("task", TaskName(a.task))
      .Field("local", a.local);
  if (level == Locality::kRack) w.Field("rack", true);
  w.EndObject();
}

Status Engine::TaskStarted(const Request& r, JsonWriter& w) {
  TaskId t;
  if (Status s = FindRunningTask(r, &t); !s.ok()) return s;
  task_started_[t] = clock_.Now();
  w.Field("attempt", sched_.cluster().task(t).attempts);
  return Status::Ok();
}

// A report of a run the daemon already ended (its machine was lost or downed, or it
// failed or timed out) while the task's job is live: acknowledged with "stale", changing
// nothing, so exactly one completion counts and the requeued copy runs on.
bool Engine::StaleReport(const Request& r, JsonWriter& w) {
  TaskId t;
  const std::optional<uint32_t> m = machine_names_.Find(r.machine);
  if (!m || !FindTask(r.job, r.task, &t).ok() || taken_from_[t] != *m) return false;
  const Task& task = sched_.cluster().task(t);
  if (task.state == TaskState::kRunning && task.machine == *m) return false;  // a new run there
  ++stale_reports_;
  w.Field("stale", true);
  Note("stale " + std::string(r.op == Op::kTaskDone ? "task_done" : "task_failed") + " of task " +
       Quoted(r.task) + " of job " + Quoted(r.job) + " from " + Quoted(r.machine) +
       ": that run was taken back; ignored");
  return true;
}

Status Engine::TaskDone(const Request& r, JsonWriter& w) {
  TaskId t;
  if (Status s = FindRunningTask(r, &t); !s.ok()) {
    if (!StaleReport(r, w)) return s;
    w.Field("job_done", false);
    return Status::Ok();
  }
  ObserveDuration(t);
  const Task& task = sched_.cluster().task(t);
  const Job& job = sched_.cluster().job(task.job);
  // The job's last task: tally its tasks while the core still holds them.
  DoneTally tally;
  if (job.done + 1 == job.tasks.size()) {
    tally = TallyDone(task.job);
    ++tally.done;
    tally.local += task.ran_local;
  }
  const Completion c = sched_.Finish(t);
  ++tasks_done_;
  if (c.job_done) ForgetJob(c.job, JobOutcome::kDone, tally);
  w.Field("job_done", c.job_done);
  return Status::Ok();
}

Status Engine::TaskFailed(const Request& r, JsonWriter& w) {
  TaskId t;
  if (Status s = FindRunningTask(r, &t); !s.ok()) {
    if (!StaleReport(r, w)) return s;
    w.Field("retry", false).Field("job_failed", false);
    return Status::Ok();
  }
  ++tasks_failed_;
  const uint32_t attempts = sched_.cluster().task(t).attempts;
  w.Field("attempts", attempts);
  Note("task " + Quoted(r.task) + " of job " + Quoted(r.job) + " failed (attempt " +
       std::to_string(attempts) + ")" + (r.reason.empty() ? "" : ": " + r.reason));
  if (attempts <= max_task_retries_) {
    const MachineId ran_on = sched_.cluster().task(t).machine;
    sched_.Requeue(t);
    const TaskId requeued[] = {t};
    TakeBack(requeued, ran_on);
    w.Field("retry", true).Field("job_failed", false);
    return Status::Ok();
  }
  const JobId j = sched_.cluster().task(t).job;
  const DoneTally tally = TallyDone(j);
  sched_.CancelJob(j);
  ForgetJob(j, JobOutcome::kFailed, tally);
  Note("job " + Quoted(r.job) + " failed: task " + Quoted(r.task) + " used up its " +
       std::to_string(max_task_retries_) + " retries");
  w.Field("retry", false).Field("job_failed", true);
  return Status::Ok();
}

// Feeds the run time of a finished task to the rate estimator, which the
// policy then weighs its queues by.
void Engine::ObserveDuration(TaskId t) {
  if (!learn_rates_) return;
  const Task& task = sched_.cluster().task(t);
  const Locality level = task.ran_local
                             ? Locality::kNode
                             : LocalityOf(sched_.cluster(), t, task.machine, RacksInUse());
  rates_.Observe(level, clock_.Now() - task_started_[t]);
  PushRates();
}

void Engine::PushRates() {
  sched_.SetRates(rates_.alpha(), rates_.gamma());
  if (RacksInUse()) sched_.policy().SetRackRate(rates_.beta());
}

// ---- tenant queues ---------------------------------------------------------

// The job's leaf by the placement rules (tenancy off: the default leaf, whatever the job
// asked). Replay takes the recorded leaf instead (JobSubmit), so no rule is asked.
Status Engine::Place(const Request& r, JobTenancy* out) const {
  const QueueSharing* sharing = sched_.sharing();
  if (sharing == nullptr || replaying_) return Status::Ok();
  const JobOwner owner{r.queue, r.user, groups_.Of(r.user)};
  return sharing->tree().Place(owner, &out->queue);
}

Status Engine::CheckPlacement(const Request& r) const {
  JobTenancy ignored;
  return Place(r, &ignored);
}

// The leaf named `name` in the tree; a name the config no longer has (a journal or
// snapshot written before the config dropped it) is added as a stopped child of root with
// no guarantee, so its jobs keep their queue; FinishRecovery settles it.
uint32_t Engine::RecordedLeaf(std::string_view name) {
  QueueSharing* sharing = sched_.sharing();
  if (sharing == nullptr) return kNoId;
  const QueueTree& tree = sharing->tree();
  if (const std::optional<uint32_t> q = tree.Find(name); q && tree.node(*q).leaf()) return *q;
  QueueTreeSpec spec = tree.spec();
  QueueSpec orphan;
  orphan.name = std::string(name);
  orphan.state = QueueState::kStopped;
  for (const QueueSpec& q : spec.queues)
    if (q.parent == "root") orphan.by_weight = q.by_weight;
  spec.queues.push_back(std::move(orphan));
  QueueTree next;
  Status s = QueueTree::Build(spec, &next);
  if (s.ok()) s = sharing->Reconfigure(std::move(next), /*keep_orphans=*/false, nullptr);
  if (!s.ok()) {
    Note("queue " + Quoted(name) + " of a recovered job cannot be kept (" + s.message() +
         "); the job goes to the default queue");
    return kNoId;
  }
  orphans_ = true;
  return *sharing->tree().Find(name);
}

void Engine::FinishRecovery() {
  QueueSharing* sharing = sched_.sharing();
  if (sharing == nullptr || !orphans_) return;
  orphans_ = false;
  std::optional<QueueTree> tree = TreeOf(queue_config_);
  std::vector<std::string> kept;
  if (Status s = sharing->Reconfigure(std::move(*tree), /*keep_orphans=*/true, &kept); !s.ok()) {
    Note("restoring the configured queue tree after recovery failed: " + s.message());
    return;
  }
  for (const std::string& name : kept)
    Note("queue " + Quoted(name) +
         " is not in the config but holds jobs from before the restart: kept, stopped, "
         "until they finish");
}

Status Engine::ReloadQueues(const QueueConfig& q) {
  QueueSharing* sharing = sched_.sharing();
  if ((sharing != nullptr) != q.enabled())
    return Status::FailedPrecondition(
        "queue", std::string("tenant queues cannot be turned ") + (q.enabled() ? "on" : "off") +
                     " by a reload ([queue.*] tables " + (q.enabled() ? "added" : "removed") +
                     "); restart the daemon");
  if (sharing == nullptr) return Status::Ok();
  QueueTree tree;
  if (Status s = QueueTree::Build(q.spec, &tree); !s.ok()) return s;
  if (Status s = CheckDropped(tree); !s.ok()) return s;
  // Queues a restart kept for their jobs (see FinishRecovery) stay kept while they hold
  // jobs; CheckDropped refused the configured ones.
  if (Status s = sharing->Reconfigure(std::move(tree), /*keep_orphans=*/true, nullptr); !s.ok())
    return s;
  queue_config_ = q;
  groups_ = GroupResolver(users_, q.groups);
  return Status::Ok();
}

// True if `queue` is one of the configured queues (not one a restart kept for its jobs).
bool Engine::Configured(std::string_view queue) const {
  for (const QueueSpec& s : queue_config_.spec.queues)
    if (s.name == queue) return true;
  return false;
}

// A configured leaf that still holds jobs must stay a leaf of the next tree.
Status Engine::CheckDropped(const QueueTree& next) const {
  const QueueSharing& sharing = *sched_.sharing();
  for (uint32_t q : sharing.tree().leaves()) {
    const std::string& name = sharing.tree().node(q).spec.name;
    const std::optional<uint32_t> there = next.Find(name);
    if (!Configured(name) || (there && next.node(*there).leaf())) continue;
    const QueueUsage u = sharing.Usage(q);
    if (const uint32_t jobs = u.running_jobs + u.held_jobs; jobs > 0)
      return Status::FailedPrecondition(
          "queue." + name, std::string(there ? "is no longer a leaf" : "removed") +
                               " while it holds " + std::to_string(jobs) +
                               " jobs; stop it (state = \"stopped\"), let it drain, then " +
                               (there ? "give it children" : "remove it"));
  }
  return Status::Ok();
}

// The name of job j's queue ("default" with tenancy off).
std::string_view Engine::QueueName(JobId j) const {
  const QueueSharing* sharing = sched_.sharing();
  if (sharing == nullptr) return "default";
  return sharing->tree().node(sched_.cluster().job(j).queue).spec.name;
}

}  // namespace locsched
