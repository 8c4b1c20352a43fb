#include "daemon/rebalancer.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <ctime>

#include "algorithms/core/jsq_maxweight.h"
#include "algorithms/hta/hta_flow.h"

namespace locsched {
namespace {

// CPU time of the calling thread.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

const JsqMaxWeight& Jsq(const Scheduler& sched) {
  return static_cast<const JsqMaxWeight&>(sched.policy());
}

// Most ops logged between runs before the log is dropped for a full listing.
size_t LogLimit(const Scheduler& sched) {
  return 4 * (sched.queued() + sched.cluster().num_machines()) + 65536;
}

void Metric(std::string* out, std::string_view name, std::string_view type, std::string_view help,
            double value) {
  out->append("# HELP locsched_rebalance_").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE locsched_rebalance_").append(name).append(" ").append(type).append("\n");
  out->append("locsched_rebalance_").append(name).append(" ");
  JsonWriter(out).Double(value);
  out->append("\n");
}

}  // namespace

Rebalancer::Rebalancer(Scheduler& sched, const RebalanceConfig& cfg) : sched_(sched), cfg_(cfg) {
  assert(sched.params().kind == PolicyKind::kJsqMaxWeight);
  interval_ = static_cast<double>(cfg_.base_interval_ms) / 1000;
  sched_.SetObserver(this);
  // Tasks and machines it has not seen, or no automatic runs to keep a log for.
  if (!cfg_.enabled || sched.queued() > 0 || sched.cluster().num_machines() > 0) MarkForRebuild();
}

Rebalancer::~Rebalancer() {
  sched_.SetObserver(nullptr);
}

void Rebalancer::ApplyConfig(const RebalanceConfig& cfg) {
  cfg_ = cfg;
  if (!cfg_.enabled) MarkForRebuild();
  interval_ = std::clamp(interval_, static_cast<double>(cfg_.base_interval_ms) / 1000,
                         static_cast<double>(cfg_.max_interval_ms) / 1000);
}

// ---- hooks (event loop) -----------------------------------------------------

void Rebalancer::OnQueued(TaskId t) {
  if (rebuild_) return;
  const Task& task = sched_.cluster().task(t);
  BacklogOp op{BacklogOp::kAdd, static_cast<uint8_t>(task.replicas.size()), t, task.generation,
               static_cast<uint32_t>(replicas_.size())};
  for (MachineId m : task.replicas) replicas_.push_back(static_cast<int>(m));
  ops_.push_back(op);
  if (ops_.size() > LogLimit(sched_)) MarkForRebuild();
}

void Rebalancer::OnUnqueued(TaskId t) {
  if (rebuild_) return;
  ops_.push_back(BacklogOp{BacklogOp::kRemove, 0, t, 0, 0});
  if (ops_.size() > LogLimit(sched_)) MarkForRebuild();
}

void Rebalancer::OnMachineUsable(MachineId m, bool usable) {
  if (rebuild_) return;
  ops_.push_back(BacklogOp{BacklogOp::kMachine, static_cast<uint8_t>(usable), m, 0, 0});
}

void Rebalancer::OnJobSubmitted(uint64_t tasks) {
  if (tasks >= cfg_.big_job_tasks) big_job_ = true;
}

// Drops the log (and its memory); the next Begin lists the whole backlog after
// a reset. While automatic runs are off the log stays dropped: it would cost
// about 28 bytes per queued task for the rare forced run, which lists the
// backlog instead.
void Rebalancer::MarkForRebuild() {
  rebuild_ = true;
  ops_ = {};
  replicas_ = {};
}

// The log of a fresh flow: a reset, every machine, every queued task.
void Rebalancer::LogEverything() {
  rebuild_ = false;
  ops_.push_back(BacklogOp{BacklogOp::kReset, 0, 0, 0, 0});
  const Cluster& c = sched_.cluster();
  for (MachineId m = 0; m < c.num_machines(); ++m)
    OnMachineUsable(m, c.machine(m).up && !c.machine(m).draining);
  for (TaskId t = 0; t < c.task_capacity(); ++t)
    if (c.task(t).job != kNoId && c.task(t).state == TaskState::kQueued) OnQueued(t);
}

// ---- triggers ----------------------------------------------------------------

bool Rebalancer::Imbalanced() const {
  const Cluster& c = sched_.cluster();
  uint64_t usable = 0, total = 0, longest = 0;
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    if (!c.machine(m).up || c.machine(m).draining) continue;
    const uint64_t len = sched_.policy().LocalQueueLength(m);
    ++usable;
    total += len;
    longest = std::max(longest, len);
  }
  if (usable == 0) return false;
  const double mean = static_cast<double>(total) / static_cast<double>(usable);
  return static_cast<double>(longest) > cfg_.imbalance * (mean + 1);
}

