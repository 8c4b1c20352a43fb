// Tests Algorithm 2 (algorithms/hta/hta_flow.h) against the exact optimum
// (algorithms/hta/hta_exact.h) on hundreds of seeded random instances: never below
// it, within Theorem 5.4's additive bound above it; the lower bound
// (algorithms/hta/hta_lower_bound.h) never above it; and Rebalance after churn.
#include "algorithms/hta/hta_flow.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "algorithms/hta/bal_assign.h"
#include "algorithms/hta/hta_exact.h"
#include "algorithms/hta/hta_lower_bound.h"
#include "algorithms/hta/round_robin.h"
#include "tests/algorithms/hta/hta_test_util.h"

namespace locsched {
namespace {

constexpr double kEps = 1e-9;

// Theorem 5.4: L_A <= L_O + (1 - 1/(n-1))·w_rem^O for n >= 2, where w_rem^O is
// w_rem(r) of an optimum with the fewest remote tasks; n = 1 has one assignment.
double AdditiveBound(const HtaInstance& in, int min_remote) {
  if (in.servers <= 1) return 0;
  return (1.0 - 1.0 / (in.servers - 1)) * in.costs.Remote(static_cast<size_t>(min_remote));
}

void CheckAgainstOptimum(const HtaInstance& in) {
  REQUIRE(ValidateHtaInstance(in).ok());
  HtaExact exact;
  const Status status = SolveHtaExact(in, &exact);
  REQUIRE(status.ok());
  const HtaSolution flow = SolveHtaFlow(in);
  REQUIRE(flow.assignment.size() == in.tasks.size());
  const HtaLoads loads = EvaluateAssignment(in, flow.assignment);
  REQUIRE(loads.max_load == Approx(flow.max_load).margin(kEps));
  REQUIRE(loads.remote_tasks == flow.remote_tasks);
  REQUIRE(EvaluateAssignment(in, exact.assignment).max_load == Approx(exact.max_load));
  CHECK(flow.max_load >= exact.max_load - kEps);
  CHECK(flow.max_load <= exact.max_load + AdditiveBound(in, exact.min_remote) + kEps);
  CHECK(HtaLowerBound(in) <= exact.max_load + kEps);
  CHECK(EvaluateAssignment(in, RoundRobin(in)).max_load >= exact.max_load - kEps);
}

TEST_CASE("Algorithm 2 is within Theorem 5.4's bound of the MIP optimum", "[hta_flow]") {
  Rng rng(2010);
  int instances = 0;
  for (int replicas : {1, 2, 3}) {
    for (bool table : {false, true}) {
      for (int i = 0; i < 50; ++i, ++instances) {
        const int n = 1 + static_cast<int>(rng.Below(6));
        const int m = static_cast<int>(rng.Below(11));
        const HtaInstance in = RandomInstance(rng, n, m, replicas, table);
        INFO("instance " << instances << ": n " << n << " m " << m << " replicas " << replicas
                         << (table ? " table" : " constant"));
        CheckAgainstOptimum(in);
      }
    }
  }
}

TEST_CASE("the MIP optimum and its fewest remote tasks match brute force", "[hta_exact]") {
  Rng rng(77);
  for (int i = 0; i < 120; ++i) {
    const int n = 1 + static_cast<int>(rng.Below(4));
    const int m = static_cast<int>(rng.Below(7));
    const HtaInstance in = RandomInstance(rng, n, m, 1 + static_cast<int>(rng.Below(3)), i % 2);
    INFO("instance " << i << ": n " << n << " m " << m);
    HtaExact exact;
    REQUIRE(SolveHtaExact(in, &exact).ok());
    const BruteForce brute = SolveByEnumeration(in);
    CHECK(exact.max_load == Approx(brute.max_load));
    CHECK(exact.min_remote == brute.min_remote);
    const HtaLoads loads = EvaluateAssignment(in, exact.assignment);
    CHECK(loads.max_load == Approx(brute.max_load));
    CHECK(loads.remote_tasks == exact.min_remote);
  }
}

TEST_CASE("the exact solver refuses instances above its size limit", "[hta_exact]") {
  HtaInstance in;
  in.servers = 10;
  in.tasks.assign(kHtaExactMaxCells / 10 + 1, {0});
  HtaExact exact;
  const Status status = SolveHtaExact(in, &exact);
  REQUIRE(status.code() == Status::Code::kResourceExhausted);
  REQUIRE(status.subject() == "tasks");
}

TEST_CASE("Algorithm 2's early stops do not change its answer", "[hta_flow]") {
  // The reference tries every tau = 1..m on the same warm-started flow.
  Rng rng(31);
  for (int i = 0; i < 60; ++i) {
    const HtaInstance in = RandomInstance(rng, 2 + static_cast<int>(rng.Below(8)),
                                          static_cast<int>(rng.Below(60)), 3, i % 2);
    const HtaSolution fast = SolveHtaFlow(in);
    MaxCover cover(in.servers, 1);
    for (const auto& replicas : in.tasks) cover.AddTask(replicas);
    double best = BalAssign(cover, in.costs).max_load;  // m = 0: the empty assignment
    for (int tau = 1; tau <= static_cast<int>(in.tasks.size()); ++tau) {
      cover.SetTau(tau);
      cover.Augment();
      best = std::min(best, BalAssign(cover, in.costs).max_load);
    }
    CHECK(fast.max_load == Approx(best));
    CHECK(fast.iterations <= std::max<int>(1, static_cast<int>(in.tasks.size())));
  }
}

TEST_CASE("Rebalance after churn returns a complete assignment of the live tasks", "[hta_flow]") {
  Rng rng(8);
  const HtaCosts costs{1, {3}};
  MaxCover cover(30, 1);
  std::vector<int> live;
  for (int t = 0; t < 300; ++t) live.push_back(cover.AddTask(RandomReplicas(rng, 30, 3)));
  const HtaSolution first = RunAlgorithm2(cover, costs);
  double previous = first.max_load;
  cover.SetTau(first.tau);
  cover.Augment();
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 10; ++i) {  // churn: 10 leave, 10 arrive
      const size_t k = rng.Below(static_cast<uint32_t>(live.size()));
      cover.RemoveTask(live[k]);
      live[k] = cover.AddTask(RandomReplicas(rng, 30, 3));
    }
    const HtaSolution re = Rebalance(cover, costs, round % 2 ? 0 : previous);
    previous = re.max_load;
    REQUIRE(cover.tau() == re.tau);
    int placed = 0;
    for (int t = 0; t < cover.task_slots(); ++t) {
      REQUIRE((re.assignment[static_cast<size_t>(t)] != MaxCover::kNone) == cover.live(t));
      placed += cover.live(t) ? 1 : 0;
    }
    REQUIRE(placed == 300);
    // The reported load is the real load of the assignment.
    HtaInstance in{30, costs, {}};
    std::vector<int> assignment;
    for (int t = 0; t < cover.task_slots(); ++t)
      if (cover.live(t)) {
        in.tasks.push_back(cover.replicas(t));
        assignment.push_back(re.assignment[static_cast<size_t>(t)]);
      }
    CHECK(EvaluateAssignment(in, assignment).max_load == Approx(re.max_load));
  }
}

}  // namespace
}  // namespace locsched

namespace locsched {
namespace {

TEST_CASE("bal-assign places uncovered tasks only on up servers", "[hta_flow]") {
  MaxCover cover(3, 1);
  for (int t = 0; t < 6; ++t) cover.AddTask({t % 3});
  cover.SetServerUp(0, false);
  cover.Augment();
  const HtaCosts costs{1, {3}};
  BalResult b = BalAssign(cover, costs);
  for (int s : b.server) CHECK((s == 1 || s == 2));
  CHECK(b.remote_tasks == 2);  // server 0's tasks run remotely
  cover.SetServerUp(1, false);
  cover.SetServerUp(2, false);
  b = BalAssign(cover, costs);  // nothing is up: nothing is placed
  for (int s : b.server) CHECK(s == MaxCover::kNone);
}

}  // namespace
}  // namespace locsched
