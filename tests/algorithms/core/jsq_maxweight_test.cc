// Tests JsqMaxWeight (algorithms/core/jsq_maxweight.h): JSQ routing and random tie-breaks,
// MaxWeight on both sides of alpha*|Q_m| >= gamma*|R|, work conservation, locality, rerouting.
#include "algorithms/core/jsq_maxweight.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

constexpr uint32_t kR = LocalityQueues::kRemote;

// A JsqMaxWeight over `machines` machines, with helpers to make tasks and fill queues.
struct Env {
  explicit Env(uint32_t machines, double alpha = 0.75, double gamma = 0.25, uint64_t seed = 1)
      : Env(machines, Params(alpha, gamma, seed)) {}
  Env(uint32_t machines, const PolicyParams& params) : policy(params, cluster) {
    for (uint32_t m = 0; m < machines; ++m) policy.AddMachine(cluster.AddMachine(Machine{}));
    job = cluster.NewJob(1);
  }
  static PolicyParams Params(double alpha, double gamma, uint64_t seed) {
    PolicyParams p;
    p.kind = PolicyKind::kJsqMaxWeight;
    p.alpha = alpha;
    p.gamma = gamma;
    p.seed = seed;
    return p;
  }
  // A new task of `job` with the given replicas (not queued yet).
  TaskId Task(std::vector<MachineId> replicas, JobId j = kNoId) {
    const TaskId t = cluster.NewTask(j == kNoId ? job : j, TaskKind::kMap);
    cluster.task(t).replicas.Assign(replicas);
    cluster.task(t).state = TaskState::kQueued;
    return t;
  }
  // Pushes n filler tasks (no replicas) straight into queue q, bypassing routing.
  void Fill(uint32_t q, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) policy.mutable_queues().Push(Task({}), q);
  }
  uint32_t Len(uint32_t q) const { return policy.queues().Length(q); }

  Cluster cluster;
  JsqMaxWeight policy;
  JobId job = kNoId;
};

// Pearson's chi-square statistic of `counts` against a uniform spread.
double ChiSquareUniform(const std::map<uint32_t, int>& counts, int trials, size_t cells) {
  const double expected = static_cast<double>(trials) / static_cast<double>(cells);
  double chi2 = 0;
  for (const auto& entry : counts) {
    const double d = entry.second - expected;
    chi2 += d * d / expected;
  }
  // Cells never hit count too (they are missing from the map).
  chi2 += static_cast<double>(cells - counts.size()) * expected;
  return chi2;
}

TEST_CASE("JSQ routes to the strictly shortest candidate queue", "[jsq]") {
  Env env(6);
  const TaskId t = env.Task({1, 3, 4});
  env.Fill(1, 3);
  env.Fill(3, 1);
  env.Fill(4, 2);
  env.Fill(kR, 2);
  // Machine 0 (empty) is not a replica, so it is never a candidate.
  for (int i = 0; i < 200; ++i) REQUIRE(env.policy.Route(t) == 3);

  env.Fill(3, 2);
  env.Fill(4, 1);  // replicas at 3, 3, 3; R = 2 is now the strict minimum
  for (int i = 0; i < 200; ++i) REQUIRE(env.policy.Route(t) == kR);

  // Enqueue pushes where Route says.
  env.Fill(kR, 5);  // R = 7; replicas 3, 3, 3 -> tie among replicas only
  const uint32_t before_r = env.Len(kR);
  env.policy.Enqueue(t);
  CHECK(env.Len(kR) == before_r);
  CHECK(env.Len(1) + env.Len(3) + env.Len(4) == 10);
}

// Params with remote_bias and priority routing; intra-queue `priority`.
PolicyParams Biased(uint32_t bias, uint32_t slack, uint64_t seed = 1) {
  PolicyParams p = Env::Params(0.75, 0.25, seed);
  p.intra = IntraQueue::kPriority;
  p.remote_bias = bias;
  p.priority_slack = slack;
  return p;
}