const char* Rebalancer::Due(double now) const {
  if (out_ || !cfg_.enabled || now < earliest_) return nullptr;
  const bool changed = rebuild_ || !ops_.empty();
  if (!changed) return nullptr;  // the last result still stands
  if (big_job_) return "big_job";
  if (Imbalanced()) return "imbalance";
  if (now >= next_timer_) return "timer";
  return nullptr;
}

// ---- a run -------------------------------------------------------------------

std::unique_ptr<RebalanceRun> Rebalancer::Begin(double now, const std::string& trigger,
                                                double alpha, double gamma) {
  if (out_) return nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  auto run = std::make_unique<RebalanceRun>();
  if (rebuild_) LogEverything();
  run->ops.swap(ops_);
  run->replicas.swap(replicas_);
  const Cluster& c = sched_.cluster();
  run->running.resize(c.num_machines());
  for (MachineId m = 0; m < c.num_machines(); ++m)
    run->running[m] = static_cast<int>(c.machine(m).running);
  run->costs = HtaCosts{1 / alpha, {1 / gamma}};
  run->started = now;
  run->uncovered_to_remote = cfg_.uncovered_to_remote;
  run->stats.trigger = trigger;
  run->stats.locality_before = Locality();
  run->stats.loop_seconds = Seconds(t0);
  big_job_ = false;
  out_ = true;
  return run;
}

void Rebalancer::Solve(RebalanceRun& run) {
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ThreadCpuSeconds();
  Absorb(run);
  double tasks = 0, up = 0;
  for (int s = 0; s < cover_.servers(); ++s) {
    cover_.SetBase(s, run.running[static_cast<size_t>(s)]);
    if (cover_.up(s)) ++up, tasks += run.running[static_cast<size_t>(s)];
  }
  tasks += cover_.live_tasks();
  // Walk tau only if the assignment may be more than one local task above the
  // average-load lower bound and, unless the backlog drifted by over 10% since
  // the last walk, worse than the last run's (hta_flow.h: walking is the costly part).
  const double bound = up > 0 ? run.costs.w_loc * (std::ceil(tasks / up) + 1) : 0;
  const double live = cover_.live_tasks();
  const bool drifted = std::abs(live - walk_backlog_) * 10 > walk_backlog_ || walk_backlog_ == 0;
  const HtaSolution sol =
      Rebalance(cover_, run.costs, drifted ? bound : std::max(bound, last_load_));
  last_load_ = sol.max_load;
  if (drifted) walk_backlog_ = live;
  EmitMoves(sol.assignment, run);
  run.stats.backlog = static_cast<uint64_t>(cover_.live_tasks());
  run.stats.covered = static_cast<uint64_t>(cover_.flow());
  run.stats.max_load = sol.max_load;
  run.stats.tau = sol.tau;
  run.stats.solve_seconds = Seconds(t0);
  run.stats.solve_cpu_seconds = ThreadCpuSeconds() - cpu0;
}

