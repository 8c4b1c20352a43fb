#include "algorithms/sim/simulator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>
#include <sstream>

#include "algorithms/core/scheduler.h"
#include "algorithms/sim/arrival_pipeline.h"
#include "algorithms/sim/jct_bound.h"
#include "algorithms/sim/workload.h"

namespace locsched {
namespace {

// Completion calendar span in slots. Small on purpose: each bucket is written
// one slot and read a few slots later, so a short wheel stays in cache (4096
// buckets measured 16% slower at load 640). Longer runs go to the overflow heap.
constexpr size_t kWheel = 256;
constexpr size_t kTraceBlocks = 100;
// Slots ServeIdle claims before it settles them (see there).
constexpr size_t kClaimRound = 16;

// A running task in the calendar: a wheel bucket implies its slot.
struct Due {
  TaskId task;
  MachineId machine;
};

// A running task due beyond the wheel's span.
struct Finish {
  uint64_t slot;
  Due due;
  bool operator>(const Finish& o) const { return slot > o.slot; }
};

// Online least-squares fit of y against x, for the growth of the backlog.
struct TrendFit {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  void Add(double x, double y) {
    n += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  double Slope() const {
    const double d = n * sxx - sx * sx;
    return d > 0 ? (n * sxy - sx * sy) / d : 0;
  }
};

class Simulation {
 public:
  Simulation(const SimParams& p, const SimReplan& replan);
  SimResult Run(const SimProgress& progress);

 private:
  void CompleteDue(uint64_t t);
  void Arrive(uint64_t t);
  void ServeIdle(uint64_t t);
  void StartClaimed(const Assignment& a, uint64_t t);
  void Record(uint64_t t);
  void Summarize();
  SimSnapshot Snapshot(uint64_t t) const;
  double Locality() const {
    return starts_ ? static_cast<double>(local_starts_) / static_cast<double>(starts_) : 0;
  }

  // A task's drawn run lengths travel in Task::tag as the batch packed them (PackRuns),
  // so a start reads them from the record it loads anyway (kept per job, they were a
  // second cache miss per start and a copy per arrival). A kWideRuns tag sends the
  // start to wide_runs_.
  struct RunLengths {
    uint32_t local = 0, remote = 0;
  };
  bool FillSpecs(uint32_t size);
  void KeepWideRuns(JobId j, uint32_t size);
  void BoundJob(JobId j, uint32_t size, uint64_t t);

  // A measured job's total local run and its own lower bound, for WindowJctBound.
  struct JobBound {
    double work = 0, path = 0;
  };

