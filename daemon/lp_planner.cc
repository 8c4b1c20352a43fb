#include "daemon/lp_planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "algorithms/lp/capacity_flow.h"

namespace locsched {

// ---- planner -----------------------------------------------------------------

// What one solve reads (built on the loop) and writes (on the worker).
struct LpPlanner::Snapshot {
  BacklogInstance backlog;
  std::vector<uint64_t> seqs;  // by job id: the arrival seq each ordered job had
  CapacityInstance capacity;
  BacklogLpOptions options;
  double started_at = 0;  // engine clock
  Status status;
  BacklogLpResult result;
  Status capacity_status;
  CapacityResult capacity_result;
  double solve_s = 0;    // worker wall time of both LPs
  double backlog_s = 0;  // of which the backlog LP
  double loop_s = 0;     // event-loop time taking the snapshot
};

namespace {

using Steady = std::chrono::steady_clock;

double SecondsSince(Steady::time_point t0) {
  return std::chrono::duration<double>(Steady::now() - t0).count();
}

constexpr size_t kExactTypes = 64;  // arrival types the capacity LP keeps exact
constexpr size_t kMaxIntervals = 40;

// Prometheus text; NaN where a value is not known yet.
void Metric(std::string* out, std::string_view name, std::string_view type, std::string_view help,
            double value) {
  out->append("# HELP locsched_").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE locsched_").append(name).append(" ").append(type).append("\n");
  out->append("locsched_").append(name).append(" ");
  if (std::isfinite(value))
    JsonWriter(out).Double(value);
  else
    out->append(std::isnan(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf");
  out->append("\n");
}

}  // namespace

LpPlanner::LpPlanner(Engine& engine, ArrivalWindow& arrivals, const LpConfig& cfg,
                     Executor executor)
    : engine_(engine),
      cfg_(cfg),
      executor_(std::move(executor)),
      arrivals_(arrivals),
      interval_(cfg.base_interval_s) {
  if (!executor_)
    executor_ = [](std::function<void()> work, std::function<void()> done) {
      work();
      done();
    };
  arrivals_.SetWindow(cfg.headroom_window_s);
  next_at_ = engine_.Now() + interval_;
}

void LpPlanner::ApplyConfig(const LpConfig& cfg) {
  cfg_ = cfg;
  arrivals_.SetWindow(cfg.headroom_window_s);
  interval_ = cfg.base_interval_s;
  next_at_ = std::min(next_at_, engine_.Now() + interval_);
}

bool LpPlanner::Start() {
  if (busy_) return false;
  const auto began = Steady::now();
  auto snap = std::make_shared<Snapshot>();
  snap->backlog = BuildBacklog(&snap->seqs);
  snap->capacity = BuildCapacity();
  snap->loop_s = SecondsSince(began);
  snap->options = {.epsilon = cfg_.epsilon,
                   .max_jobs = cfg_.max_jobs,
                   .max_intervals = kMaxIntervals,
                   .time_limit_ms = static_cast<double>(cfg_.time_limit_ms)};
  snap->started_at = last_started_ = engine_.Now();
  const Scheduler& s = engine_.scheduler();
  queued_at_last_ = s.queued() + s.blocked();
  busy_ = true;
  std::shared_ptr<BacklogLpSolver> solver = solver_;
  executor_(
      [snap, solver] {
        const auto t0 = Steady::now();
        snap->status = solver->Solve(snap->backlog, snap->options, &snap->result);
        const auto t1 = Steady::now();
        snap->capacity_status = SolveCapacityFlow(snap->capacity, &snap->capacity_result);
        snap->backlog_s = std::chrono::duration<double>(t1 - t0).count();
        snap->solve_s = std::chrono::duration<double>(Steady::now() - t0).count();
        ReleaseLpThreadState();  // GLPK keeps per-thread state; a worker must not leak it
      },
      [this, snap] { Finish(*snap); });
  return true;
}

// A burst (many tasks since the last solve) resets the interval and solves at
// once, but never faster than the solver's share of wall time allows.
void LpPlanner::Tick() {
  if (busy_) return;
  const double now = engine_.Now();
  const Scheduler& s = engine_.scheduler();
  const bool burst = s.queued() + s.blocked() >= queued_at_last_ + cfg_.burst_tasks;
  const double share_ok_at = last_started_ + last_solve_s_ / cfg_.max_share;
  if (burst && interval_ > cfg_.base_interval_s) {
    interval_ = cfg_.base_interval_s;
    ++bursts_;
  }
  if ((burst || now >= next_at_) && now >= share_ok_at) Start();
}

// The shared snapshot (algorithms/backlog_snapshot) over the engine's clock and rates.
BacklogInstance LpPlanner::BuildBacklog(std::vector<uint64_t>* seqs) const {
  const BacklogClock clock{.alpha = engine_.rates().alpha(),
                           .gamma = engine_.rates().gamma(),
                           .now = engine_.Now(),
                           .classes = cfg_.classes,
                           .started_at = [this](TaskId t) { return engine_.TaskStartedAt(t); }};
  return SnapshotBacklog(engine_.scheduler().cluster(), clock, seqs);
}

CapacityInstance LpPlanner::BuildCapacity() {
  const Cluster& c = engine_.scheduler().cluster();
  CapacityInstance in;
  in.alpha = engine_.rates().alpha();
  in.gamma = std::min(engine_.rates().gamma(), in.alpha);
  for (MachineId m = 0; m < c.num_machines(); ++m)
    in.slots.push_back(c.machine(m).up && !c.machine(m).draining ? c.machine(m).slots : 0);
  in.types = arrivals_.Rates(engine_.Now(), kExactTypes);
  return in;
}

void LpPlanner::Finish(const Snapshot& s) {
  const auto t0 = Steady::now();
  busy_ = false;
  solver_seconds_ += s.solve_s;
  last_solve_s_ = s.solve_s;
  last_backlog_s_ = s.backlog_s;
  capacity_ok_ = s.capacity_status.ok();
  if (capacity_ok_) capacity_ = s.capacity_result;
  if (s.status.ok()) {
    ++solves_;
    warm_ += s.result.warm;
    last_ = s.result;
    last_error_.clear();
    ApplyOrder(s);
  } else {
    ++(s.result.overrun ? overruns_ : failures_);
    last_error_ = s.status.message();  // the last good order stays in force
  }
  Adapt(s);
  last_loop_s_ = s.loop_s + SecondsSince(t0);
  loop_seconds_ += last_loop_s_;
}

// Ranks the ordered jobs that are still the jobs the snapshot saw (same id and
// arrival seq); a job that arrived since ranks last until the next solve.
void LpPlanner::ApplyOrder(const Snapshot& s) {
  std::vector<uint32_t> ranks;
  std::vector<uint64_t> seqs;
  OrderToRanks(engine_.scheduler().cluster(), s.result.order, s.seqs, &ranks, &seqs);
  applied_ = engine_.SetPriorityOrder(std::move(ranks), std::move(seqs));
  order_at_ = engine_.Now();
}

// Quiet: the interval grows toward the cap. Overrun or failure: back off. Either
// way the next solve waits until the solver's share of wall time allows it.
void LpPlanner::Adapt(const Snapshot& s) {
  const double factor = s.status.ok() ? cfg_.growth : std::max(2.0, cfg_.growth);
  interval_ = std::min(interval_ * factor, cfg_.max_interval_s);
  next_at_ = s.started_at + std::max(interval_, s.solve_s / cfg_.max_share);
}

void LpPlanner::WriteStatus(JsonWriter& w) const {
  w.Key("lp").BeginObject().Field("busy", busy_).Field("solves", solves_);
  w.Field("overruns", overruns_).Field("failures", failures_).Field("warm_starts", warm_);
  w.Field("bursts", bursts_).Field("interval_s", interval_);
  w.Field("last_solve_ms", last_solve_s_ * 1e3)
      .Field("last_backlog_ms", last_backlog_s_ * 1e3)
      .Field("last_loop_ms", last_loop_s_ * 1e3)
      .Field("rows", uint64_t{last_.rows});
  w.Field("columns", uint64_t{last_.columns}).Field("intervals", uint64_t{last_.intervals});
  w.Field("lp_jobs", uint64_t{last_.lp_jobs}).Field("ordered_jobs", uint64_t{last_.order.size()});
  w.Field("objective", last_.objective).Field("applied", applied_);
  w.Key("order_age_s");
  if (order_at_)
    w.Double(engine_.Now() - *order_at_);
  else
    w.Null();
  if (!last_error_.empty()) w.Field("last_error", last_error_);
  w.Key("load");
  if (capacity_ok_)
    w.Double(capacity_.load);
  else
    w.Null();
  w.EndObject();
}

void LpPlanner::AppendMetrics(std::string* out) const {
  const auto d = [](uint64_t v) { return static_cast<double>(v); };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Metric(out, "lp_solves_total", "counter", "Backlog LP solves that gave an order.", d(solves_));
  Metric(out, "lp_overruns_total", "counter", "Solves that hit lp.time_limit_ms.", d(overruns_));
  Metric(out, "lp_failures_total", "counter", "Solves that failed otherwise.", d(failures_));
  Metric(out, "lp_warm_starts_total", "counter", "Solves started from the last basis.", d(warm_));
  Metric(out, "lp_solve_seconds", "gauge", "Wall time of the last solve.", last_solve_s_);
  Metric(out, "lp_solver_seconds_total", "counter", "Wall time of all solves.", solver_seconds_);
  Metric(out, "lp_loop_seconds", "gauge", "Event-loop time of the last solve (snapshot, apply).",
         last_loop_s_);
  Metric(out, "lp_loop_seconds_total", "counter", "Event-loop time of all solves.", loop_seconds_);
  Metric(out, "lp_rows", "gauge", "Rows of the last backlog LP.", d(last_.rows));
  Metric(out, "lp_columns", "gauge", "Columns of the last backlog LP.", d(last_.columns));
  Metric(out, "lp_jobs", "gauge", "Jobs inside the last backlog LP.", d(last_.lp_jobs));
  Metric(out, "lp_objective", "gauge", "Last LP optimum (sum w_j C_j from then).", last_.objective);
  Metric(out, "lp_order_age_seconds", "gauge", "Age of the job order in force.",
         order_at_ ? engine_.Now() - *order_at_ : nan);
  Metric(out, "lp_interval_seconds", "gauge", "Current re-solve interval.", interval_);
  Metric(out, "capacity_load", "gauge", "Windowed arrival rates as a fraction of capacity.",
         capacity_ok_ ? capacity_.load : nan);
}

}  // namespace locsched
