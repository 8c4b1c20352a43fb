// Tests QuincyPolicy (algorithms/core/quincy_policy.h) through the Scheduler: hand-worked
// waits against the rack and remote costs (alpha 0.8, beta 0.4, gamma 0.2: a rack-local
// run loses 1.25 s, a remote one 3.75 s), the contested holder, Explain, the pruned
// network's size, and, on random states, that the pruned flow's plan costs what the
// full network's optimum (SolveQuincyFlow over every queued task) costs.
#include "algorithms/core/quincy_policy.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/quincy/quincy_flow.h"

namespace locsched {
namespace {

// Quincy over machines in `racks`; fairness off unless asked (the cost tests need none).
std::unique_ptr<Scheduler> MakeQuincy(const std::vector<uint32_t>& racks, uint32_t slots = 1,
                                      bool fair = false) {
  PolicyParams p;
  p.kind = PolicyKind::kQuincy;
  p.quincy_fair = fair;
  p.alpha = 0.8;
  p.beta = 0.4;
  p.gamma = 0.2;
  auto s = std::make_unique<Scheduler>(p);
  for (const uint32_t rack : racks) {
    Machine m;
    m.rack = rack;
    m.slots = slots;
    s->AddMachine(m);
  }
  return s;
}

JobId SubmitOne(Scheduler& s, std::vector<MachineId> replicas) {
  TaskSpec spec;
  spec.replicas = replicas;
  return s.SubmitJob(1, std::span<const TaskSpec>(&spec, 1));
}

TaskId OnlyTask(const Scheduler& s, JobId j) {
  return s.cluster().job(j).tasks.at(0);
}

const QuincyPolicy& Quincy(const Scheduler& s) {
  return dynamic_cast<const QuincyPolicy&>(s.policy());
}

TEST_CASE("quincy: a free holder runs its task; other machines wait for the remote cost",
          "[quincy]") {
  auto s = MakeQuincy({0, 0, 0});
  SubmitOne(*s, {1});
  CHECK_FALSE(s->Assign(0));  // waiting 0 s costs less than 3.75 s remote
  const auto a = s->Assign(1);
  REQUIRE(a);
  CHECK(a->local);
}

TEST_CASE("quincy: a task runs off its busy holder once it waited the remote cost", "[quincy]") {
  auto s = MakeQuincy({0, 0});
  SubmitOne(*s, {0});
  REQUIRE(s->Assign(0));  // machine 0 now busy
  const TaskId t = OnlyTask(*s, SubmitOne(*s, {0}));
  s->SetNow(3.7);
  CHECK_FALSE(s->Assign(1));
  s->SetNow(3.8);
  const auto a = s->Assign(1);
  REQUIRE(a);
  CHECK(a->task == t);
  CHECK_FALSE(a->local);
}

TEST_CASE("quincy: a task goes rack-local after 1.25 s, off-rack after 3.75 s", "[quincy]") {
  auto s = MakeQuincy({0, 0, 1});
  SubmitOne(*s, {0});
  REQUIRE(s->Assign(0));
  SubmitOne(*s, {0});
  s->SetNow(1.3);
  CHECK_FALSE(s->Assign(2));  // off-rack: not yet
  REQUIRE(s->Assign(1));      // its holder's rack: yes
  CHECK(s->queued() == 0);
}

TEST_CASE("quincy: the task waiting longest gets a contested holder", "[quincy]") {
  auto s = MakeQuincy({0, 0});
  const TaskId busy = OnlyTask(*s, SubmitOne(*s, {0}));
  REQUIRE(s->Assign(0));
  const TaskId older = OnlyTask(*s, SubmitOne(*s, {0}));
  s->SetNow(1);
  SubmitOne(*s, {0});
  s->SetNow(2);
  s->Finish(busy);
  const auto a = s->Assign(0);
  REQUIRE(a);
  CHECK(a->task == older);
}

TEST_CASE("quincy: Explain names the planned machine, or the remote cost still to wait",
          "[quincy]") {
  auto s = MakeQuincy({0, 0, 0});
  SubmitOne(*s, {0});
  REQUIRE(s->Assign(0));
  const TaskId waits = OnlyTask(*s, SubmitOne(*s, {0}));
  const TaskId local = OnlyTask(*s, SubmitOne(*s, {2}));
  s->SetNow(1);
  CHECK_FALSE(s->Assign(1));  // solves: `local` placed on machine 2, `waits` unscheduled
  const WaitFacts facts = WaitFacts::Of(s->cluster(), 1);
  const WaitInfo planned = ExplainWait(s->policy(), s->cluster(), local, facts);
  CHECK(planned.reason == WaitReason::kNextHeartbeat);
  CHECK(planned.machine == 2);
  CHECK_FALSE(planned.remote);
  const WaitInfo info = ExplainWait(s->policy(), s->cluster(), waits, facts);
  CHECK(info.reason == WaitReason::kRemoteRule);
  CHECK(info.remote_in_s == Approx(2.75));
  CHECK(info.remote_wait_s == Approx(3.75));
}

TEST_CASE("quincy: only the tasks an optimal flow may place enter the network", "[quincy]") {
  auto s = MakeQuincy({0, 0});
  SubmitOne(*s, {0});
  REQUIRE(s->Assign(0));
  const TaskId first = OnlyTask(*s, SubmitOne(*s, {0}));
  for (int i = 0; i < 200; ++i) SubmitOne(*s, {0});
  CHECK_FALSE(s->Assign(1));
  CHECK(Quincy(*s).last_network_tasks() == 0);  // none waited 3.75 s yet
  s->SetNow(10);
  const auto a = s->Assign(1);
  REQUIRE(a);
  CHECK(a->task == first);
  CHECK(Quincy(*s).last_network_tasks() == 1);  // X needs the oldest only: one free slot
}

TEST_CASE("quincy: with fairness a job below its share runs at once, off its holders", "[quincy]") {
  for (const bool fair : {false, true}) {
    CAPTURE(fair);
    auto s = MakeQuincy({0, 0}, 1, fair);
    SubmitOne(*s, {0});
    REQUIRE(s->Assign(0));
    SubmitOne(*s, {0});  // two slots, two jobs: a share of one slot each
    const auto a = s->Assign(1);
    CHECK(a.has_value() == fair);
  }
}

TEST_CASE("quincy: with fairness a job places tasks up to its water-filled share", "[quincy]") {
  auto s = MakeQuincy({0, 0, 0}, 1, true);
  TaskSpec specs[2];
  const MachineId zero[] = {0};
  for (TaskSpec& spec : specs) spec.replicas = zero;
  s->SubmitJob(1, specs);  // job A: two tasks on machine 0
  REQUIRE(s->Assign(0));   // A runs one
  SubmitOne(*s, {1});      // job B: runs on its free holder
  REQUIRE(s->Assign(1));
  // Three slots, A asks 2 and B 1: A's share is 2, so its second task is placed on
  // machine 2 at once.
  const auto a = s->Assign(2);
  REQUIRE(a);
  CHECK_FALSE(a->local);
}

// The full network of s's queued tasks (waits from `since`, at time now).
QuincyProblem FullProblem(const Scheduler& s, const std::vector<double>& since, double now,
                          std::vector<TaskId>* tasks) {
  QuincyProblem p;
  const Cluster& c = s.cluster();
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    p.rack.push_back(static_cast<int>(c.machine(m).rack));
    p.free_slots.push_back(static_cast<int>(FreeSlots(c.machine(m))));
  }
  p.rack_cost = 1250;
  p.remote_cost = 3750;
  p.jobs = 1;
  for (TaskId t = 0; t < c.task_capacity(); ++t) {
    if (c.task(t).job == kNoId || c.task(t).state != TaskState::kQueued) continue;
    QuincyTask& qt = p.tasks.emplace_back();
    for (const MachineId h : c.task(t).replicas) qt.holders.push_back(static_cast<int>(h));
    qt.unscheduled = 1 + std::llround((now - since[t]) * 1000);
    bool live = false;  // a task without a live holder: waiting costs a remote run more
    for (const MachineId h : c.task(t).replicas) live |= c.machine(h).up;
    if (!live) qt.unscheduled += p.remote_cost;
    tasks->push_back(t);
  }
  return p;
}

TEST_CASE("quincy: the pruned flow's plan is optimal for the full network", "[quincy]") {
  std::mt19937 rng(2009);
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    auto s = MakeQuincy({0, 0, 0, 1, 1, 1, 2, 2}, 1 + rng() % 2);
    std::vector<double> since;
    double now = 0;
    for (uint32_t i = 0, n = 1 + rng() % 30; i < n; ++i) {
      now += (rng() % 1000) / 2000.0;
      s->SetNow(now);
      std::vector<MachineId> replicas{static_cast<MachineId>(rng() % 8)};
      if (rng() % 2) replicas.push_back(static_cast<MachineId>((replicas[0] + 1 + rng() % 7) % 8));
      const TaskId t = OnlyTask(*s, SubmitOne(*s, replicas));
      if (since.size() <= t) since.resize(t + 1);
      since[t] = now;
    }
    for (MachineId m = 1; m < 8; ++m)
      if (rng() % 2) s->MachineDown(m);
    std::vector<TaskId> tasks;
    const QuincyProblem p = FullProblem(*s, since, now, &tasks);
    const int64_t best = SolveQuincyFlow(p).cost;
    const auto a = s->Assign(0);
    int64_t cost = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
      const MachineId m = a && a->task == tasks[i] ? 0 : Quincy(*s).planned(tasks[i]);
      cost += m == kNoId ? p.tasks[i].unscheduled
                         : QuincyPlacementCost(p, p.tasks[i], static_cast<int>(m));
    }
    CHECK(cost == best);
  }
}

}  // namespace
}  // namespace locsched
