// Tests preemption for tenant queues (algorithms/core/preemption.h, Scheduler::Preempt):
// hand-worked cases of the rules (free slots kept first, the most recently started task
// first, no queue or ancestor taken below its guarantee in whole slots, at most the
// starved queues' deficits, nothing before the timeout or the guarantee grace, victims
// only after the kill wait), and properties over random trees and workloads with
// preemption at every step: the rules hold in every round, every task finishes exactly once and the
// preempted starts use no retries.
#include "algorithms/core/preemption.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/core/queue_sharing.h"
#include "algorithms/core/scheduler.h"
#include "algorithms/core/wait_reason.h"
#include "tests/algorithms/core/queue_fixtures.h"

namespace locsched {
namespace {

constexpr double kTimeout = 10;

using test::Q;
using test::Tree;

using test::Make;

JobId Submit(Scheduler& s, std::string_view queue, uint32_t tasks) {
  std::vector<MachineId> replicas{0};
  std::vector<TaskSpec> specs(tasks);
  for (TaskSpec& t : specs) t.replicas = replicas;
  return s.SubmitJob(1, specs, JobTenancy{*s.sharing()->tree().Find(queue), kNoId});
}

// Starts n tasks on machine 0 at time `now`; returns them in start order.
std::vector<TaskId> StartAt(Scheduler& s, double now, uint32_t n) {
  s.SetNow(now);
  std::vector<TaskId> out;
  for (uint32_t i = 0; i < n; ++i) {
    const std::optional<Assignment> a = s.Assign(0);
    REQUIRE(a);
    out.push_back(a->task);
  }
  return out;
}

uint32_t Running(const Scheduler& s, std::string_view queue) {
  return s.sharing()->Usage(*s.sharing()->tree().Find(queue)).running_tasks;
}

TEST_CASE("preemption: the most recently started tasks go first, ties by task id") {
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kFifo, 1, 8);
  Submit(*s, "a", 8);
  const std::vector<TaskId> at0 = StartAt(*s, 0, 4);
  const std::vector<TaskId> at1 = StartAt(*s, 1, 2);
  const std::vector<TaskId> at2 = StartAt(*s, 2, 2);
  CHECK(s->started_s(at1[0]) == 1);
  Submit(*s, "b", 4);  // b: 0 of 4 guaranteed slots, below since 2
  s->SetNow(2 + kTimeout);
  const std::vector<StarvedQueue> starved = StarvedQueues(*s->sharing(), s->now(), kTimeout);
  REQUIRE(starved.size() == 1);
  CHECK(starved[0].deficit == 4);
  std::vector<TaskId> latest = {std::min(at2[0], at2[1]), std::max(at2[0], at2[1]),
                                std::min(at1[0], at1[1]), std::max(at1[0], at1[1])};
  CHECK(PlanPreemption(*s, kTimeout).victims == latest);
}

TEST_CASE("preemption: nothing before the timeout") {
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kFifo, 1, 8);
  Submit(*s, "a", 8);
  StartAt(*s, 0, 8);
  s->SetNow(5);
  Submit(*s, "b", 4);
  s->SetNow(5 + kTimeout - 0.5);
  CHECK(StarvedQueues(*s->sharing(), s->now(), kTimeout).empty());
  CHECK(PlanPreemption(*s, kTimeout).empty());
  s->SetNow(5 + kTimeout);
  CHECK(PlanPreemption(*s, kTimeout).victims.size() == 4);
}

TEST_CASE("preemption: nothing before the guarantee grace, whatever the timeout") {
  // Within the grace a freed slot follows the job order (a's older job here), not b.
  const double grace = 1 / PolicyParams{}.alpha;
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kFifo, 1, 8);
  Submit(*s, "a", 9);
  StartAt(*s, 0, 8);
  Submit(*s, "b", 4);
  s->SetNow(grace / 2);
  CHECK(PlanPreemption(*s, 0).empty());
  s->SetNow(grace);
  CHECK(PlanPreemption(*s, 0).victims.size() == 4);
}

