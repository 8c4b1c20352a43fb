// Shuffles on separate processors (fotakis-mapreduce-shuffle-unrelated.txt §3.2): every
// machine has an input processor (of the machine's capacity) that runs the shuffles of
// the reduces placed on that machine, each holding its reduce's demand (one at a time
// when tasks fill machines, as in the paper); a shuffle starts after its job's maps,
// its reduce after it. The
// solver runs MRS with each shuffle on its reduce's machine (factor 54) and reads the
// schedule in this model (Lemma 2: factor 2 more, 81 in all). Called by tools/solve
// (`mrs-separate`) and tests. Pure; no threads.
#pragma once

#include <cstddef>

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/status.h"

namespace locsched {

/// Knobs of the separate-shuffle MRS.
struct SeparateShuffleOptions {
  double epsilon = 1.0;        ///< interval growth of every LP
  size_t max_columns = 20000;  ///< size limit of each LP
};

/// A reduce's entry [start, end) on machine i: its shuffle runs on i's input processor
/// during [start, start + shuffle), the reduce on i during [start + shuffle, end).
/// lower_bound is the interval LP with separate shuffles (a bound in this model).
Status SolveSeparateShuffle(const LpInstance& instance, const SeparateShuffleOptions& options,
                            SolverResult* result);
/// Ok if `schedule` is feasible in this model: CheckSchedule's rules with the reduce
/// holding its machine only after its shuffle, every shuffle after its job's maps, and
/// the shuffles on one input processor within its capacity. Names the first violation.
Status CheckSeparateShuffle(const LpInstance& instance, const Schedule& schedule);

}  // namespace locsched
