// PermitRebalancer: when late binding's rebalance runs (algorithms/hta/remote_plan.h) on the
// driver's clock: a large job's arrival runs it at the next poll; while large jobs wait,
// the timer re-runs it, its interval back at the base while free slots take at least half
// of the last run's permits, else doubling up to a cap (a plan nobody uses is not redone). The
// trace simulator's hook and the daemon's engine drive it; pure, on the thread that owns the
// Scheduler.
#pragma once

#include <cstdint>

#include "algorithms/core/scheduler.h"
#include "algorithms/hta/remote_plan.h"

namespace locsched {

/// Late binding's rebalance triggers and totals.
class PermitRebalancer {
 public:
  struct Settings {
    uint64_t big_job_tasks = 1000;  ///< a job this large is planned (rebalance.big_job_tasks)
    double base_interval_s = 1;     ///< the timer's first interval (rebalance.base_interval_ms)
    double max_interval_s = 60;     ///< its cap (rebalance.max_interval_ms)
  };
  explicit PermitRebalancer(const Settings& s) : s_(s), interval_(s.base_interval_s) {}

  /// Takes reloaded settings (the timer keeps its place).
  void ApplySettings(const Settings& s) { s_ = s; }
  /// A job of `tasks` tasks was submitted.
  void OnJobSubmitted(uint64_t tasks) { big_job_ |= tasks >= s_.big_job_tasks; }
  /// "big_job" or "timer" if a run is due at `now`, else nullptr.
  const char* Due(double now) const;
  /// Plans the large jobs and replaces the permits (alpha, gamma: the rates to weigh by).
  PermitRun Run(Scheduler& sched, double now, double alpha, double gamma);

  /// Runs so far, and the permits they granted.
  uint64_t runs() const { return runs_; }
  uint64_t granted() const { return granted_; }
  /// The timer's current interval.
  double interval() const { return interval_; }

 private:
  Settings s_;
  bool big_job_ = false;
  bool waiting_ = false;  // the last run planned a large job: the timer is on
  uint64_t last_granted_ = 0, taken_at_last_ = 0;
  double interval_;
  double next_ = 0;
  uint64_t runs_ = 0, granted_ = 0;
};

}  // namespace locsched