TEST_CASE("preemption: a victim queue is never taken below its guarantee") {
  // a 50 % (4 slots) runs 5, c 25 % (2) runs 3 started last; b 25 % (2) is starved.
  auto s = Make(Tree({Q("a", 50), Q("b", 25), Q("c", 25)}), PolicyKind::kFifo, 1, 8);
  Submit(*s, "a", 5);
  const std::vector<TaskId> a = StartAt(*s, 0, 5);
  Submit(*s, "c", 3);
  const std::vector<TaskId> c = StartAt(*s, 1, 3);
  Submit(*s, "b", 4);
  s->SetNow(1 + kTimeout);
  // By start time alone c's three would go; c may lose one, a one.
  const std::vector<TaskId> victims = PlanPreemption(*s, kTimeout).victims;
  CHECK(victims == std::vector<TaskId>{*std::min_element(c.begin(), c.end()),
                                       *std::min_element(a.begin(), a.end())});
  for (TaskId t : victims) s->Preempt(t);
  CHECK(Running(*s, "a") == 4);
  CHECK(Running(*s, "c") == 2);
  CHECK(s->preempted() == 2);
  for (TaskId t : victims) {
    CHECK(s->cluster().task(t).state == TaskState::kQueued);
    CHECK(s->cluster().task(t).attempts == 0);  // the stopped start uses no retry
  }
}

TEST_CASE("preemption: an ancestor at its guarantee keeps its children's tasks") {
  // p 50 % (4 slots) runs 4, all in x (above x's 2); y, p's other child, is starved; c
  // runs its 4. x may not lose a task: p would go below its guarantee.
  auto s = Make(Tree({Q("p", 50), Q("x", 50, "p"), Q("y", 50, "p"), Q("c", 50)}), PolicyKind::kFifo,
                1, 8);
  Submit(*s, "x", 4);
  StartAt(*s, 0, 4);
  Submit(*s, "c", 4);
  StartAt(*s, 0, 4);
  Submit(*s, "y", 3);
  s->SetNow(kTimeout);
  REQUIRE(StarvedQueues(*s->sharing(), s->now(), kTimeout).size() == 1);
  CHECK(PlanPreemption(*s, kTimeout).empty());
}

TEST_CASE("preemption: the free slots are kept first, and never more than the deficit") {
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kFifo, 1, 8);
  Submit(*s, "a", 8);
  StartAt(*s, 0, 7);  // one slot free
  SECTION("deficit 2: the free slot and one victim, though a could lose 3") {
    Submit(*s, "b", 2);
    s->SetNow(kTimeout);
    const std::vector<StarvedQueue> starved = StarvedQueues(*s->sharing(), s->now(), kTimeout);
    REQUIRE(starved.size() == 1);
    CHECK(starved[0].deficit == 2);
    const PreemptionPlan plan = PlanPreemption(*s, kTimeout);
    CHECK(plan.keep == std::vector<MachineId>{0});
    CHECK(plan.victims.size() == 1);
  }
  SECTION("the free slot covers the deficit: it is kept, nothing is stopped") {
    Submit(*s, "b", 1);
    s->SetNow(kTimeout);
    const PreemptionPlan plan = PlanPreemption(*s, kTimeout);
    CHECK(plan.keep == std::vector<MachineId>{0});
    CHECK(plan.victims.empty());
    s->KeepSlot(0);
    CHECK(PlanPreemption(*s, kTimeout).empty());  // kept already: not kept twice
    const std::optional<Assignment> a = s->Assign(0);
    REQUIRE(a);
    CHECK(Running(*s, "b") == 1);
  }
}

TEST_CASE("preemption: victims wait kill_wait_s past the timeout, free slots do not") {
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kFifo, 1, 8);
  Submit(*s, "a", 8);
  StartAt(*s, 0, 7);   // one slot free
  Submit(*s, "b", 3);  // b: deficit 3, below since 0
  const double wait = 3;
  s->SetNow(kTimeout);
  PreemptionPlan plan = PlanPreemption(*s, kTimeout, wait);
  CHECK(plan.keep == std::vector<MachineId>{0});
  CHECK(plan.victims.empty());
  s->SetNow(kTimeout + wait - 0.5);
  CHECK(PlanPreemption(*s, kTimeout, wait).victims.empty());
  s->SetNow(kTimeout + wait);
  plan = PlanPreemption(*s, kTimeout, wait);
  CHECK(plan.victims.size() == 2);  // the free slot covers one of the three
  CHECK(PlanPreemption(*s, kTimeout, 0).victims.size() == 2);
}

