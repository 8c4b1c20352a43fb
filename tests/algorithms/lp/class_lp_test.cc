// Tests the class LP (algorithms/lp/class_lp.h): it is a relaxation of the per-task
// interval LP (never above it with the same thresholds, equal when every class has
// one task), never above the brute-force optimum, and SynchPack-L ordered by it stays
// feasible and above its bound.
#include "algorithms/lp/class_lp.h"

#include <catch2/catch.hpp>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/synchpack_list.h"
#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

double PerTaskBound(const LpInstance& in) {
  IntervalLpResult lp;
  IntervalLpOptions options;
  options.spread = false;
  REQUIRE(SolveIntervalLp(in, options, &lp).ok());
  return lp.objective;
}

double ClassBound(const LpInstance& in, size_t groups, size_t thresholds = 32) {
  ClassLpOptions options;
  options.groups = groups;
  options.max_thresholds = thresholds;
  ClassLpResult lp;
  REQUIRE(SolveClassLp(in, options, &lp).ok());
  return lp.objective;
}

TEST_CASE("classes group a job's tasks equal but for placement", "[class_lp]") {
  LpInstance in;
  in.capacity = {1.0, 1.0};
  LpJob job;
  job.tasks.push_back({1.0, {0}, 2.0, 0.0, LpTaskKind::kMap, 0.0});
  job.tasks.push_back({1.0, {1}, 2.0, 0.0, LpTaskKind::kMap, 0.0});
  job.tasks.push_back({1.0, {1}, 3.0, 0.0, LpTaskKind::kMap, 0.0});
  job.tasks.push_back({1.0, {0}, 2.0, 0.0, LpTaskKind::kReduce, 0.0});
  in.jobs = {job, job};
  const std::vector<TaskClass> classes = BuildTaskClasses(in);
  REQUIRE(classes.size() == 6);
  REQUIRE(classes[0].tasks == std::vector<uint32_t>{0, 1});
  REQUIRE(classes[2].ready == Approx(2.0));  // the reduce waits for the shortest map
  REQUIRE(classes[5].job == 1);
}

TEST_CASE("the class LP never exceeds the per-task LP", "[class_lp]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    const LpInstance in = RandomInstance(seed, shape);
    const double per_task = PerTaskBound(in);
    INFO("seed " << seed);
    for (size_t groups : {0, 1, 2}) REQUIRE(ClassBound(in, groups) <= per_task * (1 + 1e-7) + 1e-7);
    REQUIRE(ClassBound(in, 0, 2) <= per_task * (1 + 1e-7) + 1e-7);
  }
}

TEST_CASE("with one task per job the class LP is the per-task LP", "[class_lp]") {
  for (uint64_t seed = 100; seed < 130; ++seed) {
    RandomShape shape;
    shape.max_tasks = 1;
    shape.jobs = 5;
    const LpInstance in = RandomInstance(seed, shape);
    INFO("seed " << seed);
    REQUIRE(ClassBound(in, 0) == Approx(PerTaskBound(in)).epsilon(1e-6));
  }
}

TEST_CASE("the class LP never exceeds the brute-force optimum", "[class_lp]") {
  RandomShape shape;
  shape.machines = 2;
  shape.jobs = 2;
  shape.max_tasks = 2;
  for (uint64_t seed = 300; seed < 330; ++seed) {
    const LpInstance in = RandomInstance(seed, shape);
    const double optimum = BruteForceOptimum(in);
    INFO("seed " << seed);
    for (size_t groups : {0, 1}) REQUIRE(ClassBound(in, groups, 8) <= optimum * (1 + 1e-7));
  }
}

TEST_CASE("SynchPack-L on the class LP is feasible and above its bound", "[class_lp]") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    const LpInstance in = RandomInstance(seed, shape);
    SynchPackListOptions options;
    options.use_classes = true;
    options.classes.groups = seed % 3;
    SynchPackListResult r;
    REQUIRE(SolveSynchPackList(in, options, &r).ok());
    const Status feasible = CheckSchedule(in, r.solved.schedule);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.solved.objective >= r.solved.lower_bound * (1 - 1e-7));
    REQUIRE(r.lp_columns > 0);
  }
}

TEST_CASE("the class LP refuses an LP over its column limit", "[class_lp]") {
  const LpInstance in = RandomInstance(5, RandomShape{});
  ClassLpOptions options;
  options.max_columns = 3;
  ClassLpResult lp;
  REQUIRE(SolveClassLp(in, options, &lp).code() == Status::Code::kResourceExhausted);
  REQUIRE(ClassLpColumns(in, options) > 3);
}

}  // namespace
}  // namespace locsched
