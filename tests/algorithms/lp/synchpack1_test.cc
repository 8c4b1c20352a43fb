// Tests SynchPack-1 and its single-machine variant (algorithms/lp/synchpack1.h): on seeded
// random instances each schedule passes the checker with the preemption it allows, is
// never below its own LP bound (LP1), and LP1 never exceeds the brute-force
// non-preemptive optimum; the single-machine variant refuses other instances.
#include "algorithms/lp/synchpack1.h"

#include <catch2/catch.hpp>

#include "algorithms/lp/interval_lp.h"
#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

using Solver = Status (*)(const LpInstance&, const SynchPack1Options&, SolverResult*);

void CheckVariant(Solver solve, Preemption preemption, bool single) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    shape.single = single;
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(solve(in, SynchPack1Options{}, &r).ok());
    const Status feasible = CheckSchedule(in, r.schedule, preemption);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.objective == Approx(WeightedCompletion(in, r.schedule)));
    REQUIRE(r.objective >= r.lower_bound * (1 - 1e-7));
    REQUIRE(r.lower_bound > 0);
  }
}

TEST_CASE("SynchPack-1 schedules are feasible with migration, above LP1", "[synchpack1]") {
  CheckVariant(SolveSynchPack1, Preemption::kMigration, false);
}

TEST_CASE("single-machine SynchPack-1 is feasible without migration, above LP1", "[synchpack1]") {
  CheckVariant(SolveSynchPack1Single, Preemption::kSameMachine, true);
}

TEST_CASE("LP1 is at most the brute-force non-preemptive optimum", "[synchpack1]") {
  RandomShape shape;
  shape.jobs = 2;
  shape.max_tasks = 2;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    shape.machines = 1 + static_cast<uint32_t>(seed % 2);
    const LpInstance in = RandomInstance(seed, shape);
    IntervalLpOptions options;
    options.preemptive = true;
    IntervalLpResult lp;
    REQUIRE(SolveIntervalLp(in, options, &lp).ok());
    INFO("seed " << seed);
    REQUIRE(lp.objective <= BruteForceOptimum(in) * (1 + 1e-7));
  }
}

TEST_CASE("the single-machine variant refuses a task with two machines", "[synchpack1]") {
  LpInstance in = RandomInstance(3, RandomShape{});
  in.jobs[0].tasks[0].placement = {0, 1};
  in.jobs[0].tasks[0].remote_penalty = 0;
  SolverResult r;
  const Status s = SolveSynchPack1Single(in, SynchPack1Options{}, &r);
  REQUIRE(s.code() == Status::Code::kInvalidArgument);
  REQUIRE(s.message().find("jobs[0].tasks[0].placement") != std::string::npos);
}

}  // namespace
}  // namespace locsched
