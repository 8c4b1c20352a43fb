#include "algorithms/sim/trace_sim.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <sstream>
#include <unordered_set>

#include "algorithms/core/preemption.h"
#include "algorithms/core/rate_estimator.h"
#include "algorithms/core/scheduler.h"
#include "algorithms/sim/jct_summary.h"
#include "algorithms/sim/sim_lp_planner.h"
#include "base/rng.h"
#include "base/stats.h"

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A running task's end, ordered by time, then by start order (ties break the same way
// on every run).
struct Due {
  double time;
  uint64_t seq;
  uint32_t task;  // workload task index
  MachineId machine;
  bool operator>(const Due& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

enum class Where : uint8_t { kNode, kRack, kOff };

class TraceRun {
 public:
  TraceRun(const TraceWorkload& w, const TraceSimParams& p);
  TraceSimResult Run();

 private:
  void Advance(double t);
  void Step(double t);
  void Complete(const Due& d);
  void Heartbeat(MachineId m);
  void Start(const Assignment& a);
  void Arrive(uint32_t job);
  void MakeQueued(uint32_t task);
  void SetFree(MachineId m, bool free);
  void Mark(MachineId m);
  void PreemptStarved();
  void Stop(TaskId id);
  void DropCancelled();
  Where Locate(uint32_t task, MachineId m, bool local) const;
  double NextHeartbeat() const;
  void SkipHeartbeatsBefore(double t);
  void AfterStep(double t);
  void LpTick(double t);
  void Summarize();
  void ObserveQueues();
  void SummarizeQueues();

  const TraceWorkload& w_;
  const TraceSimParams& p_;
  Scheduler sched_;
  std::vector<double> work_;                      // per task: Exp(1) draw (1 with fixed durations)
  std::vector<double> started_s_;                 // per task: when it started
  std::vector<Where> where_of_;                   // per task: where it runs
  std::vector<uint32_t> job_of_;                  // per task: its job
  std::vector<double> queued_at_;                 // per task: when it became runnable
  std::vector<uint8_t> queued_;                   // per task: runnable and not started
  std::vector<uint32_t> free_holders_;            // per queued task: holders with a free slot
  std::vector<std::vector<uint32_t>> holder_of_;  // per machine: queued tasks it holds (lazy)
  std::vector<uint32_t> free_;                    // per machine: free slots
  std::vector<uint32_t> maps_left_, tasks_left_;  // per job
  std::vector<MachineId> marked_;                 // machines to heartbeat in this step
  std::vector<uint8_t> is_marked_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> running_;
  // Preemption: per task, the seq of its running attempt's Due; the seqs of stopped
  // attempts, whose Dues are dropped when they reach the top; task-seconds of completed
  // runs; per queue index, tasks stopped and their lost task-seconds.
  std::vector<uint64_t> due_seq_;
  std::unordered_set<uint64_t> cancelled_;
  double run_task_s_ = 0;
  std::vector<uint64_t> queue_preempted_;
  std::vector<double> queue_preempted_s_;
  size_t next_job_ = 0;
  uint64_t next_hb_ = 0;  // index of the next periodic heartbeat (machine = index % M)
  uint64_t seq_ = 0;
  double now_ = 0;
  uint64_t idle_queued_ = 0;  // queued tasks with a free replica holder
  uint64_t starts_ = 0, where_[3] = {0, 0, 0};
  double wait_sum_ = 0;
  RateEstimator rates_;
  std::vector<double> started_at_;  // per scheduler TaskId: when it started (LP priority)
  std::unique_ptr<SimLpPlanner> planner_;
  double lp_interval_ = 0, lp_next_at_ = 0;
  uint64_t lp_backlog_at_last_ = 0;
  TraceSimResult r_;
  // Tenant queues (p.queues): per queue index, starts and node-local starts, the peak of
  // running tasks, and the guarantee meter over the leaves.
  std::vector<uint64_t> queue_starts_, queue_local_;
  std::vector<uint32_t> queue_peak_;
  std::unique_ptr<QueueMeter> meter_;
};

TraceRun::TraceRun(const TraceWorkload& w, const TraceSimParams& p)
    : w_(w),
      p_(p),
      sched_(p.policy, p.queues ? std::optional<QueueTree>(*p.queues) : std::nullopt),
      started_s_(w.num_tasks(), 0),
      where_of_(w.num_tasks(), Where::kNode),
      queued_at_(w.num_tasks(), 0),
      queued_(w.num_tasks(), 0),
      free_holders_(w.num_tasks(), 0),
      holder_of_(p.cluster.machines),
      free_(p.cluster.machines, p.cluster.slots_per_machine),
      is_marked_(p.cluster.machines, 0),
      rates_(p.policy.alpha, p.policy.gamma, std::max<uint64_t>(1, w.num_tasks()), p.policy.beta) {
  const TraceClusterModel& c = p.cluster;
  for (uint32_t m = 0; m < c.machines; ++m) {
    Machine machine;
    machine.slots = c.slots_per_machine;
    machine.rack = c.racks > 1 ? static_cast<uint32_t>(uint64_t{m} * c.racks / c.machines) : 0;
    sched_.AddMachine(machine);
  }
  // Durations are drawn up front, in task order: they do not depend on the policy.
  DrawTraceTasks(w, c.fixed_durations, p.seed, &job_of_, &work_, &maps_left_, &tasks_left_);
  r_.jobs = w.jobs.size();
  r_.tasks = w.num_tasks();
  r_.jct_s.assign(w.jobs.size(), -1);
  if (p.lp.enabled) {
    planner_ =
        std::make_unique<SimLpPlanner>(p.policy.alpha, p.policy.gamma, p.lp.options, p.lp.classes);
    lp_interval_ = p.lp.base_interval_s;
    lp_next_at_ = lp_interval_;
  }
  if (p.hook) p.hook->Attach(sched_);
  if (p.preemption_timeout_s > 0) due_seq_.assign(w.num_tasks(), 0);
  if (p.queues) {
    const QueueTree& tree = *p.queues;
    queue_starts_.assign(tree.size(), 0);
    queue_local_.assign(tree.size(), 0);
    queue_peak_.assign(tree.size(), 0);
    queue_preempted_.assign(tree.size(), 0);
    queue_preempted_s_.assign(tree.size(), 0);
    const uint32_t capacity = c.machines * c.slots_per_machine;
    std::vector<uint32_t> guarantee;
    for (uint32_t q : tree.leaves())
      guarantee.push_back(static_cast<uint32_t>(tree.node(q).guaranteed * capacity + 1e-9));
    meter_ = std::make_unique<QueueMeter>(std::move(guarantee), capacity);
  }
}

// Feeds the meter each leaf's held slots and admitted demand after an instant's events.
void TraceRun::ObserveQueues() {
  const QueueSharing& qs = *sched_.sharing();
  const std::span<const uint32_t> leaves = qs.tree().leaves();
  std::vector<uint32_t> held(leaves.size()), demand(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    const QueueUsage u = qs.Usage(leaves[i]);
    held[i] = u.running_tasks;
    demand[i] = u.running_tasks + u.pending_tasks - u.held_tasks;
  }
  for (uint32_t q = 1; q < qs.tree().size(); ++q)
    queue_peak_[q] = std::max(queue_peak_[q], qs.Usage(q).running_tasks);
  meter_->Observe(now_, held, demand);
}

// The periodic heartbeat with index i is machine i % M's, at (i + 1) * period / M.
double TraceRun::NextHeartbeat() const {
  return static_cast<double>(next_hb_ + 1) * p_.cluster.heartbeat_s / p_.cluster.machines;
}

void TraceRun::SkipHeartbeatsBefore(double t) {
  const double per = p_.cluster.heartbeat_s / p_.cluster.machines;
  const auto first = static_cast<uint64_t>(std::max(0.0, std::ceil(t / per) - 1));
  next_hb_ = std::max(next_hb_, first);
  while (NextHeartbeat() < t) ++next_hb_;
}

// Adds the queued tasks' idle-holder time up to t.
void TraceRun::Advance(double t) {
  r_.idle_holder_task_s += static_cast<double>(idle_queued_) * (t - now_);
  now_ = t;
  sched_.SetNow(t);
}

void TraceRun::SetFree(MachineId m, bool free) {
  std::vector<uint32_t>& held = holder_of_[m];
  size_t keep = 0;
  for (const uint32_t t : held) {
    if (!queued_[t]) continue;  // started since: dropped here, lazily
    held[keep++] = t;
    if (free) {
      idle_queued_ += free_holders_[t]++ == 0;
    } else {
      idle_queued_ -= --free_holders_[t] == 0;
    }
  }
  held.resize(keep);
}

void TraceRun::MakeQueued(uint32_t t) {
  queued_[t] = 1;
  queued_at_[t] = now_;
  uint32_t n = 0;
  for (uint32_t k = w_.replica_begin[t]; k < w_.replica_begin[t + 1]; ++k) {
    const MachineId m = w_.replicas[k];
    n += free_[m] > 0;
    holder_of_[m].push_back(t);
  }
  free_holders_[t] = n;
  idle_queued_ += n > 0;
}

void TraceRun::Arrive(uint32_t j) {
  const TraceJob& job = w_.jobs[j];
  std::vector<TaskSpec> specs(job.tasks);
  for (uint32_t i = 0; i < job.tasks; ++i) {
    const uint32_t t = job.first_task + i;
    const uint32_t b = w_.replica_begin[t], e = w_.replica_begin[t + 1];
    specs[i].replicas = std::span<const MachineId>(w_.replicas.data() + b, e - b);
    specs[i].kind = w_.kinds[t];
    specs[i].tag = t;
  }
  const uint32_t queue = j < p_.job_queues.size() ? p_.job_queues[j] : kNoId;
  sched_.SubmitJob(w_.weights.empty() ? 1 : w_.weights[j], specs, JobTenancy{queue, kNoId});
  if (p_.hook) p_.hook->OnJobSubmitted(job.tasks);
  for (uint32_t i = 0; i < job.tasks; ++i) {
    const uint32_t t = job.first_task + i;
    if (w_.kinds[t] == TaskKind::kMap || maps_left_[j] == 0) MakeQueued(t);
  }
}

Where TraceRun::Locate(uint32_t t, MachineId m, bool local) const {
  if (local) return Where::kNode;
  if (p_.cluster.racks <= 1) return Where::kOff;
  const uint32_t rack = sched_.cluster().machine(m).rack;
  for (uint32_t k = w_.replica_begin[t]; k < w_.replica_begin[t + 1]; ++k)
    if (sched_.cluster().machine(w_.replicas[k]).rack == rack) return Where::kRack;
  return Where::kOff;
}

void TraceRun::Start(const Assignment& a) {
  const uint32_t t = sched_.cluster().task(a.task).tag;
  queued_[t] = 0;
  idle_queued_ -= free_holders_[t] > 0;
  wait_sum_ += now_ - queued_at_[t];
  if (planner_) {
    if (a.task >= started_at_.size()) started_at_.resize(a.task + 1, 0);
    started_at_[a.task] = now_;
  }
  const Where where = Locate(t, a.machine, a.local);
  if (meter_) {
    const uint32_t q = sched_.cluster().job(a.job).queue;
    ++queue_starts_[q];
    queue_local_[q] += where == Where::kNode;
  }
  ++starts_;
  ++where_[static_cast<int>(where)];
  started_s_[t] = now_;
  where_of_[t] = where;
  const TraceClusterModel& c = p_.cluster;
  const double slow = where == Where::kNode   ? 1
                      : where == Where::kRack ? RackSlowdown(c)
                                              : c.remote_slowdown;
  if (!due_seq_.empty()) due_seq_[t] = seq_;
  running_.push(Due{now_ + work_[t] * c.local_mean_s * slow, seq_++, a.task, a.machine});
  if (--free_[a.machine] == 0) SetFree(a.machine, false);
}

void TraceRun::Heartbeat(MachineId m) {
  if (free_[m] == 0 || sched_.queued() == 0) return;
  ++r_.heartbeats;
  for (uint32_t n = free_[m]; n > 0; --n) {
    const std::optional<Assignment> a = sched_.Assign(m);
    if (!a) break;
    Start(*a);
  }
}

void TraceRun::Complete(const Due& d) {
  const uint32_t t = sched_.cluster().task(d.task).tag;
  const uint32_t j = job_of_[t];
  sched_.Finish(d.task);
  ++r_.tasks_done;
  run_task_s_ += now_ - started_s_[t];
  constexpr Locality kLevel[] = {Locality::kNode, Locality::kRack, Locality::kOffRack};
  rates_.Observe(kLevel[static_cast<int>(where_of_[t])], now_ - started_s_[t]);
  if (free_[d.machine]++ == 0) SetFree(d.machine, true);
  Mark(d.machine);
  const TraceJob& job = w_.jobs[j];
  if (w_.kinds[t] == TaskKind::kMap && --maps_left_[j] == 0) {
    for (uint32_t u = job.first_task; u < job.first_task + job.tasks; ++u)
      if (w_.kinds[u] == TaskKind::kReduce) MakeQueued(u);  // the core released them too
  }
  if (--tasks_left_[j] == 0) {
    r_.jct_s[j] = now_ - job.submit_s;
    ++r_.jobs_done;
    r_.makespan_s = now_;
  }
}

// Machine m heartbeats in this instant's round.
void TraceRun::Mark(MachineId m) {
  if (is_marked_[m]) return;
  is_marked_[m] = 1;
  marked_.push_back(m);
}

// Runs PlanPreemption's round: keeps the free slots it names and stops its victims; their
// machines heartbeat in this instant.
void TraceRun::PreemptStarved() {
  const PreemptionPlan plan =
      PlanPreemption(sched_, p_.preemption_timeout_s, p_.preemption_kill_wait_s);
  for (const MachineId m : plan.keep) {
    sched_.KeepSlot(m);
    Mark(m);
  }
  for (const TaskId id : plan.victims) Stop(id);
}

// Preempts running task id: its completion is dropped, its slot freed and its machine
// marked, and it is queued again as the core requeued it; the run time lost is counted.
void TraceRun::Stop(TaskId id) {
  const Task& task = sched_.cluster().task(id);
  const uint32_t t = task.tag;
  const MachineId m = task.machine;
  const uint32_t q = sched_.cluster().job(task.job).queue;
  sched_.Preempt(id);
  cancelled_.insert(due_seq_[t]);
  const double lost = now_ - started_s_[t];
  ++r_.preempted_tasks;
  r_.preempted_task_s += lost;
  ++queue_preempted_[q];
  queue_preempted_s_[q] += lost;
  if (free_[m]++ == 0) SetFree(m, true);
  // Its entries in its holders' lists are stale since it started; MakeQueued adds new ones.
  for (uint32_t k = w_.replica_begin[t]; k < w_.replica_begin[t + 1]; ++k) {
    std::vector<uint32_t>& held = holder_of_[w_.replicas[k]];
    held.erase(std::remove(held.begin(), held.end(), t), held.end());
  }
  MakeQueued(t);
  Mark(m);
}

// Pops the stopped attempts' completions off the top of the event queue.
void TraceRun::DropCancelled() {
  while (!cancelled_.empty() && !running_.empty() && cancelled_.erase(running_.top().seq) > 0)
    running_.pop();
}

// Everything due at t, in the emulator's order: completions (each machine marked to
// heartbeat), arrivals, preemption (its machines marked too), then heartbeats of the
// marked machines and the periodic ones due.
void TraceRun::Step(double t) {
  Advance(t);
  for (DropCancelled(); !running_.empty() && running_.top().time <= t; DropCancelled()) {
    const Due d = running_.top();
    running_.pop();
    Complete(d);
  }
  while (next_job_ < w_.jobs.size() && w_.jobs[next_job_].submit_s <= t) Arrive(next_job_++);
  if (p_.preemption_timeout_s > 0) PreemptStarved();
  while (NextHeartbeat() <= t) Mark(static_cast<MachineId>(next_hb_++ % p_.cluster.machines));
  for (const MachineId m : marked_) {
    is_marked_[m] = 0;
    Heartbeat(m);
  }
  marked_.clear();
}

TraceSimResult TraceRun::Run() {
  const double last_submit = w_.jobs.empty() ? 0 : w_.jobs.back().submit_s;
  const double limit = last_submit + p_.cluster.drain_limit_s;
  for (;;) {
    DropCancelled();
    const double completion = running_.empty() ? kInf : running_.top().time;
    const double arrival = next_job_ < w_.jobs.size() ? w_.jobs[next_job_].submit_s : kInf;
    double t = std::min(completion, arrival);
    // Periodic heartbeats matter only while tasks wait; otherwise they are skipped.
    if (sched_.queued() > 0) t = std::min(t, NextHeartbeat());
    if (t == kInf || t > limit) break;
    if (sched_.queued() == 0) SkipHeartbeatsBefore(t);
    Step(t);
    AfterStep(t);
    if (meter_) ObserveQueues();
  }
  Summarize();
  if (meter_) SummarizeQueues();
  return r_;
}

// What the daemon's loop does after a burst: the LP's timer, then the hook's (rebalancing).
void TraceRun::AfterStep(double t) {
  if (planner_) LpTick(t);
  if (p_.hook) p_.hook->AfterStep(sched_, t);
}

// The daemon's LpPlanner::Tick on the simulated clock (the solve itself takes no time).
void TraceRun::LpTick(double t) {
  const uint64_t backlog = sched_.queued() + sched_.blocked();
  const bool burst = backlog >= lp_backlog_at_last_ + p_.lp.burst_tasks;
  if (burst) lp_interval_ = p_.lp.base_interval_s;
  if (!burst && t < lp_next_at_) return;
  planner_->ReplanAt(sched_, t, started_at_);
  lp_backlog_at_last_ = backlog;
  lp_interval_ = std::min(lp_interval_ * p_.lp.growth, p_.lp.max_interval_s);
  lp_next_at_ = t + lp_interval_;
}

void TraceRun::Summarize() {
  if (planner_) {
    r_.lp_solves = planner_->solves();
    r_.lp_failures = planner_->failures();
  }
  SummarizeJct(w_, work_, p_.cluster, &r_);
  const double starts = static_cast<double>(std::max<uint64_t>(1, starts_));
  r_.mean_task_wait_s = starts_ ? wait_sum_ / starts : 0;
  r_.locality = static_cast<double>(where_[0]) / starts;
  r_.rack_local = static_cast<double>(where_[1]) / starts;
  r_.off_rack = static_cast<double>(where_[2]) / starts;
  r_.learnt_alpha = rates_.alpha();
  r_.learnt_beta = rates_.beta();
  r_.learnt_gamma = rates_.gamma();
  r_.local_done = rates_.local_samples();
  r_.rack_done = rates_.rack_samples();
  r_.off_rack_done = rates_.remote_samples();
  r_.span_s = w_.jobs.empty() ? 0 : w_.jobs.back().submit_s;
  r_.throughput = r_.makespan_s > 0 ? static_cast<double>(r_.tasks_done) / r_.makespan_s : 0;
  double work = 0;
  for (const double x : work_) work += x * p_.cluster.local_mean_s;
  const double slot_s = static_cast<double>(p_.cluster.machines) * p_.cluster.slots_per_machine *
                        std::max(r_.span_s, p_.cluster.local_mean_s);
  r_.offered_load = work / slot_s;
  r_.stable =
      r_.jobs_done == r_.jobs && r_.makespan_s <= r_.span_s + std::max(1800.0, r_.span_s / 2);
  const double task_s = run_task_s_ + r_.preempted_task_s;
  r_.preempted_share = task_s > 0 ? r_.preempted_task_s / task_s : 0;
}

// Each leaf's figures: its jobs' JCTs, locality, peak and the meter's.
void TraceRun::SummarizeQueues() {
  const QueueSharing& qs = *sched_.sharing();
  const QueueTree& tree = qs.tree();
  std::vector<QueueMeterResult> meter = meter_->Finish(now_);
  std::vector<std::vector<double>> jct(tree.size());
  for (uint32_t j = 0; j < w_.jobs.size(); ++j) {
    const uint32_t asked = j < p_.job_queues.size() ? p_.job_queues[j] : kNoId;
    const bool leaf = asked < tree.size() && asked != 0 && tree.node(asked).leaf();
    const uint32_t q = leaf ? asked : tree.default_leaf();
    jct[q].push_back(r_.jct_s[j]);
  }
  const std::span<const uint32_t> leaves = tree.leaves();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const uint32_t q = leaves[i];
    TraceQueueResult out;
    out.name = tree.node(q).spec.name;
    out.guarantee = tree.node(q).guaranteed;
    out.maximum = tree.node(q).maximum;
    out.max_slots = qs.MaxSlots(q);
    out.peak_running = queue_peak_[q];
    out.jobs = jct[q].size();
    std::vector<double> done;
    for (double x : jct[q])
      if (x >= 0) done.push_back(x);
    out.jobs_done = done.size();
    out.mean_jct_s = MeanOf(done);
    out.p95_jct_s = Quantile(done, 0.95);
    out.locality = queue_starts_[q] ? double(queue_local_[q]) / double(queue_starts_[q]) : 0;
    out.meter = std::move(meter[i]);
    out.preempted_tasks = queue_preempted_[q];
    out.preempted_task_s = queue_preempted_s_[q];
    r_.queues.push_back(std::move(out));
  }
}

// True if the policy orders jobs by an LP's ranks (Policy::SetPriorityOrder).
bool LpOrdered(const PolicyParams& p) {
  if (p.kind == PolicyKind::kJsqMaxWeight) return p.intra == IntraQueue::kPriority;
  return p.kind == PolicyKind::kLateBinding && p.job_order == JobOrder::kLp;
}

}  // namespace

