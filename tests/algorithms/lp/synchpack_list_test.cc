// Tests SynchPack-L (algorithms/lp/synchpack_list.h): every schedule is feasible, never
// below the LP bound nor the brute-force optimum, packing follows the given order,
// and reduces wait for their maps even when the order names them first.
#include "algorithms/lp/synchpack_list.h"

#include <catch2/catch.hpp>

#include <numeric>

#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

TEST_CASE("SynchPack-L schedules are feasible and not below the LP bound", "[synchpack_list]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    const LpInstance in = RandomInstance(seed, shape);
    SynchPackListResult r;
    REQUIRE(SolveSynchPackList(in, SynchPackListOptions{}, &r).ok());
    const Status feasible = CheckSchedule(in, r.solved.schedule);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.solved.objective == Approx(WeightedCompletion(in, r.solved.schedule)));
    REQUIRE(r.solved.objective >= r.solved.lower_bound * (1 - 1e-7));
    REQUIRE(!r.order.empty());
  }
}

TEST_CASE("SynchPack-L is never better than the brute-force optimum", "[synchpack_list]") {
  RandomShape shape;
  shape.machines = 2;
  shape.jobs = 2;
  shape.max_tasks = 2;
  for (uint64_t seed = 300; seed < 330; ++seed) {
    const LpInstance in = RandomInstance(seed, shape);
    SynchPackListResult r;
    REQUIRE(SolveSynchPackList(in, SynchPackListOptions{}, &r).ok());
    INFO("seed " << seed);
    REQUIRE(r.solved.objective >= BruteForceOptimum(in) * (1 - 1e-9));
  }
}

TEST_CASE("every LP order is a permutation of the tasks", "[synchpack_list]") {
  const LpInstance in = RandomInstance(7, RandomShape{});
  IntervalLpResult lp;
  REQUIRE(SolveIntervalLp(in, IntervalLpOptions{}, &lp).ok());
  const auto orders = LpOrders(in, lp, {0.5});
  REQUIRE(orders.size() == 2);
  for (const auto& [name, order] : orders) {
    std::vector<size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<size_t> all(FlattenTasks(in).size());
    std::iota(all.begin(), all.end(), 0);
    REQUIRE(sorted == all);
  }
}

TEST_CASE("packing in order: earliest finish, backfilling, reduces after maps",
          "[synchpack_list]") {
  LpInstance in;
  in.capacity = {1.0, 1.0};
  LpJob a;  // a reduce listed before its map, and a long map on machine 0
  a.tasks.push_back({1.0, {0}, 4.0, 0.0, LpTaskKind::kMap, 0.0});
  a.tasks.push_back({1.0, {0, 1}, 1.0, 0.0, LpTaskKind::kReduce, 0.0});
  LpJob b;  // a short map that may run anywhere, 3x slower off machine 0
  b.tasks.push_back({1.0, {0}, 1.0, 3.0, LpTaskKind::kMap, 0.0});
  in.jobs = {a, b};
  const Schedule s = PackInOrder(in, {1, 0, 2});
  REQUIRE(CheckSchedule(in, s).ok());
  REQUIRE(s.size() == 3);
  // The map first (the reduce waited), then the reduce at 4 (its maps end),
  // then job b's map: machine 1 is free at 0 (ends at 3) while machine 0 is busy to 4.
  REQUIRE(s[0].task == 0);
  REQUIRE(s[1].task == 1);
  REQUIRE(s[1].start == Approx(4.0));
  REQUIRE(s[2].machine == 1);
  REQUIRE(s[2].end == Approx(3.0));
}

TEST_CASE("a bad alpha is refused", "[synchpack_list]") {
  SynchPackListOptions options;
  options.alphas = {0.0};
  SynchPackListResult r;
  REQUIRE(SolveSynchPackList(RandomInstance(1, RandomShape{}), options, &r).code() ==
          Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace locsched
