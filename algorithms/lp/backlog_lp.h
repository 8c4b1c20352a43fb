// BacklogLp: the daemon's small, aggregated LP over the live backlog (ALGORITHMS.md
// §3 "In the daemon"): jobs x machine classes x geometric intervals, with running
// work occupying the early intervals. Its optimum is a lower bound on sum w_j C_j
// from now; its completion times order the jobs for the `priority` intra-queue
// policy. Called by the daemon's LpPlanner on its worker thread; a BacklogLpSolver
// holds the last basis and must be used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"

struct glp_prob;

namespace locsched {

/// One live job as the LP sees it: counts, not tasks.
struct BacklogJob {
  uint32_t key = 0;             ///< the caller's id for the job (returned in the order)
  double weight = 1;            ///< w_j
  uint32_t tasks = 0;           ///< tasks not yet started (queued and blocked), >= 1
  double duration = 1;          ///< a task's local duration in seconds (mean over its tasks)
  std::vector<uint32_t> local;  ///< per class: tasks with a replica in that class
  /// Arrival order (ties in weight per work go to the earlier job; then the key): with
  /// recycled ids, ties by key alone left an old job behind newer ones in every solve.
  uint64_t arrival = 0;
};

/// The backlog: classes of machines, what runs on them, and the waiting jobs.
struct BacklogInstance {
  std::vector<double> slots;                 ///< per class: slots of machines that take work
  std::vector<std::vector<double>> running;  ///< per class: remaining seconds of each running task
  double remote_penalty = 4;                 ///< a remote task takes duration * this (alpha/gamma)
  std::vector<BacklogJob> jobs;              ///< the waiting jobs, any order
};

/// Knobs of the LP.
struct BacklogLpOptions {
  double epsilon = 1.0;         ///< interval growth: d_l = unit * (1 + epsilon)^(l-1)
  size_t max_jobs = 128;        ///< jobs in the LP; the rest follow in Smith order
  size_t max_intervals = 40;    ///< the last interval is stretched to the horizon
  double time_limit_ms = 1000;  ///< GLPK's time limit; hitting it is an overrun
  /// Older jobs' completion costs weigh up to this much more (the oldest 1 + this, the
  /// newest 1), so that among equally good schedules the LP finishes older jobs first.
  double age_tiebreak = 1e-3;
};

/// The LP's answer.
struct BacklogLpResult {
  std::vector<uint32_t> order;  ///< every job's key, first to serve first
  /// Lower bound on sum w_j C_j from now: the optimum over the largest AgeScale factor.
  double objective = 0;
  size_t rows = 0;                 ///< LP rows
  size_t columns = 0;              ///< LP columns
  size_t intervals = 0;            ///< L
  size_t lp_jobs = 0;              ///< jobs inside the LP (<= max_jobs)
  bool warm = false;               ///< started from the previous solve's basis
  bool overrun = false;            ///< hit time_limit_ms (the order is then not set)
  std::vector<double> completion;  ///< per LP job, in `order`'s first lp_jobs: LP C_j
};

/// Frees GLPK's environment of the calling thread (it lives in thread-local storage
/// and would leak when a worker thread ends); no GLPK problem of the thread may be alive.
void ReleaseLpThreadState();

/// Solves backlog LPs, remembering the last optimal basis to warm-start the next.
class BacklogLpSolver {
 public:
  /// Solves the LP of `in`; FailedPrecondition without slots, ResourceExhausted on overrun.
  Status Solve(const BacklogInstance& in, const BacklogLpOptions& options, BacklogLpResult* result);
  /// Forgets the saved basis (the next solve starts cold).
  void Reset() { shape_.clear(); }

 private:
  Status RunWarm(glp_prob* lp, const std::vector<uint64_t>& shape, const BacklogLpOptions& options,
                 BacklogLpResult* result) const;
  void SaveBasis(glp_prob* lp, size_t rows, size_t columns);

  std::vector<uint64_t> shape_;  // what the saved basis belongs to (jobs, classes, sizes)
  std::vector<int> row_stat_, col_stat_;
};

}  // namespace locsched