// Brings the kept flow up to date with the logged changes, in order.
void Rebalancer::Absorb(const RebalanceRun& run) {
  for (const BacklogOp& op : run.ops) {
    switch (op.kind) {
      case BacklogOp::kReset:
        cover_ = MaxCover(0, std::max(cover_.tau(), 1));
        cover_id_.clear();
        task_of_.clear();
        walk_backlog_ = 0;
        break;
      case BacklogOp::kMachine:
        while (cover_.servers() <= static_cast<int>(op.id)) cover_.AddServer();
        cover_.SetServerUp(static_cast<int>(op.id), op.flag != 0);
        break;
      case BacklogOp::kAdd:
        AbsorbAdd(op, run);
        break;
      case BacklogOp::kRemove: {
        assert(op.id < cover_id_.size() && cover_id_[op.id] >= 0);
        cover_.RemoveTask(cover_id_[op.id]);
        cover_id_[op.id] = -1;
        break;
      }
    }
  }
  while (cover_.servers() < static_cast<int>(run.running.size())) cover_.AddServer();
}

void Rebalancer::AbsorbAdd(const BacklogOp& op, const RebalanceRun& run) {
  const auto first = run.replicas.begin() + op.first;
  const int id = cover_.AddTask(std::vector<int>(first, first + op.flag));
  if (cover_id_.size() <= op.id) cover_id_.resize(op.id + 1, -1);
  assert(cover_id_[op.id] == -1);
  cover_id_[op.id] = id;
  if (task_of_.size() <= static_cast<size_t>(id)) task_of_.resize(static_cast<size_t>(id) + 1);
  task_of_[static_cast<size_t>(id)] = CoverTask{op.id, op.generation};
}

// Every live task's target: its server's local queue if local there; else R, or
// (by default) no move, so a task the cover leaves out keeps the queue JSQ chose.
void Rebalancer::EmitMoves(const std::vector<int>& assignment, RebalanceRun& run) const {
  run.moves.clear();
  run.moves.reserve(static_cast<size_t>(cover_.live_tasks()));
  for (int id = 0; id < cover_.task_slots(); ++id) {
    if (!cover_.live(id)) continue;
    const int s = assignment[static_cast<size_t>(id)];
    const std::vector<int>& reps = cover_.replicas(id);
    const bool local = s != MaxCover::kNone && std::find(reps.begin(), reps.end(), s) != reps.end();
    const CoverTask& ct = task_of_[static_cast<size_t>(id)];
    if (!local && !run.uncovered_to_remote) continue;
    run.moves.push_back(RebalanceMove{ct.task, ct.generation,
                                      local ? static_cast<uint32_t>(s) : LocalityQueues::kRemote});
    run.stats.local += local;
  }
}

bool Rebalancer::Apply(RebalanceRun& run, size_t max_moves) {
  const auto t0 = std::chrono::steady_clock::now();
  const Cluster& c = sched_.cluster();
  const size_t end = std::min(run.moves.size(), run.next + max_moves);
  for (; run.next < end; ++run.next) {
    const RebalanceMove& mv = run.moves[run.next];
    const Task& task = c.task(mv.task);
    if (task.state != TaskState::kQueued || task.generation != mv.generation) {
      ++run.stats.stale;
      continue;
    }
    if (task.queue == mv.queue) continue;
    if (mv.queue != LocalityQueues::kRemote &&
        (!c.machine(mv.queue).up || c.machine(mv.queue).draining)) {
      ++run.stats.stale;
      continue;
    }
    sched_.Reroute(mv.task, mv.queue);
    ++run.stats.moved;
  }
  run.stats.loop_seconds += Seconds(t0);
  return run.next == run.moves.size();
}