TEST_CASE("preemption: a starved queue that declined free slots for locality gets them") {
  // Regression: the plan took the free slots as covering the deficit, but b's late binding
  // declined them (its input is on m0, busy with a's long task), so b stayed starved past
  // the timeout with most of the cluster idle (trace mode: 88 s to guarantee at 30 s).
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kLateBinding, 4, 1);
  Submit(*s, "a", 1);
  StartAt(*s, 0, 1);  // a holds m0, b's only holder
  Submit(*s, "b", 2);
  s->SetNow(0.5);
  for (MachineId m = 1; m < 4; ++m) CHECK_FALSE(s->Assign(m));  // declined: m0 frees soon
  s->SetNow(kTimeout);
  const PreemptionPlan plan = PlanPreemption(*s, kTimeout);
  CHECK(plan.victims.empty());  // a is at its guarantee (2 slots) anyway
  REQUIRE(plan.keep == std::vector<MachineId>{1, 2});
  for (MachineId m : plan.keep) s->KeepSlot(m);
  for (MachineId m : plan.keep) CHECK(s->Assign(m));
  CHECK(Running(*s, "b") == 2);
}

TEST_CASE("preemption: every policy runs a kept slot's task off its holders") {
  // Each would wait for b's holder m0 at 2 s (delay's wait is 3 s, Quincy's remote cost
  // 3.75 s); a kept slot (Policy::PickAnyFor) runs b's task on m1 at once.
  for (const PolicyKind kind :
       {PolicyKind::kLateBinding, PolicyKind::kDelay, PolicyKind::kQuincy,
        PolicyKind::kCapacityScheduler, PolicyKind::kFairScheduler, PolicyKind::kFifo}) {
    CAPTURE(PolicyKindName(kind));
    auto s = Make(Tree({Q("a", 50), Q("b", 50)}), kind, 4, 1);
    Submit(*s, "a", 1);
    StartAt(*s, 0, 1);  // a holds m0, b's only holder
    Submit(*s, "b", 2);
    s->SetNow(2);
    const PreemptionPlan plan = PlanPreemption(*s, 1);
    REQUIRE(plan.keep == std::vector<MachineId>{1, 2});
    s->KeepSlot(1);
    const std::optional<Assignment> a = s->Assign(1);
    REQUIRE(a);
    CHECK(s->cluster().job(a->job).queue == *s->sharing()->tree().Find("b"));
    CHECK_FALSE(a->local);
  }
}

TEST_CASE("preemption: guarantees in whole slots leave no starved queue a slot short") {
  // Regression: victims kept ceil(guarantee x slots), so b and c (2.5 slots each of 10)
  // each kept 3 and a (5) stayed at 4 until a task ended.
  auto s = Make(Tree({Q("a", 50), Q("b", 25), Q("c", 25)}), PolicyKind::kFifo, 1, 10);
  Submit(*s, "b", 3);
  StartAt(*s, 0, 3);
  Submit(*s, "c", 3);
  StartAt(*s, 0, 3);
  Submit(*s, "a", 4);
  StartAt(*s, 0, 4);
  Submit(*s, "a", 2);  // a runs 4 of its 5
  s->SetNow(kTimeout);
  const std::vector<StarvedQueue> starved = StarvedQueues(*s->sharing(), s->now(), kTimeout);
  REQUIRE(starved.size() == 1);
  CHECK(starved[0].deficit == 1);
  const PreemptionPlan plan = PlanPreemption(*s, kTimeout);
  CHECK(plan.keep.empty());
  REQUIRE(plan.victims.size() == 1);
  s->Preempt(plan.victims[0]);
  CHECK(s->Assign(0));
  CHECK(Running(*s, "a") == 5);
  CHECK(Running(*s, "b") + Running(*s, "c") == 5);
}

TEST_CASE("preemption: the freed slot goes to the starved queue, even off its holders") {
  // Regression: the freed slot went back to the victim's queue when the starved queue's
  // late binding declined it for locality (b's input is on m0, the victim ran on m1), so
  // every round preempted again.
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kLateBinding, 2, 1);
  std::vector<TaskSpec> near(4), far(2);
  const std::vector<MachineId> both{0, 1}, first{0};
  for (TaskSpec& t : near) t.replicas = both;
  for (TaskSpec& t : far) t.replicas = first;
  s->SubmitJob(1, near, JobTenancy{*s->sharing()->tree().Find("a"), kNoId});
  s->SetNow(0);
  const TaskId on_m1 = s->Assign(1)->task;
  REQUIRE(s->Assign(0));
  const JobId b = s->SubmitJob(1, far, JobTenancy{*s->sharing()->tree().Find("b"), kNoId});
  s->SetNow(2);  // past the grace; b's holder m0 stays busy
  const std::vector<TaskId> victims = PlanPreemption(*s, 0).victims;
  REQUIRE(victims == std::vector<TaskId>{on_m1});
  s->Preempt(on_m1);
  const std::optional<Assignment> next = s->Assign(1);
  REQUIRE(next);
  CHECK(next->job == b);
  CHECK(Running(*s, "b") == 1);
  CHECK(PlanPreemption(*s, 0).empty());  // b has its guarantee: no second round
}

