#include "tools/sim/trace_rebalance.h"

#include <cmath>
#include <limits>

#include "daemon/rebalancer.h"

namespace locsched {

TraceRebalance::TraceRebalance(const RebalanceConfig& cfg, double alpha, double gamma)
    : cfg_(cfg), alpha_(alpha), gamma_(gamma) {
  cfg_.enabled = true;
  // The solver's share of wall time has no meaning on a simulated clock, and reading the
  // CPU time would make runs differ: the solver may run as often as the triggers ask.
  cfg_.max_share = std::numeric_limits<double>::infinity();
}

TraceRebalance::~TraceRebalance() = default;

void TraceRebalance::Attach(Scheduler& sched) {
  rebalancer_ = std::make_unique<Rebalancer>(sched, cfg_);
}

void TraceRebalance::OnJobSubmitted(uint64_t tasks) {
  rebalancer_->OnJobSubmitted(tasks);
}

// The daemon asks its rebalancer every base interval (a loop timer), not after each event.
void TraceRebalance::AfterStep(Scheduler&, double now) {
  const double poll = static_cast<double>(cfg_.base_interval_ms) / 1000;
  if (now < next_poll_) return;
  next_poll_ = (std::floor(now / poll) + 1) * poll;
  const char* trigger = rebalancer_->Due(now);
  if (trigger == nullptr) return;
  RebalanceStats stats;
  if (!rebalancer_->RunNow(now, trigger, alpha_, gamma_, &stats).ok()) return;
  ++runs_;
  moved_ += stats.moved;
}

TracePermitRebalance::TracePermitRebalance(const RebalanceConfig& cfg, double alpha, double gamma)
    : poll_(static_cast<double>(cfg.base_interval_ms) / 1000),
      alpha_(alpha),
      gamma_(gamma),
      rebalancer_(PermitRebalancer::Settings{cfg.big_job_tasks, poll_,
                                             static_cast<double>(cfg.max_interval_ms) / 1000}) {}

// Asked every base interval, as TraceRebalance's.
void TracePermitRebalance::AfterStep(Scheduler& sched, double now) {
  if (now < next_poll_) return;
  next_poll_ = (std::floor(now / poll_) + 1) * poll_;
  if (rebalancer_.Due(now) != nullptr) rebalancer_.Run(sched, now, alpha_, gamma_);
}

}  // namespace locsched