TEST_CASE("JSQ with remote_bias takes R only when shorter by more than the bias", "[jsq]") {
  Env env(3, Biased(2, 0));
  const TaskId t = env.Task({0, 1});
  env.Fill(0, 2);
  env.Fill(1, 4);
  // R (0) is shorter than both replicas, but not by more than 2: the shorter local queue.
  for (int i = 0; i < 100; ++i) REQUIRE(env.policy.Route(t) == 0);
  env.Fill(0, 1);  // 3 > 0 + 2
  for (int i = 0; i < 100; ++i) REQUIRE(env.policy.Route(t) == kR);
  env.Fill(kR, 1);  // a tie at 3 = 1 + 2 goes local
  for (int i = 0; i < 100; ++i) REQUIRE(env.policy.Route(t) == 0);

  Env paper(3);  // the paper's rule on the same lengths: R, the strict minimum
  const TaskId u = paper.Task({0, 1});
  paper.Fill(0, 2);
  paper.Fill(1, 4);
  for (int i = 0; i < 100; ++i) REQUIRE(paper.policy.Route(u) == kR);
}

TEST_CASE("JSQ with remote_bias breaks local ties toward a free slot, then at random", "[jsq]") {
  Env env(4, Biased(1, 0, /*seed=*/7));
  const TaskId t = env.Task({0, 1, 2});
  env.cluster.machine(0).running = 1;  // one slot each: 0 and 2 are busy, 1 is free
  env.cluster.machine(2).running = 1;
  for (int i = 0; i < 200; ++i) REQUIRE(env.policy.Route(t) == 1);
  env.cluster.machine(1).running = 1;  // all busy: every replica gets its share
  std::map<uint32_t, int> seen;
  for (int i = 0; i < 3000; ++i) ++seen[env.policy.Route(t)];
  REQUIRE(seen.size() == 3);
  for (const auto& [queue, n] : seen) CHECK(n > 800);
}

TEST_CASE("priority routing sends a ranked task to a local queue it would lead", "[jsq]") {
  // Job `low` fills Q0; `high` ranks first. JSQ would send both jobs' next tasks to the
  // empty R; under priority a task of `high` runs first in Q0, so it goes there.
  Env env(2, Biased(0, 5));
  const JobId low = env.job, high = env.cluster.NewJob(1);
  env.policy.mutable_queues().SetPriorityRanks({1, 0});
  for (int i = 0; i < 3; ++i) env.policy.mutable_queues().Push(env.Task({0}, low), 0);
  const TaskId h = env.Task({0}, high), l = env.Task({0}, low);
  CHECK(env.policy.queues().TasksBefore(0, high) == 0);
  CHECK(env.policy.queues().TasksBefore(0, low) == 3);
  CHECK(env.policy.Route(h) == 0);
  CHECK(env.policy.Route(l) == kR);  // three of its own tasks wait there
  env.policy.Enqueue(h);
  CHECK(env.Len(0) == 4);
  CHECK(env.policy.PickFor(0).task == h);

  Env tight(2, Biased(0, 2));  // |Q0| = 3 > |R| + 2: too long, R as JSQ says
  tight.policy.mutable_queues().SetPriorityRanks({1, 0});
  const JobId high2 = tight.cluster.NewJob(1);
  for (int i = 0; i < 3; ++i) tight.policy.mutable_queues().Push(tight.Task({0}), 0);
  CHECK(tight.policy.Route(tight.Task({0}, high2)) == kR);

  PolicyParams fair_params = Env::Params(0.75, 0.25, 1);
  fair_params.priority_slack = 5;  // slack without `priority` changes nothing
  Env fair(2, fair_params);
  fair.Fill(0, 3);
  CHECK(fair.policy.Route(fair.Task({0}, fair.cluster.NewJob(1))) == kR);
}

TEST_CASE("JSQ sends a task without replicas to the remote queue", "[jsq]") {
  Env env(3);
  env.Fill(kR, 50);
  const TaskId t = env.Task({});
  for (int i = 0; i < 50; ++i) REQUIRE(env.policy.Route(t) == kR);
}

