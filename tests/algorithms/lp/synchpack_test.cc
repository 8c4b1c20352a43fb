// Tests SynchPack-2 (algorithms/lp/synchpack.h) on seeded random instances: every
// schedule is feasible, never below the LP bound (nor below the brute-force optimum
// on tiny instances), and within the paper's proven factor where it applies.
#include "algorithms/lp/synchpack.h"

#include <catch2/catch.hpp>

#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

TEST_CASE("SynchPack-2 schedules are feasible and not below the LP bound", "[synchpack]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(SolveSynchPack(in, SynchPackOptions{}, &r).ok());
    const Status feasible = CheckSchedule(in, r.schedule);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.objective == Approx(WeightedCompletion(in, r.schedule)));
    REQUIRE(r.objective >= r.lower_bound * (1 - 1e-7));
  }
}

TEST_CASE("SynchPack-2 stays within its proven factor on map-only instances", "[synchpack]") {
  // Theorem 4.1 of synchpack-packing-placement.txt: SynchPack-2 (LP2 with doubling
  // intervals, slow motion, matching, greedy packing) is a 24-approximation against
  // LP2 for jobs released at 0 without map->reduce precedence; our LP adds only
  // valid rows, so its optimum is at least LP2's and the factor still applies.
  double worst = 0;
  for (uint64_t seed = 200; seed < 260; ++seed) {
    RandomShape shape;
    shape.reduces = false;
    shape.releases = false;
    shape.machines = 1 + static_cast<uint32_t>(seed % 3);
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(SolveSynchPack(in, SynchPackOptions{}, &r).ok());
    REQUIRE(CheckSchedule(in, r.schedule).ok());
    worst = std::max(worst, r.objective / r.lower_bound);
  }
  INFO("worst ratio " << worst);
  REQUIRE(worst <= 24.0);
}

TEST_CASE("SynchPack-2 is never better than the brute-force optimum", "[synchpack]") {
  RandomShape shape;
  shape.machines = 2;
  shape.jobs = 2;
  shape.max_tasks = 2;
  for (uint64_t seed = 300; seed < 330; ++seed) {
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(SolveSynchPack(in, SynchPackOptions{}, &r).ok());
    const double optimum = BruteForceOptimum(in);
    INFO("seed " << seed);
    REQUIRE(r.objective >= optimum * (1 - 1e-9));
    REQUIRE(r.lower_bound <= optimum * (1 + 1e-7));
  }
}

TEST_CASE("the mapping puts every task on a machine and interval it may use", "[synchpack]") {
  const LpInstance in = RandomInstance(11, RandomShape{});
  IntervalLpResult lp;
  REQUIRE(SolveIntervalLp(in, IntervalLpOptions{}, &lp).ok());
  for (double lambda : {1.0, 0.5}) {
    const std::vector<MachineInterval> mapping = MapToMachineIntervals(in, lp, lambda);
    REQUIRE(mapping.size() == lp.tasks.size());
    for (size_t t = 0; t < mapping.size(); ++t) {
      REQUIRE(mapping[t].interval >= 1);
      REQUIRE(TaskDuration(in, lp.tasks[t], mapping[t].machine) <=
              lp.endpoints[mapping[t].interval] * (1 + 1e-9));
    }
  }
}

TEST_CASE("a bad slow-motion parameter is refused", "[synchpack]") {
  SynchPackOptions options;
  options.slow_motion = {1.5};
  SolverResult r;
  REQUIRE(SolveSynchPack(RandomInstance(1, RandomShape{}), options, &r).code() ==
          Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace locsched