TEST_CASE("preemption: nothing when no queue is starved, or without a tree") {
  auto s = Make(Tree({Q("a", 60), Q("b", 40)}), PolicyKind::kFifo, 1, 10);
  Submit(*s, "a", 6);
  StartAt(*s, 0, 6);
  Submit(*s, "b", 4);
  StartAt(*s, 0, 4);
  Submit(*s, "a", 2);
  Submit(*s, "b", 2);  // a at 6 of 6, b at 4 of 4, both with work queued
  s->SetNow(100);
  CHECK(StarvedQueues(*s->sharing(), s->now(), kTimeout).empty());
  CHECK(PlanPreemption(*s, kTimeout).empty());
  Scheduler plain{PolicyParams{}};
  CHECK(PlanPreemption(plain, kTimeout).empty());
}

// --- Properties over random trees and workloads --------------------------------------

// A random tree of 2-5 leaves, some under a parent, guarantees summing to 50-100 %.
QueueTree RandomTree(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const int leaves = 2 + static_cast<int>(rng() % 4);
  const bool nest = leaves >= 3 && u(rng) < 0.5;
  std::vector<std::string> top;
  if (nest) top.push_back("p");
  for (int i = nest ? 2 : 0; i < leaves; ++i) top.push_back("q" + std::to_string(i));
  std::vector<QueueSpec> queues;
  auto share = [&](const std::vector<std::string>& names, const std::string& parent) {
    std::vector<double> parts(names.size());
    double sum = 0;
    for (double& x : parts) sum += (x = 0.2 + u(rng));
    const double budget = u(rng) < 0.3 ? 100 * (0.5 + u(rng) / 2) : 100;
    for (size_t i = 0; i < names.size(); ++i)
      queues.push_back(Q(names[i], std::floor(budget * parts[i] / sum), parent));
  };
  share(top, "root");
  if (nest) share({"q0", "q1"}, "p");
  QueueTreeSpec spec;
  spec.queues = queues;
  spec.default_queue = "q" + std::to_string(leaves - 1);
  QueueTree t;
  REQUIRE(QueueTree::Build(spec, &t).ok());
  return t;
}

// Running tasks per queue index.
std::vector<uint32_t> RunningPerQueue(const QueueSharing& qs) {
  std::vector<uint32_t> out(qs.tree().size());
  for (uint32_t q = 0; q < out.size(); ++q) out[q] = qs.Usage(q).running_tasks;
  return out;
}

// One preemption round at the core's now: plans, checks the plan's bounds, keeps the free
// slots and preempts. Returns the victims.
std::vector<TaskId> PreemptRound(Scheduler& s, double timeout_s, double kill_wait_s) {
  const QueueSharing& qs = *s.sharing();
  uint64_t deficit = 0;
  for (const StarvedQueue& q : StarvedQueues(qs, s.now(), timeout_s)) deficit += q.deficit;
  const std::vector<uint32_t> before = RunningPerQueue(qs);
  uint64_t late = 0;  // victims only for the queues starved kill_wait_s longer
  for (const StarvedQueue& q : StarvedQueues(qs, s.now(), timeout_s + kill_wait_s))
    late += q.deficit;
  const PreemptionPlan plan = PlanPreemption(s, timeout_s, kill_wait_s);
  REQUIRE(plan.keep.size() + plan.victims.size() <= deficit);
  REQUIRE(plan.victims.size() <= late);
  std::map<MachineId, uint32_t> kept;
  for (MachineId m : plan.keep) ++kept[m];
  for (const auto& [m, n] : kept)  // only free slots, none kept twice
    REQUIRE(n + qs.Kept(m) <= FreeSlots(s.cluster().machine(m)));
  for (MachineId m : plan.keep) s.KeepSlot(m);
  for (TaskId t : plan.victims) {
    REQUIRE(s.cluster().task(t).state == TaskState::kRunning);
    s.Preempt(t);
  }
  const std::vector<uint32_t> after = RunningPerQueue(qs);
  for (uint32_t q = 1; q < after.size(); ++q) {
    const double whole = std::floor(qs.tree().node(q).guaranteed * qs.Usage(q).slots + 1e-9);
    INFO("queue " << qs.tree().node(q).spec.name << " ran " << before[q] << ", runs " << after[q]
                  << ", guaranteed " << whole << " whole slots");
    REQUIRE((after[q] == before[q] || after[q] >= whole));
  }
  return plan.victims;
}

