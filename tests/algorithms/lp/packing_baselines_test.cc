// Tests the packing baselines (algorithms/lp/packing_baselines.h): JSQ+MaxWeight and
// Tetris produce feasible schedules that never beat the LP bound or the optimum.
#include "algorithms/lp/packing_baselines.h"

#include <catch2/catch.hpp>

#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

using Solver = Status (*)(const LpInstance&, const BaselineOptions&, SolverResult*);

void CheckSolver(Solver solve) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    shape.remote = seed % 3 != 0;
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(solve(in, BaselineOptions{}, &r).ok());
    const Status feasible = CheckSchedule(in, r.schedule);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.objective >= r.lower_bound * (1 - 1e-7));
  }
  RandomShape tiny;
  tiny.machines = 2;
  tiny.jobs = 2;
  tiny.max_tasks = 2;
  for (uint64_t seed = 500; seed < 515; ++seed) {
    const LpInstance in = RandomInstance(seed, tiny);
    SolverResult r;
    REQUIRE(solve(in, BaselineOptions{}, &r).ok());
    REQUIRE(r.objective >= BruteForceOptimum(in) * (1 - 1e-9));
  }
}

TEST_CASE("JSQ+MaxWeight schedules are feasible and above the bounds", "[packing_baselines]") {
  CheckSolver(SolveJsqMaxWeight);
}

TEST_CASE("Tetris schedules are feasible and above the bounds", "[packing_baselines]") {
  CheckSolver(SolveTetris);
}

TEST_CASE("without the LP the baselines report a zero bound", "[packing_baselines]") {
  BaselineOptions options;
  options.lower_bound = false;
  SolverResult r;
  REQUIRE(SolveTetris(RandomInstance(5, RandomShape{}), options, &r).ok());
  REQUIRE(r.lower_bound == 0);
}

}  // namespace
}  // namespace locsched
