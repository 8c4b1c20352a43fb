// Tests shuffles on separate processors (algorithms/lp/separate_shuffle.h): the solver's
// schedules pass the model's checker and never beat its LP bound, the bound stays below a
// schedule that only this model allows, and the checker names each violation.
#include "algorithms/lp/separate_shuffle.h"

#include <catch2/catch.hpp>

#include "algorithms/lp/interval_lp.h"
#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

// One unit machine; job 0: a map (1) and a reduce (1) with a shuffle of 5; job 1: a map (4).
LpInstance TwoJobs() {
  LpInstance in;
  in.capacity = {1.0};
  LpJob a;
  a.tasks.push_back({1.0, {0}, 1.0, 0.0, LpTaskKind::kMap, 0.0});
  a.tasks.push_back({1.0, {0}, 1.0, 0.0, LpTaskKind::kReduce, 5.0});
  LpJob b;
  b.tasks.push_back({1.0, {0}, 4.0, 0.0, LpTaskKind::kMap, 0.0});
  in.jobs = {a, b};
  return in;
}

TEST_CASE("separate-shuffle schedules are feasible and above their bound", "[separate_shuffle]") {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 3);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 4);
    shape.full_demand = seed % 2 == 0;  // the paper's model: one task per machine at a time
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(SolveSeparateShuffle(in, SeparateShuffleOptions{}, &r).ok());
    const Status feasible = CheckSeparateShuffle(in, r.schedule);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.objective == Approx(WeightedCompletion(in, r.schedule)));
    REQUIRE(r.objective >= r.lower_bound * (1 - 1e-7));
    IntervalLpResult together;
    IntervalLpOptions options;
    options.spread = false;
    REQUIRE(SolveIntervalLp(in, options, &together).ok());
    REQUIRE(r.lower_bound <= together.objective * (1 + 1e-7) + 1e-7);
  }
}

TEST_CASE("the separate-shuffle bound is below a schedule only that model allows",
          "[separate_shuffle]") {
  const LpInstance in = TwoJobs();
  // Job 1's map runs on the machine while job 0's shuffle runs on its input processor.
  const Schedule s = {{0, 0, 0, 0, 1}, {0, 1, 0, 1, 7}, {1, 0, 0, 1, 5}};
  REQUIRE(CheckSeparateShuffle(in, s).ok());
  REQUIRE(!CheckSchedule(in, s).ok());  // with the shuffle on the machine it overlaps
  REQUIRE(WeightedCompletion(in, s) == Approx(12.0));
  SolverResult r;
  REQUIRE(SolveSeparateShuffle(in, SeparateShuffleOptions{}, &r).ok());
  REQUIRE(r.lower_bound <= 12.0 * (1 + 1e-9));
}

TEST_CASE("the separate-shuffle checker names violations", "[separate_shuffle]") {
  const LpInstance in = TwoJobs();
  // The shuffle starts before the map ends.
  Status s = CheckSeparateShuffle(in, {{0, 0, 0, 0, 1}, {0, 1, 0, 0.5, 6.5}, {1, 0, 0, 7, 11}});
  REQUIRE(!s.ok());
  REQUIRE(s.message().find("jobs[0].tasks[1]") != std::string::npos);
  // The reduce proper overlaps job 1's map on the machine.
  s = CheckSeparateShuffle(in, {{0, 0, 0, 0, 1}, {0, 1, 0, 1, 7}, {1, 0, 0, 3, 7}});
  REQUIRE(!s.ok());
  REQUIRE(s.message().find("machines[0]") != std::string::npos);
  // Two shuffles at once on a unit input processor.
  LpInstance two = in;
  two.jobs[1] = two.jobs[0];
  s = CheckSeparateShuffle(two,
                           {{0, 0, 0, 0, 1}, {0, 1, 0, 1, 7}, {1, 0, 0, 1, 2}, {1, 1, 0, 2, 8}});
  REQUIRE(!s.ok());
  REQUIRE(s.message().find("input processor") != std::string::npos);
}

}  // namespace
}  // namespace locsched