TEST_CASE("JSQ breaks ties uniformly at random", "[jsq]") {
  Env env(5, 0.75, 0.25, /*seed=*/42);
  constexpr int kTrials = 40000;
  // chi-square critical values at p = 1e-6 are 27.6 (2 d.o.f.) and 30.7 (3 d.o.f.):
  // with a fixed seed a correct implementation never comes near 30.
  SECTION("all four candidates empty") {
    const TaskId t = env.Task({0, 2, 4});
    std::map<uint32_t, int> counts;
    for (int i = 0; i < kTrials; ++i) ++counts[env.policy.Route(t)];
    CHECK(counts.size() == 4);
    for (uint32_t q : {0u, 2u, 4u, kR}) CHECK(counts[q] > 0);
    CHECK(ChiSquareUniform(counts, kTrials, 4) < 30);
  }
  SECTION("three of four tied at the minimum") {
    const TaskId t = env.Task({0, 2, 4});
    env.Fill(2, 1);
    std::map<uint32_t, int> counts;
    for (int i = 0; i < kTrials; ++i) ++counts[env.policy.Route(t)];
    CHECK(counts.count(2) == 0);
    CHECK(counts.size() == 3);
    CHECK(ChiSquareUniform(counts, kTrials, 3) < 30);
  }
  SECTION("two replicas tied, the remote queue longer") {
    const TaskId t = env.Task({1, 3, 4});
    env.Fill(1, 2);
    env.Fill(3, 2);
    env.Fill(4, 3);
    env.Fill(kR, 5);
    std::map<uint32_t, int> counts;
    for (int i = 0; i < kTrials; ++i) ++counts[env.policy.Route(t)];
    CHECK(counts.size() == 2);
    CHECK(counts[1] > 0);
    CHECK(counts[3] > 0);
    CHECK(ChiSquareUniform(counts, kTrials, 2) < 30);
  }
}

// Many replicas: the shortest found anywhere in the list, ties split uniformly up to
// the last position (62 to 100 replicas, around the 64-bit word sizes a mask would use).
TEST_CASE("JSQ routes tasks with many replicas by the same rule", "[jsq]") {
  for (const uint32_t n : {62u, 63u, 64u, 100u}) {
    CAPTURE(n);
    // Replica queues hold 2 tasks except those in `short_ones` (1); R holds `remote`.
    auto setup = [n](Env& env, std::vector<uint32_t> short_ones, uint32_t remote) {
      std::vector<MachineId> replicas(n);
      for (uint32_t m = 0; m < n; ++m) replicas[m] = m;
      for (uint32_t m = 0; m < n; ++m)
        env.Fill(m, std::count(short_ones.begin(), short_ones.end(), m) ? 1 : 2);
      env.Fill(kR, remote);
      return env.Task(replicas);
    };
    {  // the last replica alone is shortest (the mask's top bit at n = 63)
      Env env(n);
      const TaskId t = setup(env, {n - 1}, 3);
      for (int i = 0; i < 100; ++i) REQUIRE(env.policy.Route(t) == n - 1);
    }
    {  // the first, a middle and the last replica tie with R
      Env env(n, 0.75, 0.25, /*seed=*/n);
      const TaskId t = setup(env, {0, n / 2, n - 1}, 1);
      std::map<uint32_t, int> counts;
      constexpr int kTrials = 20000;
      for (int i = 0; i < kTrials; ++i) ++counts[env.policy.Route(t)];
      CHECK(counts.size() == 4);
      for (uint32_t q : {0u, n / 2, n - 1, kR}) CHECK(counts[q] > 0);
      CHECK(ChiSquareUniform(counts, kTrials, 4) < 30);
    }
  }
}

