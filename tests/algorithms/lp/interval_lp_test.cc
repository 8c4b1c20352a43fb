// Tests the interval-indexed LP (algorithms/lp/interval_lp.h): on tiny random
// instances its optimum never exceeds the brute-force optimum (it is a lower
// bound), its fractions are a valid assignment, and the size limit is enforced.
#include "algorithms/lp/interval_lp.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

TEST_CASE("the LP optimum is at most the brute-force optimum on tiny instances", "[interval_lp]") {
  RandomShape shape;
  shape.jobs = 2;
  shape.max_tasks = 2;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    shape.machines = 1 + static_cast<uint32_t>(seed % 2);  // 1 or 2 machines
    const LpInstance in = RandomInstance(seed, shape);
    REQUIRE(ValidateInstance(in).ok());
    for (double epsilon : {1.0, 0.5}) {
      IntervalLpResult lp;
      REQUIRE(SolveIntervalLp(in, {epsilon, 20000, LpStage::kAll}, &lp).ok());
      const double optimum = BruteForceOptimum(in);
      INFO("seed " << seed << " epsilon " << epsilon);
      REQUIRE(lp.objective > 0);
      REQUIRE(lp.objective <= optimum * (1 + 1e-7));
    }
  }
}

TEST_CASE("the LP assigns each task fully and C_j covers release plus a task", "[interval_lp]") {
  for (uint64_t seed = 100; seed < 130; ++seed) {
    const LpInstance in = RandomInstance(seed, RandomShape{});
    IntervalLpResult lp;
    REQUIRE(SolveIntervalLp(in, IntervalLpOptions{}, &lp).ok());
    REQUIRE(lp.tasks.size() == FlattenTasks(in).size());
    for (size_t t = 0; t < lp.tasks.size(); ++t) {
      double total = 0, shortest = kNotAllowed;
      for (const LpFraction& f : lp.z[t]) {
        total += f.value;
        REQUIRE(TaskDuration(in, lp.tasks[t], f.machine) <= lp.endpoints[f.interval] * (1 + 1e-9));
      }
      for (uint32_t i = 0; i < in.capacity.size(); ++i)
        shortest = std::min(shortest, TaskDuration(in, lp.tasks[t], i));
      REQUIRE(total == Approx(1.0).epsilon(1e-6));
      REQUIRE(lp.completion[lp.tasks[t].job] >= in.jobs[lp.tasks[t].job].release + shortest - 1e-6);
    }
  }
}

TEST_CASE("the spreading re-solve keeps the bound and an optimal sum w_j C_j", "[interval_lp]") {
  for (uint64_t seed = 150; seed < 170; ++seed) {
    const LpInstance in = RandomInstance(seed, RandomShape{});
    IntervalLpResult plain, spread;
    REQUIRE(SolveIntervalLp(in, {1.0, 20000, LpStage::kAll, false}, &plain).ok());
    REQUIRE(SolveIntervalLp(in, {1.0, 20000, LpStage::kAll, true}, &spread).ok());
    REQUIRE(spread.objective == Approx(plain.objective).epsilon(1e-9));
    double sum = 0;
    for (size_t j = 0; j < in.jobs.size(); ++j) sum += in.jobs[j].weight * spread.completion[j];
    REQUIRE(sum <= plain.objective * (1 + 1e-6) + 1e-6);
  }
}

TEST_CASE("a stage LP covers only that stage's tasks", "[interval_lp]") {
  const LpInstance in = RandomInstance(7, RandomShape{});
  IntervalLpResult maps;
  REQUIRE(SolveIntervalLp(in, {1.0, 20000, LpStage::kMaps}, &maps).ok());
  for (const TaskRef& t : maps.tasks)
    REQUIRE(in.jobs[t.job].tasks[t.task].kind == LpTaskKind::kMap);
}

TEST_CASE("an LP above the column limit is refused with its size", "[interval_lp]") {
  const LpInstance in = RandomInstance(3, RandomShape{});
  const size_t columns = IntervalLpColumns(in, IntervalLpOptions{});
  REQUIRE(columns > 10);
  IntervalLpResult lp;
  const Status s = SolveIntervalLp(in, {1.0, columns - 1, LpStage::kAll}, &lp);
  REQUIRE(s.code() == Status::Code::kResourceExhausted);
  REQUIRE(s.message().find(std::to_string(columns)) != std::string::npos);
  REQUIRE(SolveIntervalLp(in, {1.0, columns, LpStage::kAll}, &lp).ok());
}

TEST_CASE("a non-positive epsilon is refused", "[interval_lp]") {
  IntervalLpResult lp;
  REQUIRE(
      SolveIntervalLp(RandomInstance(1, RandomShape{}), {0.0, 20000, LpStage::kAll}, &lp).code() ==
      Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace locsched
