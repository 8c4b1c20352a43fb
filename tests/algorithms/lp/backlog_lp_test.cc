// Tests the daemon's aggregated backlog LP (algorithms/lp/backlog_lp.h): its order is
// a permutation of the jobs, its optimum is a lower bound on the brute-force optimum
// and on SynchPack-2's schedule of the same backlog, and a warm start from the last
// basis reaches the cold optimum.
#include "algorithms/lp/backlog_lp.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "algorithms/lp/synchpack.h"
#include "base/rng.h"
#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

// A backlog on `machines` one-slot machines, each machine its own class; every
// task has one replica; a job's tasks share its duration.
struct Tiny {
  BacklogInstance backlog;
  LpInstance offline;  // the same tasks for the offline solvers
};

Tiny RandomTiny(uint64_t seed, uint32_t machines, uint32_t jobs, uint32_t max_tasks) {
  Rng rng(seed);
  Tiny t;
  t.backlog.slots.assign(machines, 1.0);
  t.backlog.running.assign(machines, {});
  t.backlog.remote_penalty = 1.5 + rng.Below(4) * 0.5;
  t.offline.capacity.assign(machines, 1.0);
  for (uint32_t j = 0; j < jobs; ++j) {
    BacklogJob b;
    b.key = 10 + j;
    b.weight = 1.0 + rng.Below(4);
    b.tasks = 1 + rng.Below(max_tasks);
    b.duration = 1.0 + rng.Below(4);
    b.local.assign(machines, 0);
    LpJob job;
    job.weight = b.weight;
    for (uint32_t k = 0; k < b.tasks; ++k) {
      const uint32_t m = rng.Below(machines);
      ++b.local[m];
      job.tasks.push_back(LpTask{
          .placement = {m}, .duration = b.duration, .remote_penalty = t.backlog.remote_penalty});
    }
    t.backlog.jobs.push_back(b);
    t.offline.jobs.push_back(job);
  }
  return t;
}

std::set<uint32_t> Keys(const BacklogInstance& in) {
  std::set<uint32_t> keys;
  for (const BacklogJob& j : in.jobs) keys.insert(j.key);
  return keys;
}

TEST_CASE("the order is a permutation of the jobs, also past max_jobs", "[backlog_lp]") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Tiny t = RandomTiny(seed, 1 + seed % 4, 3 + seed % 7, 6);
    BacklogLpOptions options;
    options.max_jobs = 1 + seed % 5;
    BacklogLpSolver solver;
    BacklogLpResult r;
    REQUIRE(solver.Solve(t.backlog, options, &r).ok());
    REQUIRE(r.order.size() == t.backlog.jobs.size());
    CHECK(std::set<uint32_t>(r.order.begin(), r.order.end()) == Keys(t.backlog));
    CHECK(r.lp_jobs == std::min(options.max_jobs, t.backlog.jobs.size()));
    CHECK(r.completion.size() == r.lp_jobs);
    for (size_t i = 1; i < r.completion.size(); ++i)  // by completion; rounding ties by weight
      CHECK(r.completion[i - 1] <= r.completion[i] + 1e-8 * (1 + r.completion[i]));
  }
}

TEST_CASE("jobs the LP completes together are ordered by Smith's ratio", "[backlog_lp]") {
  // Ample slots: both jobs finish in the first interval, so their LP completions tie.
  // Key 1 is heavier (5) but has 20 tasks (ratio 0.25); key 2 is one task of weight 3.
  // Ordering ties by weight alone put key 1 first.
  BacklogInstance in;
  in.slots = {100};
  in.running = {{}};
  in.jobs = {BacklogJob{.key = 1, .weight = 5, .tasks = 20, .duration = 1, .local = {20}},
             BacklogJob{.key = 2, .weight = 3, .tasks = 1, .duration = 1, .local = {1}}};
  BacklogLpSolver solver;
  BacklogLpResult r;
  REQUIRE(solver.Solve(in, BacklogLpOptions{}, &r).ok());
  REQUIRE(r.completion.size() == 2);
  REQUIRE(r.completion[0] == Approx(r.completion[1]));
  CHECK(r.order == std::vector<uint32_t>{2, 1});
}

// Regression: alike jobs left the LP degenerate, and the simplex finished an arbitrary
// one first. Solve after solve, an old job could rank behind newer ones until the aging
// bound sent it off its holders (late binding's `lp` order lost 1.49x on a Google part).
TEST_CASE("alike jobs the LP could finish in any order are ranked oldest first", "[backlog_lp]") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Rng rng(seed);
    BacklogInstance in;
    in.slots = {1, 1, 1};
    in.running = {{}, {}, {}};
    for (uint32_t j = 0; j < 24; ++j) {
      BacklogJob b{.key = j, .weight = 1, .tasks = 1, .duration = 1, .local = {0, 0, 0}};
      b.local[j % 3] = 1;
      b.arrival = 1000 - j;  // the later a job's place in the list, the older it is
      in.jobs.push_back(b);
    }
    for (size_t j = in.jobs.size(); j > 1; --j) std::swap(in.jobs[j - 1], in.jobs[rng.Below(j)]);
    BacklogLpSolver solver;
    BacklogLpResult r;
    REQUIRE(solver.Solve(in, BacklogLpOptions{}, &r).ok());
    // Per class, the order must take its jobs oldest first (keys descending).
    std::vector<uint32_t> last(3, UINT32_MAX);
    for (const uint32_t key : r.order) {
      INFO("seed " << seed << " key " << key);
      CHECK(key < last[key % 3]);
      last[key % 3] = key;
    }
  }
}

