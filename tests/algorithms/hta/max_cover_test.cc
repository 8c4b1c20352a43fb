// Tests MaxCover (algorithms/hta/max_cover.h): after every step of long seeded random
// sequences of task arrivals, removals, server loss/return and tau changes, the
// incremental flow is valid and its value equals LEMON's from-scratch Preflow.
#include "algorithms/hta/max_cover.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "algorithms/hta/preflow_cover.h"
#include "base/rng.h"
#include "tests/algorithms/hta/hta_test_util.h"

namespace locsched {
namespace {

// The live tasks and server states as a CoverProblem for the reference solver.
CoverProblem Snapshot(const MaxCover& cover) {
  CoverProblem p;
  p.servers = cover.servers();
  p.tau = cover.tau();
  for (int s = 0; s < cover.servers(); ++s) {
    p.up.push_back(cover.up(s) ? 1 : 0);
    p.base.push_back(cover.base(s));
  }
  for (int t = 0; t < cover.task_slots(); ++t)
    if (cover.live(t)) p.tasks.push_back(cover.replicas(t));
  return p;
}

// Capacities, conservation (each covered task sits in exactly its server's list,
// the flow is the number of covered tasks) and edges only to up replica servers.
void CheckValid(const MaxCover& cover) {
  int covered = 0;
  for (int s = 0; s < cover.servers(); ++s) {
    const std::vector<int>& mine = cover.covered(s);
    REQUIRE(static_cast<int>(mine.size()) <=
            (cover.up(s) ? std::max(0, cover.tau() - cover.base(s)) : 0));
    for (int t : mine) REQUIRE(cover.match(t) == s);
    covered += static_cast<int>(mine.size());
  }
  REQUIRE(covered == cover.flow());
  int matched = 0;
  for (int t = 0; t < cover.task_slots(); ++t) {
    const int s = cover.match(t);
    if (s == MaxCover::kNone) continue;
    ++matched;
    REQUIRE(cover.live(t));
    const std::vector<int>& replicas = cover.replicas(t);
    REQUIRE(std::find(replicas.begin(), replicas.end(), s) != replicas.end());
    REQUIRE(cover.up(s));
  }
  REQUIRE(matched == cover.flow());
}

void CheckMaximum(const MaxCover& cover) {
  CheckValid(cover);
  REQUIRE(cover.flow() == PreflowCoverValue(Snapshot(cover)));
}

// A live task id chosen uniformly.
int RandomLive(Rng& rng, const MaxCover& cover) {
  std::vector<int> live;
  for (int t = 0; t < cover.task_slots(); ++t)
    if (cover.live(t)) live.push_back(t);
  return live[rng.Below(static_cast<uint32_t>(live.size()))];
}

// One random update: mostly arrivals and removals, sometimes a server flips or tau moves.
void RandomStep(Rng& rng, MaxCover& cover, int max_replicas) {
  const uint32_t kind = rng.Below(100);
  if (kind < 45 || cover.live_tasks() == 0) {
    cover.AddTask(
        RandomReplicas(rng, cover.servers(),
                       1 + static_cast<int>(rng.Below(static_cast<uint32_t>(max_replicas)))));
  } else if (kind < 75) {
    cover.RemoveTask(RandomLive(rng, cover));
  } else if (kind < 87) {
    const int s = static_cast<int>(rng.Below(static_cast<uint32_t>(cover.servers())));
    cover.SetServerUp(s, !cover.up(s));
  } else {
    cover.SetTau(static_cast<int>(rng.Below(6)));
  }
}

TEST_CASE("incremental max-cover equals Preflow after every step of random sequences",
          "[max_cover]") {
  struct Shape {
    int servers, replicas, steps;
  };
  const Shape shapes[] = {{1, 1, 300}, {3, 2, 600}, {8, 3, 800}, {25, 3, 800}, {60, 2, 600}};
  for (const Shape& shape : shapes) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      INFO("servers " << shape.servers << " seed " << seed);
      Rng rng(seed * 7919 + static_cast<uint64_t>(shape.servers));
      MaxCover cover(shape.servers, 1);
      for (int step = 0; step < shape.steps; ++step) {
        INFO("step " << step);
        RandomStep(rng, cover, shape.replicas);
        cover.Augment();
        CheckMaximum(cover);
      }
    }
  }
}

TEST_CASE("batched updates then one Augment also reach the maximum", "[max_cover]") {
  Rng rng(99);
  MaxCover cover(40, 2);
  for (int round = 0; round < 60; ++round) {
    const int updates = 1 + static_cast<int>(rng.Below(30));
    for (int i = 0; i < updates; ++i) RandomStep(rng, cover, 3);
    CheckValid(cover);  // valid (if not maximum) between updates
    cover.Augment();
    CheckMaximum(cover);
  }
}

TEST_CASE("long augmenting paths: a chain needs every task shifted", "[max_cover]") {
  // Task i holds data on servers i and i+1; task 0 arrives last and can only be
  // covered if every other task moves one server to the right.
  const int n = 200;
  MaxCover cover(n + 1, 1);
  std::vector<int> ids;
  for (int i = 1; i <= n; ++i) ids.push_back(cover.AddTask({i - 1, i}));
  cover.Augment();
  CheckMaximum(cover);
  cover.AddTask({0});
  cover.Augment();
  CheckMaximum(cover);
  REQUIRE(cover.flow() == n + 1);
  cover.SetServerUp(n, false);  // the right end goes down: one task must lose its cover
  cover.Augment();
  CheckMaximum(cover);
  REQUIRE(cover.flow() == n);
}

TEST_CASE("lowering tau pushes back exactly the excess and re-augments", "[max_cover]") {
  Rng rng(5);
  MaxCover cover(10, 6);
  for (int t = 0; t < 120; ++t) cover.AddTask(RandomReplicas(rng, 10, 3));
  cover.Augment();
  CheckMaximum(cover);
  for (int tau : {5, 2, 4, 1, 0, 3, 12, 1}) {
    cover.SetTau(tau);
    CheckValid(cover);
    cover.Augment();
    CheckMaximum(cover);
  }
}

TEST_CASE("removed ids are reused and a removed task holds no flow", "[max_cover]") {
  MaxCover cover(2, 1);
  const int a = cover.AddTask({0});
  const int b = cover.AddTask({0, 1});
  cover.Augment();
  REQUIRE(cover.flow() == 2);
  cover.RemoveTask(a);
  REQUIRE(cover.flow() == 1);
  REQUIRE_FALSE(cover.live(a));
  REQUIRE(cover.AddTask({1}) == a);
  cover.Augment();
  CheckMaximum(cover);
  REQUIRE(cover.match(b) != MaxCover::kNone);
}

TEST_CASE("base loads and added servers: still equal to Preflow after every step", "[max_cover]") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed * 104729);
    MaxCover cover(4, 2);
    for (int step = 0; step < 600; ++step) {
      INFO("step " << step);
      const uint32_t kind = rng.Below(10);
      if (kind < 2) {
        const int s = static_cast<int>(rng.Below(static_cast<uint32_t>(cover.servers())));
        cover.SetBase(s, static_cast<int>(rng.Below(5)));
      } else if (kind < 3 && cover.servers() < 30) {
        cover.AddServer();
      } else {
        RandomStep(rng, cover, 3);
      }
      CheckValid(cover);  // a raised base pushes back at once
      cover.Augment();
      CheckMaximum(cover);
    }
  }
}

}  // namespace
}  // namespace locsched
