// TraceRebalance: the daemon's rebalancer (daemon/rebalancer.h: max-cover over the queued
// backlog, its big-job, imbalance and adaptive-timer triggers) hooked into the trace
// simulation on the simulated clock, for locsched-sim --trace --rebalance: asked every
// base interval as the daemon's loop timer does; runs are synchronous (RunNow) and take
// no simulated time. TracePermitRebalance is the same for late binding (remote permits,
// algorithms/hta/permit_rebalancer.h). One run, one thread.
#pragma once

#include <cstdint>
#include <memory>

#include "algorithms/hta/permit_rebalancer.h"
#include "algorithms/sim/trace_sim.h"
#include "config/config.h"

namespace locsched {

class Rebalancer;

/// Rebalances a jsq-maxweight trace run as the daemon with rebalance.enabled would.
class TraceRebalance final : public TraceSimHook {
 public:
  /// `cfg` as the daemon's [rebalance] (intervals read as simulated seconds); alpha and
  /// gamma are the model's rates per second (the daemon's learnt rates).
  TraceRebalance(const RebalanceConfig& cfg, double alpha, double gamma);
  ~TraceRebalance() override;

  void Attach(Scheduler& sched) override;
  void OnJobSubmitted(uint64_t tasks) override;
  void AfterStep(Scheduler& sched, double now) override;

  /// Runs so far, and the tasks they moved to another queue.
  uint64_t runs() const { return runs_; }
  uint64_t moved() const { return moved_; }

 private:
  RebalanceConfig cfg_;
  double alpha_, gamma_;
  std::unique_ptr<Rebalancer> rebalancer_;
  double next_poll_ = 0;  // the daemon's rebalance timer: Due is asked every base interval
  uint64_t runs_ = 0, moved_ = 0;
};

/// Rebalances a late-binding trace run: remote permits for the large jobs' tasks.
class TracePermitRebalance final : public TraceSimHook {
 public:
  /// `cfg` as the daemon's [rebalance] (big_job_tasks, intervals as simulated seconds).
  TracePermitRebalance(const RebalanceConfig& cfg, double alpha, double gamma);

  void Attach(Scheduler&) override {}
  void OnJobSubmitted(uint64_t tasks) override { rebalancer_.OnJobSubmitted(tasks); }
  void AfterStep(Scheduler& sched, double now) override;

  /// Runs so far, and the remote permits they granted.
  uint64_t runs() const { return rebalancer_.runs(); }
  uint64_t granted() const { return rebalancer_.granted(); }

 private:
  double poll_, alpha_, gamma_;
  PermitRebalancer rebalancer_;
  double next_poll_ = 0;
};

}  // namespace locsched
