#include "algorithms/sim/sim_lp_planner.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/lp/backlog_instance.h"

namespace locsched {

SimLpPlanner::SimLpPlanner(const SimParams& params, const BacklogLpOptions& options,
                           uint32_t classes)
    : alpha_(params.policy.alpha),
      gamma_(params.policy.gamma),
      options_(options),
      classes_(classes) {}

// The simulated clock is the LP's: a task lasts 1/alpha slots local in expectation
// (1/gamma remote), and running tasks occupy their class for the rest of that.
void SimLpPlanner::Replan(Scheduler& sched, uint64_t slot, std::span<const uint64_t> started) {
  const BacklogClock clock{.alpha = alpha_,
                           .gamma = gamma_,
                           .now = static_cast<double>(slot),
                           .classes = classes_,
                           .started_at = [started](TaskId t) {
                             return t < started.size() ? static_cast<double>(started[t]) : 0.0;
                           }};
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