  SimParams p_;
  SimReplan replan_;
  Scheduler sched_;
  ArrivalPipeline arrivals_;
  const ArrivalBatch* batch_ = nullptr;
  size_t next_job_ = 0, next_task_ = 0, next_wide_ = 0;  // cursors into *batch_
  std::vector<RunLengths> wide_runs_;  // by task id: runs of tasks tagged kWideRuns
  std::vector<uint64_t> started_;      // by task id: the slot it last started (replan only)
  std::vector<std::vector<Due>> wheel_;
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> overflow_;
  std::vector<MachineId> idle_;            // one entry per free slot
  std::array<Claim, kClaimRound> claims_;  // ServeIdle's current round
  std::vector<TaskSpec> specs_;            // reused across arrivals
  std::vector<uint64_t> job_arrival_;      // by job id
  std::vector<JobBound> job_bound_;        // by job id: jobs arrived in the window
  std::vector<double> local_runs_;         // BoundJob's scratch
  uint64_t warmup_;
  uint64_t cap_;
  WindowJctBound bound_;
  // Window accumulators.
  double sum_tasks_ = 0, sum_jobs_ = 0, sum_job_delay_ = 0, sum_task_delay_ = 0;
  double sum_weighted_delay_ = 0, sum_weights_ = 0;
  uint64_t window_slots_ = 0, starts_ = 0, local_starts_ = 0, window_tasks_done_ = 0;
  uint64_t window_finished_ = 0;  // every task finished in the window
  uint64_t tasks_arrived_ = 0;
  TrendFit trend_;
  std::vector<double> block_sum_;
  SimResult r_;
};

Simulation::Simulation(const SimParams& p, const SimReplan& replan)
    : p_(p),
      replan_(replan),
      sched_(p.policy),
      arrivals_(p, p.pipeline),
      wheel_(kWheel),
      warmup_(static_cast<uint64_t>(p.warmup_fraction * static_cast<double>(p.slots))),
      cap_(p.max_backlog ? p.max_backlog : uint64_t{200} * p.machines),
      bound_(static_cast<double>(uint64_t{p.machines} * p.slots_per_machine)),
      block_sum_(kTraceBlocks, 0) {
  for (uint32_t m = 0; m < p.machines; ++m) {
    Machine machine;
    machine.slots = p.slots_per_machine;
    sched_.AddMachine(std::move(machine));
    for (uint32_t s = 0; s < p.slots_per_machine; ++s) idle_.push_back(m);
  }
}

void Simulation::Arrive(uint64_t t) {
  if (batch_ == nullptr || t >= batch_->first_slot + batch_->jobs_per_slot.size()) {
    batch_ = &arrivals_.Next();
    next_job_ = next_task_ = next_wide_ = 0;
  }
  for (uint32_t n = batch_->jobs_per_slot[t - batch_->first_slot]; n > 0; --n) {
    const uint32_t weight = batch_->job_weights[next_job_];
    const uint32_t size = batch_->job_sizes[next_job_++];
    const bool wide = FillSpecs(size);
    const JobId j = sched_.SubmitJob(weight, std::span<const TaskSpec>(specs_.data(), size));
    if (job_arrival_.size() <= j) job_arrival_.resize(j + 1);
    job_arrival_[j] = t;
    if (replan_ && started_.size() < sched_.cluster().task_capacity())
      started_.resize(sched_.cluster().task_capacity());
    if (wide) [[unlikely]]
      KeepWideRuns(j, size);
    if (t >= warmup_) BoundJob(j, size, t);
    next_task_ += size;
    tasks_arrived_ += size;
    ++r_.jobs_arrived;
  }
}

// Writes specs_ for the next `size` tasks of the batch; true if any has wide runs.
bool Simulation::FillSpecs(uint32_t size) {
  if (specs_.size() < size) specs_.resize(size);
  const MachineId* replicas = batch_->replicas.data() + next_task_ * p_.replicas;
  const uint32_t* runs = batch_->runs.data() + next_task_;
  for (uint32_t i = 0; i < size; ++i, replicas += p_.replicas) {
    specs_[i].replicas = std::span<const MachineId>(replicas, p_.replicas);
    specs_[i].tag = runs[i];
  }
  return next_wide_ < batch_->wide.size() && batch_->wide[next_wide_].task < next_task_ + size;
}

// Files the run lengths of job j's tasks whose tags could not hold them.
void Simulation::KeepWideRuns(JobId j, uint32_t size) {
  const std::vector<TaskId>& tasks = sched_.cluster().job(j).tasks;
  for (; next_wide_ < batch_->wide.size(); ++next_wide_) {
    const WideRuns& w = batch_->wide[next_wide_];
    if (w.task >= next_task_ + size) break;
    const TaskId t = tasks[w.task - next_task_];
    if (wide_runs_.size() <= t) wide_runs_.resize(t + 1);
    wide_runs_[t] = RunLengths{w.local, w.remote};
  }
}

// Job j of `size` tasks arrived at t, in the window: its local runs (the least time each
// task can hold a slot; a remote run is drawn from the same uniform, never shorter) give
// its work and its own bound, a whole number of slots as its delay is.
void Simulation::BoundJob(JobId j, uint32_t size, uint64_t t) {
  const uint32_t* runs = batch_->runs.data() + next_task_;
  const std::vector<TaskId>& tasks = sched_.cluster().job(j).tasks;
  local_runs_.resize(size);
  double work = 0;
  for (uint32_t i = 0; i < size; ++i) {
    local_runs_[i] = runs[i] == kWideRuns ? wide_runs_[tasks[i]].local : PackedRun(runs[i], true);
    work += local_runs_[i];
  }
  if (job_bound_.size() <= j) job_bound_.resize(j + 1);
  const uint64_t slots = uint64_t{p_.machines} * p_.slots_per_machine;
  job_bound_[j] = JobBound{work, std::ceil(PhaseBound(local_runs_, slots))};
  bound_.Arrive(static_cast<double>(t), work);
}

void Simulation::CompleteDue(uint64_t t) {
  // Tasks due at t finished at the end of slot t-1: their machines are idle now.
  auto finish = [&](const Due& f) {
    const JobId j = sched_.cluster().task(f.task).job;
    const uint64_t arrival = job_arrival_[j];
    const double weight = sched_.cluster().job(j).weight;  // read before Finish frees the job
    const Completion c = sched_.Finish(f.task);
    idle_.push_back(f.machine);
    ++r_.tasks_done;
    window_finished_ += t >= warmup_;
    if (arrival < warmup_) return;
    sum_task_delay_ += static_cast<double>(t - arrival);
    ++window_tasks_done_;
    if (c.job_done) {
      sum_job_delay_ += static_cast<double>(t - arrival);
      sum_weighted_delay_ += weight * static_cast<double>(t - arrival);
      sum_weights_ += weight;
      ++r_.jobs_done;
      bound_.Done(static_cast<double>(arrival), job_bound_[j].work, job_bound_[j].path, weight);
    }
  };
  std::vector<Due>& bucket = wheel_[t % kWheel];
  for (const Due& f : bucket) finish(f);
  bucket.clear();
  while (!overflow_.empty() && overflow_.top().slot == t) {
    finish(overflow_.top().due);
    overflow_.pop();
  }
}

void Simulation::ServeIdle(uint64_t t) {
  // Each free slot asks the policy once per time slot; a slot that got a task
  // leaves the idle list (swap-remove), one that got nothing stays for the next slot.
  // Claims go in rounds of up to kClaimRound, each then settled and started: a
  // claim's choice never waits for the chosen task's record, so the records of a
  // round load in parallel instead of one after another (docs/benchmarks.md §3).
  size_t i = 0;
  while (i < idle_.size() && sched_.queued() > 0) {
    size_t n = 0;
    while (n < kClaimRound && i < idle_.size() && sched_.queued() > 0) {
      claims_[n] = sched_.ClaimSlot(idle_[i]);
      if (claims_[n].task == kNoId) {
        ++i;
        continue;
      }
      ++n;
      idle_[i] = idle_.back();
      idle_.pop_back();
    }
    for (size_t k = 0; k < n; ++k) StartClaimed(sched_.Settle(claims_[k]), t);
  }
}

// Draws how long an assigned task runs and files its completion.
void Simulation::StartClaimed(const Assignment& a, uint64_t t) {
  const uint32_t tag = sched_.cluster().task(a.task).tag;
  if (replan_) started_[a.task] = t;  // only the LP replan reads it
  uint64_t run = PackedRun(tag, a.local);
  if (tag == kWideRuns) [[unlikely]]
    run = a.local ? wide_runs_[a.task].local : wide_runs_[a.task].remote;
  const uint64_t due = t + run;
  if (due - t < kWheel)
    wheel_[due % kWheel].push_back(Due{a.task, a.machine});
  else
    overflow_.push(Finish{due, Due{a.task, a.machine}});
  if (t >= warmup_) {
    ++starts_;
    local_starts_ += a.local;
  }
}

void Simulation::Record(uint64_t t) {
  const double in_system =
      static_cast<double>(sched_.queued() + sched_.running() + sched_.blocked());
  block_sum_[t * kTraceBlocks / p_.slots] += in_system;
  if (t < warmup_) return;
  ++window_slots_;
  sum_tasks_ += in_system;
  sum_jobs_ += sched_.cluster().live_jobs();
  trend_.Add(static_cast<double>(t), in_system);
}

SimSnapshot Simulation::Snapshot(uint64_t t) const {
  SimSnapshot s;
  s.slot = t;
  s.total = p_.slots;
  s.tasks_in_system = sched_.queued() + sched_.running() + sched_.blocked();
  s.jobs_in_system = sched_.cluster().live_jobs();
  s.locality = Locality();
  return s;
}

SimResult Simulation::Run(const SimProgress& progress) {
  const uint64_t tick = std::max<uint64_t>(1, p_.slots / 200);
  uint64_t t = 0;
  for (; t < p_.slots; ++t) {
    sched_.SetNow(static_cast<double>(t));  // one slot is one time unit (delay_wait in slots)
    CompleteDue(t);
    Arrive(t);
    if (replan_ && t % p_.replan_interval == 0) replan_(sched_, t, started_);
    ServeIdle(t);
    Record(t);
    if (progress && t % tick == 0) progress(Snapshot(t));
    if (sched_.queued() + sched_.running() + sched_.blocked() > cap_) {
      r_.stopped_early = true;
      ++t;
      break;
    }
  }
  r_.slots = t;
  if (progress) progress(Snapshot(t));
  Summarize();
  return r_;
}

void Simulation::Summarize() {
  const double w = static_cast<double>(std::max<uint64_t>(1, window_slots_));
  r_.mean_tasks_in_system = sum_tasks_ / w;
  r_.mean_jobs_in_system = sum_jobs_ / w;
  r_.tasks_in_system_end = sched_.queued() + sched_.running() + sched_.blocked();
  r_.measured = window_slots_ > 0;
  r_.growth = trend_.Slope() * static_cast<double>(window_slots_);
  // Stable: the run reached its end below the backlog cap, and the least-squares
  // rise of tasks in system over the window stays under 30% of their mean plus
  // 0.5% of the tasks that arrived in the window. A backlog that grows slower
  // than that cannot be told from a fluctuation in a run of this length.
  const double arrived_in_window = p_.load * static_cast<double>(window_slots_);
  r_.stable = !r_.stopped_early && r_.measured &&
              r_.growth <= 0.3 * r_.mean_tasks_in_system + 0.005 * arrived_in_window;
  r_.mean_job_delay = r_.jobs_done ? sum_job_delay_ / static_cast<double>(r_.jobs_done) : 0;
  r_.weighted_mean_job_delay = sum_weights_ > 0 ? sum_weighted_delay_ / sum_weights_ : 0;
  const JctBound bound = bound_.Finish(static_cast<double>(r_.slots));
  r_.lower_bound_mean_job_delay = bound.mean;
  r_.lower_bound_critical_path = bound.critical_path_mean;
  r_.lower_bound_srpt = bound.srpt_mean;
  r_.lower_bound_weighted_mean_job_delay = bound.weighted_mean();
  r_.throughput = static_cast<double>(window_finished_) / w;
  r_.mean_task_delay =
      window_tasks_done_ ? sum_task_delay_ / static_cast<double>(window_tasks_done_) : 0;
  r_.locality = Locality();
  r_.offered_load =
      static_cast<double>(tasks_arrived_) / static_cast<double>(std::max<uint64_t>(1, r_.slots));
  r_.mean_job_size = MeanJobSize(p_);
  r_.capacity = Capacity(p_);
  const double per_block = static_cast<double>(p_.slots) / kTraceBlocks;
  for (double s : block_sum_) r_.trace.push_back(s / std::max(1.0, per_block));
  if (r_.stopped_early)
    r_.trace.resize(std::min<size_t>(kTraceBlocks, r_.slots * kTraceBlocks / p_.slots + 1));
}

}  // namespace

uint32_t ParetoCap(const SimParams& p) {
  return p.job_size_max ? p.job_size_max
                        : static_cast<uint32_t>(std::max(1.0, std::ceil(100 * p.job_size_mean)));
}

double MeanJobSize(const SimParams& p) {
  switch (p.size_dist) {
    case JobSizeDist::kFixed:
      return std::max(1.0, std::round(p.job_size_mean));
    case JobSizeDist::kGeometric:
      return std::max(1.0, p.job_size_mean);
    case JobSizeDist::kPareto: {
      // E[S] = sum over k of P(S >= k), with S = min(ceil(X), cap), X ~ Pareto(xm, a).
      const double xm = p.job_size_mean * (p.pareto_shape - 1) / p.pareto_shape;
      double mean = 0;
      for (uint32_t k = 1; k <= ParetoCap(p); ++k)
        mean += k == 1 ? 1.0 : std::min(1.0, std::pow(xm / (k - 1), p.pareto_shape));
      return mean;
    }
  }
  return 1;
}

double Capacity(const SimParams& p) {
  return (p.data_machines * p.policy.alpha + (p.machines - p.data_machines) * p.policy.gamma) *
         p.slots_per_machine;
}

std::string ValidateSimParams(const SimParams& p) {
  std::ostringstream err;
  if (p.machines < 1)
    err << "machines: must be at least 1";
  else if (p.data_machines < 1 || p.data_machines > p.machines)
    err << "data-machines: must be between 1 and machines (" << p.machines << ")";
  else if (p.replicas < 1 || p.replicas > p.data_machines)
    err << "replicas: must be between 1 and data-machines (" << p.data_machines << ")";
  else if (!(p.policy.alpha > 0 && p.policy.alpha <= 1))
    err << "alpha: must be in (0, 1]";
  else if (!(p.policy.gamma > 0 && p.policy.gamma <= p.policy.alpha))
    err << "gamma: must be in (0, alpha]";
  else if (!(p.load > 0) || !std::isfinite(p.load))
    err << "load: must be a positive number";
  else if (p.slots < 1)
    err << "slots: must be at least 1";
  else if (p.slots_per_machine < 1)
    err << "slots-per-machine: must be at least 1";
  else if (!(p.job_size_mean >= 1 && p.job_size_mean <= 1e7))
    err << "job-size-mean: must be between 1 and 10,000,000";
  else if (p.job_size_max > 1000000000)
    err << "job-size-max: must be at most 1,000,000,000";
  else if (p.size_dist == JobSizeDist::kPareto && !(p.pareto_shape > 1))
    err << "pareto-shape: must be greater than 1";
  else if (!(p.warmup_fraction >= 0 && p.warmup_fraction < 1))
    err << "warmup: must be in [0, 1)";
  else if (p.weight_max < 1 || p.weight_max > 1000000)
    err << "weight-max: must be between 1 and 1,000,000";
  else if (p.replan_interval < 1)
    err << "lp-interval: must be at least 1";
  return err.str();
}

SimResult Simulate(const SimParams& params, const SimProgress& progress, const SimReplan& replan) {
  Simulation sim(params, replan);
  return sim.Run(progress);
}

}  // namespace locsched
