// LpPlanner: the daemon's periodic backlog LP and capacity headroom. On
// the event-loop thread it snapshots the backlog and the windowed arrival rates,
// hands both LPs to an Executor (locschedd's worker thread; inline in tests), and
// applies the job order that comes back to the `priority` intra-queue policy, for
// the jobs that are still the ones it saw. It adapts the re-solve interval
// (ALGORITHMS.md §4) and keeps the figures `status` and `metrics` report. Every
// public method runs on the event-loop thread; only the posted work runs elsewhere.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/lp/backlog_instance.h"
#include "algorithms/lp/backlog_lp.h"
#include "algorithms/lp/capacity_lp.h"
#include "config/config.h"
#include "daemon/arrival_window.h"
#include "daemon/engine.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// Plans job orders by re-solving the backlog LP; one per daemon.
class LpPlanner {
 public:
  /// Runs `work` somewhere, then `done` back on the event-loop thread.
  using Executor = std::function<void(std::function<void()> work, std::function<void()> done)>;

  /// A planner over `engine`, reading the task arrivals the engine counts into `arrivals`
  /// (both must outlive it), whose solves run on `executor` (locschedd: its worker
  /// thread; none: inline).
  LpPlanner(Engine& engine, ArrivalWindow& arrivals, const LpConfig& cfg,
            Executor executor = nullptr);
  /// Applies reloaded [lp] settings (the interval restarts from the base).
  void ApplyConfig(const LpConfig& cfg);

  /// Starts a solve now unless one is running; false if one is.
  bool Start();
  /// Starts a solve if the interval has passed or a burst arrived (the periodic timer).
  void Tick();
  /// True while a solve is out on the executor.
  bool busy() const { return busy_; }
  /// Solves finished with an order (the count `resolve_lp` callers wait on).
  uint64_t solves() const { return solves_; }

  /// Writes the `lp` object of `status` (a key and an object).
  void WriteStatus(JsonWriter& w) const;
  /// Appends Prometheus gauges and counters of the planner to *out.
  void AppendMetrics(std::string* out) const;

 private:
  struct Snapshot;  // what one solve reads and writes, shared with the worker
  BacklogInstance BuildBacklog(std::vector<uint64_t>* seqs) const;
  CapacityInstance BuildCapacity();
  void Finish(const Snapshot& s);
  void ApplyOrder(const Snapshot& s);
  void Adapt(const Snapshot& s);

  Engine& engine_;
  LpConfig cfg_;
  Executor executor_;
  std::shared_ptr<BacklogLpSolver> solver_ = std::make_shared<BacklogLpSolver>();
  ArrivalWindow& arrivals_;

  bool busy_ = false;
  double interval_;              // the current re-solve interval (seconds)
  double last_started_ = 0;      // engine time the last solve started
  double next_at_ = 0;           // earliest start of the next periodic solve
  uint64_t queued_at_last_ = 0;  // queued + blocked tasks when the last solve started
  uint64_t solves_ = 0, overruns_ = 0, failures_ = 0, warm_ = 0, bursts_ = 0;
  double solver_seconds_ = 0;  // total worker time in solves

  // The last finished solve.
  std::optional<double> order_at_;  // when the last good order was applied
  double last_solve_s_ = 0;         // both LPs
  double last_backlog_s_ = 0;       // the backlog LP alone
  double last_loop_s_ = 0;          // event-loop time of the last solve: snapshot + apply
  double loop_seconds_ = 0;         // the same, summed over all solves
  BacklogLpResult last_;
  std::string last_error_;
  CapacityResult capacity_;
  bool capacity_ok_ = false;
  bool applied_ = false;  // the policy took the last order (JSQ-MaxWeight only)
};

}  // namespace locsched