// Drives a core over a random workload in 1 s steps with preemption after the
// completions and arrivals of each step; checks every task runs to its end exactly once,
// on its first counted attempt. Returns the tasks preempted.
uint64_t RunWithPreemption(PolicyKind kind, uint64_t seed, uint32_t machines, uint32_t slots) {
  std::mt19937_64 rng(seed);
  auto s = Make(RandomTree(rng), kind, machines, slots, seed);
  const std::vector<uint32_t> leaves(s->sharing()->tree().leaves().begin(),
                                     s->sharing()->tree().leaves().end());
  const double timeout = 1 + static_cast<double>(rng() % 4);
  const double kill_wait = static_cast<double>(rng() % 3);
  std::map<JobId, std::vector<int>> done;  // live job -> completions per task position
  std::map<TaskId, uint64_t> serial;       // running task -> its attempt's serial
  using End = std::tuple<uint32_t, TaskId, uint64_t>;
  std::priority_queue<End, std::vector<End>, std::greater<>> ends;
  uint32_t submitted = 0, finished = 0, next_serial = 0;
  const uint32_t jobs = 120;
  for (uint32_t now = 0; finished < jobs; ++now) {
    REQUIRE(now < 100000);
    s->SetNow(now);
    while (!ends.empty() && std::get<0>(ends.top()) <= now) {
      const auto [end, t, n] = ends.top();
      ends.pop();
      if (serial.count(t) == 0 || serial[t] != n) continue;  // preempted: never completes
      serial.erase(t);
      REQUIRE(s->cluster().task(t).attempts == 1);  // preempted starts used no retry
      const JobId j = s->cluster().task(t).job;
      ++done[j][s->cluster().task(t).position];
      if (s->Finish(t).job_done) {
        for (int c : done[j]) REQUIRE(c == 1);  // every task ran to its end exactly once
        done.erase(j);
        ++finished;
      }
    }
    const uint32_t arrivals = submitted < jobs && now % 3 == 0 ? 1 + rng() % 4 : 0;
    for (uint32_t i = 0; i < arrivals && submitted < jobs; ++i, ++submitted) {
      const uint32_t tasks = 1 + static_cast<uint32_t>(rng() % 12);
      std::vector<TaskSpec> specs(tasks);
      const std::vector<MachineId> replicas{static_cast<MachineId>(rng() % machines)};
      for (TaskSpec& t : specs) t.replicas = replicas;
      const JobId j = s->SubmitJob(1, specs, JobTenancy{leaves[rng() % leaves.size()], kNoId});
      done[j].assign(tasks, 0);
    }
    for (TaskId t : PreemptRound(*s, timeout, kill_wait)) serial.erase(t);
    for (MachineId m = 0; m < machines; ++m)
      while (std::optional<Assignment> a = s->Assign(m)) {
        serial[a->task] = next_serial;
        ends.emplace(now + 1 + static_cast<uint32_t>(rng() % 8), a->task, next_serial++);
      }
  }
  CHECK(done.empty());
  CHECK(s->queued() == 0);
  CHECK(s->running() == 0);
  return s->preempted();
}

TEST_CASE("preemption property: bounds hold in every round, no task lost or run twice") {
  const PolicyKind kinds[] = {PolicyKind::kFifo,
                              PolicyKind::kFair,
                              PolicyKind::kLateBinding,
                              PolicyKind::kDelay,
                              PolicyKind::kCapacityScheduler,
                              PolicyKind::kFairScheduler};
  uint64_t preempted = 0;
  for (PolicyKind kind : kinds)
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      INFO(PolicyKindName(kind) << " seed " << seed);
      preempted += RunWithPreemption(kind, seed, 1, 16);
      preempted += RunWithPreemption(kind, seed + 100, 4, 4);
    }
  CHECK(preempted > 0);  // the rounds did preempt: the checks above were exercised
}

}  // namespace
}  // namespace locsched
