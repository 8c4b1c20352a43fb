#include "algorithms/sim/sim_lp_planner.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/lp/backlog_instance.h"

namespace locsched {

SimLpPlanner::SimLpPlanner(const SimParams& params, const BacklogLpOptions& options,
                           uint32_t classes)
    : SimLpPlanner(params.policy.alpha, params.policy.gamma, options, classes) {}

SimLpPlanner::SimLpPlanner(double alpha, double gamma, const BacklogLpOptions& options,
                           uint32_t classes)
    : alpha_(alpha), gamma_(gamma), options_(options), classes_(classes) {}

void SimLpPlanner::Replan(Scheduler& sched, uint64_t slot, std::span<const uint64_t> started) {
  Solve(sched, BacklogClock{.alpha = alpha_,
                            .gamma = gamma_,
                            .now = static_cast<double>(slot),
                            .classes = classes_,
                            .started_at = [started](TaskId t) {
                              return t < started.size() ? static_cast<double>(started[t]) : 0.0;
                            }});
}

void SimLpPlanner::ReplanAt(Scheduler& sched, double now, std::span<const double> started) {
  Solve(sched, BacklogClock{.alpha = alpha_,
                            .gamma = gamma_,
                            .now = now,
                            .classes = classes_,
                            .started_at = [started](TaskId t) {
                              return t < started.size() ? started[t] : 0.0;
                            }});
}

// The simulated clock is the LP's: a task lasts 1/alpha time units local in expectation
// (1/gamma remote), and running tasks occupy their class for the rest of that.
void SimLpPlanner::Solve(Scheduler& sched, const BacklogClock& clock) {
  std::vector<uint64_t> snapshot_seqs;
  const BacklogInstance in = SnapshotBacklog(sched.cluster(), clock, &snapshot_seqs);
  if (in.jobs.empty()) return;
  BacklogLpResult result;
  if (const Status s = solver_.Solve(in, options_, &result); !s.ok()) {
    ++failures_;
    last_error_ = s.message();
    return;
  }
  ++solves_;
  warm_ += result.warm;
  std::vector<uint32_t> ranks;
  std::vector<uint64_t> seqs;
  OrderToRanks(sched.cluster(), result.order, snapshot_seqs, &ranks, &seqs);
  sched.SetPriorityOrder(std::move(ranks), std::move(seqs));
}

}  // namespace locsched
