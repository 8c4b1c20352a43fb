// Tests SolveQuincyFlow (algorithms/quincy/quincy_flow.h): on seeded random small
// instances the flow's cost equals a brute-force minimum over every assignment of
// tasks to free slots or to their job's unscheduled node, under both LEMON solvers,
// and the returned assignment is valid and costs what the flow says; plus hand-worked
// networks.
#include "algorithms/quincy/quincy_flow.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "base/rng.h"

namespace locsched {
namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

// The cheapest completion of tasks i.. given the slots and U_j room left (enumeration).
int64_t BruteFrom(const QuincyProblem& p, size_t i, std::vector<int>& free,
                  std::vector<int>& room) {
  if (i == p.tasks.size()) return 0;
  const QuincyTask& t = p.tasks[i];
  int64_t best = kNone;
  const auto j = static_cast<size_t>(t.job);
  if (room[j] > 0) {
    --room[j];
    const int64_t rest = BruteFrom(p, i + 1, free, room);
    if (rest != kNone) best = std::min(best, t.unscheduled + rest);
    ++room[j];
  }
  for (size_t m = 0; m < free.size(); ++m) {
    if (free[m] == 0) continue;
    --free[m];
    const int64_t rest = BruteFrom(p, i + 1, free, room);
    if (rest != kNone) best = std::min(best, QuincyPlacementCost(p, t, static_cast<int>(m)) + rest);
    ++free[m];
  }
  return best;
}

// The minimum cost of any assignment (kNone if the U_j bounds leave none).
int64_t BruteForce(const QuincyProblem& p) {
  std::vector<int> free = p.free_slots;
  std::vector<int> room(static_cast<size_t>(p.jobs), static_cast<int>(p.tasks.size()));
  for (size_t j = 0; j < p.max_unscheduled.size(); ++j)
    if (p.max_unscheduled[j] >= 0) room[j] = p.max_unscheduled[j];
  return BruteFrom(p, 0, free, room);
}

QuincyProblem RandomProblem(Rng& rng) {
  QuincyProblem p;
  const uint32_t machines = 1 + rng.Below(4), racks = 1 + rng.Below(2);
  for (uint32_t m = 0; m < machines; ++m) {
    p.rack.push_back(static_cast<int>(rng.Below(racks)));
    p.free_slots.push_back(static_cast<int>(rng.Below(3)));
  }
  p.local_cost = rng.Below(2);
  p.rack_cost = p.local_cost + rng.Below(8);
  p.remote_cost = p.rack_cost + rng.Below(8);
  p.jobs = static_cast<int>(1 + rng.Below(2));
  const uint32_t tasks = 1 + rng.Below(5);
  for (uint32_t i = 0; i < tasks; ++i) {
    QuincyTask& t = p.tasks.emplace_back();
    t.job = static_cast<int>(rng.Below(static_cast<uint32_t>(p.jobs)));
    for (uint32_t m = 0; m < machines; ++m)
      if (rng.Below(3) == 0) t.holders.push_back(static_cast<int>(m));
    t.unscheduled = rng.Below(20);
  }
  if (rng.Below(3) == 0)
    for (int j = 0; j < p.jobs; ++j) p.max_unscheduled.push_back(static_cast<int>(rng.Below(3)));
  return p;
}

// Checks a solver's answer: capacities kept, U_j bounds kept, cost = the flow's cost.
void CheckAssignment(const QuincyProblem& p, const QuincyAssignment& a) {
  REQUIRE(a.machine.size() == p.tasks.size());
  std::vector<int> used(p.free_slots.size(), 0), unscheduled(static_cast<size_t>(p.jobs), 0);
  int64_t cost = 0;
  for (size_t i = 0; i < p.tasks.size(); ++i) {
    const int m = a.machine[i];
    if (m < 0) {
      ++unscheduled[static_cast<size_t>(p.tasks[i].job)];
      cost += p.tasks[i].unscheduled;
      continue;
    }
    ++used[static_cast<size_t>(m)];
    cost += QuincyPlacementCost(p, p.tasks[i], m);
  }
  for (size_t m = 0; m < used.size(); ++m) CHECK(used[m] <= p.free_slots[m]);
  for (size_t j = 0; j < p.max_unscheduled.size(); ++j)
    if (p.max_unscheduled[j] >= 0) CHECK(unscheduled[j] <= p.max_unscheduled[j]);
  CHECK(cost == a.cost);
}

TEST_CASE("quincy flow: cost equals the brute-force optimum on random instances") {
  Rng rng(20090911);
  for (int round = 0; round < 400; ++round) {
    const QuincyProblem p = RandomProblem(rng);
    const int64_t best = BruteForce(p);
    for (const QuincyAlgorithm alg :
         {QuincyAlgorithm::kNetworkSimplex, QuincyAlgorithm::kCostScaling}) {
      INFO("round " << round << " algorithm " << static_cast<int>(alg));
      const QuincyAssignment a = SolveQuincyFlow(p, alg);
      REQUIRE(a.feasible == (best != kNone));
      if (!a.feasible) continue;
      CHECK(a.cost == best);
      CheckAssignment(p, a);
    }
  }
}

// Two machines in rack 0, one in rack 1; one slot each.
QuincyProblem ThreeMachines() {
  QuincyProblem p;
  p.rack = {0, 0, 1};
  p.free_slots = {1, 1, 1};
  p.rack_cost = 3;
  p.remote_cost = 10;
  p.jobs = 1;
  return p;
}

TEST_CASE("quincy flow: a task with a free holder runs there") {
  QuincyProblem p = ThreeMachines();
  p.tasks.push_back({0, {1}, 1});
  const QuincyAssignment a = SolveQuincyFlow(p);
  REQUIRE(a.feasible);
  CHECK(a.machine == std::vector<int>{1});
  CHECK(a.cost == 0);
}

TEST_CASE("quincy flow: a task waits until its wait costs more than a rack or remote run") {
  QuincyProblem p = ThreeMachines();
  p.free_slots = {0, 1, 1};  // its holder, machine 0, is full
  p.tasks.push_back({0, {0}, 2});
  CHECK(SolveQuincyFlow(p).machine == std::vector<int>{-1});  // 2 < rack 3
  p.tasks[0].unscheduled = 4;
  CHECK(SolveQuincyFlow(p).machine == std::vector<int>{1});  // rack-local, 3
  p.free_slots = {0, 0, 1};
  CHECK(SolveQuincyFlow(p).machine == std::vector<int>{-1});  // 4 < remote 10
  p.tasks[0].unscheduled = 11;
  const QuincyAssignment a = SolveQuincyFlow(p);
  CHECK(a.machine == std::vector<int>{2});
  CHECK(a.cost == 10);
}

TEST_CASE("quincy flow: the longer waiting task gets the contested holder") {
  QuincyProblem p = ThreeMachines();
  p.free_slots = {1, 0, 0};
  p.tasks.push_back({0, {0}, 1});
  p.tasks.push_back({0, {0}, 5});
  const QuincyAssignment a = SolveQuincyFlow(p);
  CHECK(a.machine == std::vector<int>{-1, 0});
  CHECK(a.cost == 1);
}

TEST_CASE("quincy flow: a task moves off its holder for one that has no other") {
  // Task 0 holds replicas on machines 0 and 2, task 1 on machine 0 only; slots on 0 and 2.
  QuincyProblem p = ThreeMachines();
  p.free_slots = {1, 0, 1};
  p.tasks.push_back({0, {0, 2}, 20});
  p.tasks.push_back({0, {0}, 20});
  const QuincyAssignment a = SolveQuincyFlow(p);
  CHECK(a.machine == std::vector<int>{2, 0});
  CHECK(a.cost == 0);
}

TEST_CASE("quincy flow: max_unscheduled forces placements, or is infeasible") {
  QuincyProblem p = ThreeMachines();
  p.free_slots = {0, 0, 1};
  p.tasks.push_back({0, {0}, 0});
  p.max_unscheduled = {0};
  const QuincyAssignment a = SolveQuincyFlow(p);
  REQUIRE(a.feasible);
  CHECK(a.machine == std::vector<int>{2});
  p.free_slots = {0, 0, 0};
  CHECK_FALSE(SolveQuincyFlow(p).feasible);
}

}  // namespace
}  // namespace locsched