// Up to three replicas take a table-driven path; a fourth replica that is down sends the
// same task through the general two-pass path, where it can never tie. Same seed, same
// queues: the two must route every task alike, draw for draw.
TEST_CASE("JSQ's few-replica path routes as the general path does", "[jsq]") {
  Env few(6, 0.75, 0.25, /*seed=*/7), general(6, 0.75, 0.25, /*seed=*/7);
  general.policy.OnMachineUnavailable(5);
  Rng pick(3);
  for (int i = 0; i < 5000; ++i) {
    std::vector<MachineId> replicas{0, 1, 2, 3, 4};
    for (uint32_t k = 0; k < 3; ++k) std::swap(replicas[k], replicas[k + pick.Below(5 - k)]);
    replicas.resize(pick.Below(4));  // 0 to 3 replicas
    const TaskId a = few.Task(replicas);
    replicas.push_back(5);
    const TaskId b = general.Task(replicas);
    const uint32_t qa = few.policy.Route(a), qb = general.policy.Route(b);
    REQUIRE(qa == qb);
    few.policy.mutable_queues().Push(a, qa);
    general.policy.mutable_queues().Push(b, qb);
    // Two free slots per arrival keep the queues short, so ties stay common.
    for (int k = 0; k < 2; ++k) {
      const MachineId m = pick.Below(5);
      REQUIRE(few.policy.PickFor(m).task == general.policy.PickFor(m).task);
    }
  }
}

TEST_CASE("JSQ skips down and draining replicas", "[jsq]") {
  SECTION("policy level") {
    Env env(4);
    const TaskId t = env.Task({0, 1});
    env.Fill(1, 2);
    env.Fill(kR, 2);
    REQUIRE(env.policy.Route(t) == 0);  // 0 is the strict minimum while available
    env.policy.OnMachineUnavailable(0);
    for (int i = 0; i < 300; ++i) {
      const uint32_t q = env.policy.Route(t);
      REQUIRE(q != 0);
      REQUIRE((q == 1 || q == kR));
    }
    env.policy.OnMachineAvailable(0);
    CHECK(env.policy.Route(t) == 0);
  }
  SECTION("through the scheduler: draining and down machines") {
    PolicyParams p;
    p.kind = PolicyKind::kJsqMaxWeight;
    Scheduler s(p);
    for (int m = 0; m < 3; ++m) s.AddMachine(Machine{});
    auto& jsq = dynamic_cast<JsqMaxWeight&>(s.policy());
    s.SetDraining(0, true);
    const MachineId down = 1;
    s.MachineDown(down);
    const std::vector<MachineId> replicas{0, 1};
    std::vector<TaskSpec> specs(100);
    for (TaskSpec& spec : specs) spec.replicas = replicas;
    s.SubmitJob(1, specs);
    CHECK(jsq.queues().Length(0) == 0);
    CHECK(jsq.queues().Length(1) == 0);
    CHECK(jsq.queues().Length(kR) == 100);
    s.MachineUp(down);
    s.SubmitJob(1, specs);
    CHECK(jsq.queues().Length(0) == 0);
    CHECK(jsq.queues().Length(1) == 100);  // JSQ prefers the empty Q_1 over R = 100
  }
}

TEST_CASE("MaxWeight serves local iff alpha*|Q_m| >= gamma*|R|", "[jsq]") {
  // alpha = 0.75, gamma = 0.25 are exact in binary, so the equality cases are exact.
  struct Case {
    uint32_t local, remote, expect;  // expect: 0 = machine 0's queue, kR, or kNoId
  };
  const Case cases[] = {
      {1, 3, 0},      // 0.75 == 0.75: the inequality is not strict, local wins
      {1, 4, kR},     // 0.75 < 1.0
      {2, 6, 0},      // equality again
      {2, 7, kR},     // 1.5 < 1.75
      {3, 8, 0},      // 2.25 > 2.0
      {3, 1, 0},      //
      {0, 5, kR},     // local empty: work-conserving, take from R
      {5, 0, 0},      // remote empty: take local
      {0, 0, kNoId},  // both empty: nothing
  };
  for (const Case& c : cases) {
    CAPTURE(c.local, c.remote);
    Env env(2);
    env.Fill(0, c.local);
    env.Fill(kR, c.remote);
    env.Fill(1, 4);  // another machine's queue never matters
    REQUIRE(env.policy.ChooseQueue(0) == c.expect);
    const TaskId pick = env.policy.PickFor(0).task;
    if (c.expect == kNoId) {
      CHECK(pick == kNoId);
      continue;
    }
    REQUIRE(pick != kNoId);
    CHECK(env.Len(0) == c.local - (c.expect == 0 ? 1 : 0));
    CHECK(env.Len(kR) == c.remote - (c.expect == kR ? 1 : 0));
    CHECK(env.Len(1) == 4);
  }
}