double RackSlowdown(const TraceClusterModel& c) {
  return c.rack_slowdown > 0 ? c.rack_slowdown : std::sqrt(c.remote_slowdown);
}

uint32_t TraceWorkload::AddJob(double submit_s) {
  jobs.push_back(TraceJob{submit_s, num_tasks(), 0});
  return static_cast<uint32_t>(jobs.size() - 1);
}

void TraceWorkload::AddTask(TaskKind kind, const std::vector<MachineId>& task_replicas) {
  kinds.push_back(kind);
  replicas.insert(replicas.end(), task_replicas.begin(), task_replicas.end());
  replica_begin.push_back(static_cast<uint32_t>(replicas.size()));
  ++jobs.back().tasks;
}

std::string ValidateTraceSim(const TraceWorkload& w, const TraceSimParams& p) {
  const TraceClusterModel& c = p.cluster;
  std::ostringstream err;
  if (c.machines < 1)
    err << "machines: must be at least 1";
  else if (c.slots_per_machine < 1)
    err << "slots-per-machine: must be at least 1";
  else if (c.racks > c.machines)
    err << "racks: must be at most machines (" << c.machines << ")";
  else if (!(c.local_mean_s > 0) || !std::isfinite(c.local_mean_s))
    err << "local-mean: must be a positive number of seconds";
  else if (!(c.remote_slowdown >= 1) || !std::isfinite(c.remote_slowdown))
    err << "remote-slowdown: must be at least 1";
  else if (c.rack_slowdown != 0 && !(c.rack_slowdown >= 1 && c.rack_slowdown <= c.remote_slowdown))
    err << "rack-slowdown: must be between 1 and remote-slowdown (or 0: sqrt(remote-slowdown))";
  else if (!(c.heartbeat_s > 0) || !std::isfinite(c.heartbeat_s))
    err << "heartbeat: must be a positive number of seconds";
  else if (!(p.policy.delay_wait >= 0) || !std::isfinite(p.policy.delay_wait))
    err << "delay-wait: must be a non-negative number of seconds";
  else if (const std::string yarn = CheckYarnLocality(p.policy); !yarn.empty())
    err << yarn;
  else if (!(p.preemption_timeout_s >= 0) || !std::isfinite(p.preemption_timeout_s))
    err << "preemption-timeout: must be a non-negative number of seconds";
  else if (p.preemption_timeout_s > 0 && p.queues == nullptr)
    err << "preemption-timeout: preempts for tenant queues; give --queues or --tenants";
  else if (!(p.preemption_kill_wait_s >= 0) || !std::isfinite(p.preemption_kill_wait_s))
    err << "preemption-kill-wait: must be a non-negative number of seconds";
  else if (p.lp.enabled && !LpOrdered(p.policy))
    err << "lp-priority: the LP's order needs jsq-maxweight's priority intra order or "
           "late-binding's lp job order";
  else if (p.lp.enabled &&
           !(p.lp.base_interval_s > 0 && p.lp.base_interval_s <= p.lp.max_interval_s))
    err << "lp-every: must be a positive number of seconds";
  if (!err.str().empty()) return err.str();
  if (!w.weights.empty() && w.weights.size() != w.jobs.size()) return "weights: one per job";
  if (!p.job_queues.empty() && p.job_queues.size() != w.jobs.size())
    return "queues: one queue per job";
  for (const double weight : w.weights)
    if (!(weight > 0) || !std::isfinite(weight)) return "weights: must be positive";
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    if (j > 0 && w.jobs[j].submit_s < w.jobs[j - 1].submit_s)
      return "trace: job " + std::to_string(j) + " is submitted before the job ahead of it";
    if (!(w.jobs[j].submit_s >= 0)) return "trace: job " + std::to_string(j) + " has no time";
  }
  for (const MachineId m : w.replicas)
    if (m >= c.machines)
      return "machines: a task's replica is machine " + std::to_string(m) + ", beyond " +
             std::to_string(c.machines) + " machines";
  return "";
}

void DrawTraceTasks(const TraceWorkload& w, bool fixed_durations, uint64_t seed,
                    std::vector<uint32_t>* job_of, std::vector<double>* work,
                    std::vector<uint32_t>* maps_left, std::vector<uint32_t>* tasks_left) {
  Rng rng(DurationSeed(seed));
  job_of->assign(w.num_tasks(), 0);
  work->assign(w.num_tasks(), 1);
  maps_left->assign(w.jobs.size(), 0);
  tasks_left->assign(w.jobs.size(), 0);
  for (uint32_t j = 0; j < w.jobs.size(); ++j) {
    const TraceJob& job = w.jobs[j];
    for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t) {
      (*job_of)[t] = j;
      if (!fixed_durations) (*work)[t] = -std::log(rng.Unit());
      (*maps_left)[j] += w.kinds[t] == TaskKind::kMap;
    }
    (*tasks_left)[j] = job.tasks;
  }
}

TraceSimResult SimulateTrace(const TraceWorkload& w, const TraceSimParams& p) {
  TraceRun run(w, p);
  return run.Run();
}

}  // namespace locsched
