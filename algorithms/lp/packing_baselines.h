// The packing baselines of the SynchPack paper's evaluation: JSQ+MaxWeight with
// greedy packing, and a Tetris-style packing score with a preference for jobs with
// less remaining work. Both are event-driven list schedulers (list_scheduler.h).
// Called by tools/solve/lp_commands.cc and the tests. Pure; no threads.
#pragma once

#include <cstddef>
#include <memory>

#include "algorithms/lp/list_scheduler.h"
#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// LP bound settings shared by the baselines (they report the same lower bound).
struct BaselineOptions {
  double epsilon = 1.0;        ///< LP interval growth for the lower bound
  size_t max_columns = 20000;  ///< LP size limit
  bool lower_bound = true;     ///< solve the LP for lower_bound (else it is 0)
};

/// JSQ+MaxWeight: a ready task joins the shortest local queue of its placement; a
/// machine with free capacity serves its own queue or, by MaxWeight (queue length,
/// divided by the remote penalty), a task of the longest other queue that may run remotely.
Status SolveJsqMaxWeight(const LpInstance& instance, const BaselineOptions& options,
                         SolverResult* result);
/// Tetris: a machine with free capacity starts the fitting ready task of highest score
/// = alignment (demand x free, 10% less when remote) minus the job's normalized
/// remaining work per weight.
Status SolveTetris(const LpInstance& instance, const BaselineOptions& options,
                   SolverResult* result);

/// The two rules as list policies on `instance` (which must outlive them), for online
/// drivers such as the trace simulator's centralized mode.
std::unique_ptr<ListPolicy> MakeJsqMaxWeightPolicy(const LpInstance& instance);
std::unique_ptr<ListPolicy> MakeTetrisPolicy(const LpInstance& instance);

}  // namespace locsched