void Rebalancer::End(RebalanceRun& run, double now) {
  out_ = false;
  if (!cfg_.enabled) MarkForRebuild();  // a forced run: no log until the next one
  run.stats.locality_after = Locality();
  ++runs_;
  moved_total_ += run.stats.moved;
  stale_total_ += run.stats.stale;
  solve_seconds_total_ += run.stats.solve_seconds;
  loop_seconds_total_ += run.stats.loop_seconds;
  // Adaptive timer: double while quiet (a run moved at most 1% of the backlog),
  // back to the base on a burst or a busy run; never above max_share of wall time.
  const double base = static_cast<double>(cfg_.base_interval_ms) / 1000;
  const bool quiet = run.stats.moved * 100 <= run.stats.backlog;
  const bool burst = run.stats.trigger == "big_job" || run.stats.trigger == "imbalance";
  interval_ = quiet && !burst
                  ? std::min(2 * interval_, static_cast<double>(cfg_.max_interval_ms) / 1000)
                  : base;
  next_timer_ = now + interval_;
  // The share counts CPU time: a nice-10 solver waiting for the CPU costs the loop nothing.
  earliest_ = run.started + (run.stats.solve_cpu_seconds + run.stats.loop_seconds) / cfg_.max_share;
  last_ = run.stats;
}

Status Rebalancer::RunNow(double now, const std::string& trigger, double alpha, double gamma,
                          RebalanceStats* stats) {
  std::unique_ptr<RebalanceRun> run = Begin(now, trigger, alpha, gamma);
  if (!run) return Status::FailedPrecondition("rebalance", "a rebalance is already running");
  Solve(*run);
  while (!Apply(*run, SIZE_MAX)) {
  }
  End(*run, now);
  *stats = run->stats;
  return Status::Ok();
}

// ---- views -------------------------------------------------------------------

double Rebalancer::Locality() const {
  const uint64_t queued = sched_.queued();
  if (queued == 0) return 1;
  const uint64_t remote = Jsq(sched_).queues().Length(LocalityQueues::kRemote);
  return static_cast<double>(queued - remote) / static_cast<double>(queued);
}

void Rebalancer::WriteStatus(JsonWriter& w) const {
  w.Key("rebalance").BeginObject();
  w.Field("enabled", cfg_.enabled).Field("running", out_).Field("runs", runs_);
  w.Field("interval_s", interval_);
  w.Key("last").BeginObject();
  WriteRebalanceStats(last_, w);
  w.EndObject().EndObject();
}

void WriteRebalanceStats(const RebalanceStats& s, JsonWriter& w) {
  w.Field("trigger", s.trigger);
  w.Field("solve_ms", s.solve_seconds * 1000).Field("solve_cpu_ms", s.solve_cpu_seconds * 1000);
  w.Field("loop_ms", s.loop_seconds * 1000);
  w.Field("backlog", s.backlog).Field("covered", s.covered).Field("local", s.local);
  w.Field("moved", s.moved).Field("stale", s.stale).Field("max_load", s.max_load);
  w.Field("tau", static_cast<uint64_t>(s.tau));
  w.Field("locality_before", s.locality_before).Field("locality_after", s.locality_after);
}

void Rebalancer::AppendMetrics(std::string* out) const {
  const auto d = [](uint64_t v) { return static_cast<double>(v); };
  Metric(out, "runs_total", "counter", "Rebalance runs.", d(runs_));
  Metric(out, "moved_total", "counter", "Tasks moved to another queue by rebalances.",
         d(moved_total_));
  Metric(out, "stale_total", "counter", "Rebalance moves dropped as no longer valid.",
         d(stale_total_));
  Metric(out, "solve_seconds_total", "counter", "Solver time of all rebalances.",
         solve_seconds_total_);
  Metric(out, "loop_seconds_total", "counter", "Event-loop time of all rebalances.",
         loop_seconds_total_);
  Metric(out, "last_solve_seconds", "gauge", "Solver time of the last rebalance.",
         last_.solve_seconds);
  Metric(out, "last_moved", "gauge", "Tasks the last rebalance moved.", d(last_.moved));
  Metric(out, "last_backlog", "gauge", "Queued tasks the last rebalance saw.", d(last_.backlog));
  Metric(out, "locality_before", "gauge",
         "Share of queued tasks in a replica holder's local queue before the last rebalance.",
         last_.locality_before);
  Metric(out, "locality_after", "gauge",
         "Share of queued tasks in a replica holder's local queue after the last rebalance.",
         last_.locality_after);
  Metric(out, "locality", "gauge", "Share of queued tasks in a replica holder's local queue now.",
         Locality());
}

}  // namespace locsched
