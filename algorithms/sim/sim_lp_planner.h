// SimLpPlanner: the simulator's `priority` re-solve. Called through the simulator's
// replan hook every replan_interval slots, it snapshots the backlog (the daemon's
// BacklogSnapshot, one slot = one LP time unit), solves the daemon's BacklogLp and
// hands the order to the Scheduler as priority ranks. Pure; one run, one thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "algorithms/lp/backlog_instance.h"
#include "algorithms/lp/backlog_lp.h"
#include "algorithms/sim/simulator.h"

namespace locsched {

/// Re-solves the backlog LP of a simulated run and applies its order.
class SimLpPlanner {
 public:
  /// A planner for a run of `params` (alpha, gamma) with the LP's knobs and classes.
  SimLpPlanner(const SimParams& params, const BacklogLpOptions& options, uint32_t classes);
  /// A planner with the rates (per unit of the clock) given directly (trace mode: seconds).
  SimLpPlanner(double alpha, double gamma, const BacklogLpOptions& options, uint32_t classes);
  /// Solves the LP of the backlog at `slot` and sets the ranks (the SimReplan signature).
  void Replan(Scheduler& sched, uint64_t slot, std::span<const uint64_t> started);
  /// The same on a continuous clock: `started[t]` is when running task t started.
  void ReplanAt(Scheduler& sched, double now, std::span<const double> started);
  /// A SimReplan that calls Replan on this planner (which must outlive the run).
  SimReplan Hook() {
    return [this](Scheduler& s, uint64_t slot, std::span<const uint64_t> started) {
      Replan(s, slot, started);
    };
  }

  /// Solves that gave an order.
  uint64_t solves() const { return solves_; }
  /// Solves that failed or overran (the last order stayed in force).
  uint64_t failures() const { return failures_; }
  /// Solves started from the previous basis.
  uint64_t warm() const { return warm_; }
  /// The last failure's message ("" if none).
  const std::string& last_error() const { return last_error_; }

 private:
  void Solve(Scheduler& sched, const BacklogClock& clock);

  double alpha_, gamma_;
  BacklogLpOptions options_;
  uint32_t classes_;
  BacklogLpSolver solver_;
  uint64_t solves_ = 0, failures_ = 0, warm_ = 0;
  std::string last_error_;
};

}  // namespace locsched