TEST_CASE("the backlog LP is a lower bound on the brute-force optimum", "[backlog_lp]") {
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    const Tiny t = RandomTiny(seed, 1 + seed % 2, 2, 2);
    for (double epsilon : {1.0, 0.5}) {
      BacklogLpSolver solver;
      BacklogLpResult r;
      REQUIRE(solver.Solve(t.backlog, {.epsilon = epsilon}, &r).ok());
      const double optimum = BruteForceOptimum(t.offline);
      INFO("seed " << seed << " epsilon " << epsilon);
      CHECK(r.objective > 0);
      CHECK(r.objective <= optimum * (1 + 1e-7));
    }
  }
}

TEST_CASE("the backlog LP is a lower bound on SynchPack-2's schedule", "[backlog_lp]") {
  for (uint64_t seed = 30; seed < 45; ++seed) {
    const Tiny t = RandomTiny(seed, 3, 6, 4);
    BacklogLpSolver solver;
    BacklogLpResult r;
    REQUIRE(solver.Solve(t.backlog, {}, &r).ok());
    SolverResult sp;
    REQUIRE(SolveSynchPack(t.offline, SynchPackOptions{}, &sp).ok());
    INFO("seed " << seed);
    CHECK(r.objective <= sp.objective * (1 + 1e-7));
  }
}

TEST_CASE("a warm start reaches the cold optimum", "[backlog_lp]") {
  for (uint64_t seed = 50; seed < 60; ++seed) {
    Tiny t = RandomTiny(seed, 4, 8, 8);
    BacklogLpSolver warm;
    BacklogLpResult first, second, cold;
    REQUIRE(warm.Solve(t.backlog, {}, &first).ok());
    CHECK(!first.warm);
    // Same jobs, changed counts and running work: the shape holds, the numbers move.
    for (BacklogJob& j : t.backlog.jobs) j.weight += 1;
    t.backlog.running[0] = {0.5, 2.0};
    REQUIRE(warm.Solve(t.backlog, {}, &second).ok());
    BacklogLpSolver fresh;
    REQUIRE(fresh.Solve(t.backlog, {}, &cold).ok());
    INFO("seed " << seed);
    CHECK(second.warm);
    CHECK(!cold.warm);
    CHECK(second.objective == Approx(cold.objective).epsilon(1e-7));
  }
}

TEST_CASE("running work only delays the backlog", "[backlog_lp]") {
  for (uint64_t seed = 70; seed < 80; ++seed) {
    Tiny t = RandomTiny(seed, 2, 4, 4);
    BacklogLpSolver solver;
    BacklogLpResult idle, busy;
    REQUIRE(solver.Solve(t.backlog, {}, &idle).ok());
    t.backlog.running[1] = {3.0};
    REQUIRE(solver.Solve(t.backlog, {}, &busy).ok());
    CHECK(busy.objective >= idle.objective - 1e-9);
  }
}

TEST_CASE("hitting the time limit is an overrun without an order", "[backlog_lp]") {
  const Tiny t = RandomTiny(90, 8, 40, 30);
  BacklogLpSolver solver;
  BacklogLpResult r;
  BacklogLpOptions options;
  options.time_limit_ms = 0;
  const Status s = solver.Solve(t.backlog, options, &r);
  CHECK(s.code() == Status::Code::kResourceExhausted);
  CHECK(s.subject() == "lp.time_limit_ms");
  CHECK(r.overrun);
  CHECK(r.order.empty());
  REQUIRE(solver.Solve(t.backlog, {}, &r).ok());  // no basis was saved: a cold solve
  CHECK(!r.warm);
  CHECK(r.order.size() == t.backlog.jobs.size());
}

TEST_CASE("bad backlogs are refused by name", "[backlog_lp]") {
  Tiny t = RandomTiny(1, 2, 2, 2);
  BacklogLpSolver solver;
  BacklogLpResult r;
  t.backlog.slots.assign(2, 0.0);
  CHECK(solver.Solve(t.backlog, {}, &r).code() == Status::Code::kFailedPrecondition);
  t = RandomTiny(1, 2, 2, 2);
  t.backlog.jobs[0].local.pop_back();
  CHECK(solver.Solve(t.backlog, {}, &r).code() == Status::Code::kInvalidArgument);
  t = RandomTiny(1, 2, 2, 2);
  t.backlog.jobs[1].duration = 0;
  CHECK(solver.Solve(t.backlog, {}, &r).code() == Status::Code::kInvalidArgument);
  BacklogInstance empty;
  CHECK(solver.Solve(empty, {}, &r).ok());
  CHECK(r.order.empty());
}

}  // namespace
}  // namespace locsched