TEST_CASE("MaxWeight uses the paper's rates and follows SetRates", "[jsq]") {
  Env env(1, 0.8, 0.2);
  env.Fill(0, 1);
  env.Fill(kR, 4);
  CHECK(env.policy.ChooseQueue(0) == 0);  // 0.8 * 1 >= 0.2 * 4
  env.Fill(kR, 1);
  CHECK(env.policy.ChooseQueue(0) == kR);  // 0.8 < 0.2 * 5
  env.policy.SetRates(0.5, 0.0625);
  CHECK(env.policy.ChooseQueue(0) == 0);  // 0.5 >= 0.0625 * 5
  env.policy.SetRates(0.5, 0.5);
  CHECK(env.policy.ChooseQueue(0) == kR);  // 0.5 < 2.5
}

TEST_CASE("MaxWeight serves a free slot from its own queue or from R", "[jsq]") {
  Env env(3);
  SECTION("from the machine's own queue") {
    const TaskId t = env.Task({0, 2});
    env.policy.mutable_queues().Push(t, 0);
    CHECK(env.policy.PickFor(0).task == t);
  }
  SECTION("from R, to a machine that holds a replica") {
    const TaskId t = env.Task({1, 2});
    env.policy.mutable_queues().Push(t, kR);
    CHECK(env.policy.PickFor(2).task == t);
  }
  SECTION("from R, to a machine that holds none") {
    const TaskId t = env.Task({1, 2});
    env.policy.mutable_queues().Push(t, kR);
    CHECK(env.policy.PickFor(0).task == t);
  }
  CHECK(env.policy.PickFor(0).task == kNoId);
}

TEST_CASE("MaxWeight picks the job inside a queue by the intra-queue policy", "[jsq]") {
  Env env(1);  // intra defaults to fair
  const JobId busy = env.job;
  const JobId idle = env.cluster.NewJob(1);
  const TaskId a = env.Task({0}, busy);
  const TaskId b = env.Task({0}, idle);
  env.policy.mutable_queues().Push(a, 0);
  env.policy.mutable_queues().Push(b, 0);
  env.cluster.job(busy).running = 2;
  env.policy.OnJobChanged(busy);  // as the Scheduler does after every change
  CHECK(env.policy.PickFor(0).task == b);
  CHECK(env.policy.PickFor(0).task == a);
}

TEST_CASE("JSQ OnMachineUnavailable reroutes the machine's local queue", "[jsq]") {
  Env env(3);
  std::vector<TaskId> shared, only_zero;
  for (int i = 0; i < 21; ++i) {
    shared.push_back(env.Task({0, 1}));
    env.policy.mutable_queues().Push(shared.back(), 0);
  }
  for (int i = 0; i < 5; ++i) {
    only_zero.push_back(env.Task({0}));
    env.policy.mutable_queues().Push(only_zero.back(), 0);
  }
  env.Fill(2, 7);
  REQUIRE(env.Len(0) == 26);

  env.policy.OnMachineUnavailable(0);
  CHECK(env.Len(0) == 0);
  CHECK(env.Len(1) + env.Len(kR) == 26);  // none lost
  CHECK(env.Len(2) == 7);                 // untouched
  const QueueStats stats = env.policy.Stats();
  CHECK(stats.queued == 33);
  CHECK(stats.remote_queue == env.Len(kR));
  CHECK(stats.longest_local == std::max(env.Len(1), env.Len(2)));
  // Everything rerouted went through JSQ, oldest first: the 21 two-replica tasks
  // split between Q_1 and R within one of each other, then the 5 tasks local
  // only to machine 0 had R as their only candidate.
  CHECK(env.Len(kR) >= env.Len(1) + 4);
  CHECK(env.Len(kR) <= env.Len(1) + 6);
  // And nothing routes to machine 0 until it is back.
  CHECK(env.policy.Route(env.Task({0})) == kR);
  env.policy.OnMachineAvailable(0);
  CHECK(env.policy.Route(env.Task({0})) == 0);
  CHECK(env.policy.LocalQueueLength(1) == env.Len(1));
}

}  // namespace
}  // namespace locsched
