// Tests late binding's rebalance (algorithms/hta/remote_plan.h, permit_rebalancer.h) and
// its LP order: plans worked out by hand, permits taken by a free slot off the holders,
// randomized runs with permits and LP ranks in which no task is lost or run twice, and
// trace runs with both extras on that are deterministic per seed.
#include "algorithms/hta/remote_plan.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "algorithms/core/late_binding.h"
#include "algorithms/core/scheduler.h"
#include "algorithms/hta/permit_rebalancer.h"
#include "algorithms/sim/trace_sim.h"
#include "base/rng.h"

namespace locsched {
namespace {

// w_loc 1, w_rem 2: a remote task costs two local ones.
const HtaCosts kCosts{1, {2}};

std::unique_ptr<Scheduler> Late(uint32_t machines, JobOrder order = JobOrder::kSrpt,
                                double gamma = 0.5) {
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.alpha = 1;
  p.gamma = gamma;
  p.job_order = order;
  auto s = std::make_unique<Scheduler>(p);
  for (uint32_t m = 0; m < machines; ++m) s->AddMachine(Machine{});
  return s;
}

JobId Submit(Scheduler& s, size_t tasks, std::vector<MachineId> replicas, double weight = 1) {
  std::vector<TaskSpec> specs(tasks);
  for (TaskSpec& spec : specs) spec.replicas = replicas;
  return s.SubmitJob(weight, specs);
}

TEST_CASE("A large job on one holder: the plan runs half of it remote", "[remote_plan]") {
  // Six tasks, all on machine 0, three idle machines beside it. k local tasks load machine
  // 0 with k; the 6 - k remote ones, 2 each, spread over machines 1-3. k = 3 gives loads
  // 3, 2, 2, 2 (max 3); k = 2 gives 2 and a machine with two remote (4); k = 4 gives 4.
  auto owner = Late(4);
  Scheduler& s = *owner;
  const JobId j = Submit(s, 6, {0});
  const RemotePlan plan = PlanRemoteRuns(s, j, kCosts);
  CHECK(plan.tasks == 6);
  CHECK(plan.local == 3);
  CHECK(plan.remote.size() == 3);
  CHECK(plan.max_load == Approx(3));
  CHECK(plan.tau == 1);  // bal-assign tops machine 0 up with its own tasks from tau 1
}

TEST_CASE("The holder's backlog ahead of the job sends all of it remote", "[remote_plan]") {
  // Machine 0 runs a task and holds three queued tasks of another job: base load 4. Every
  // local task would finish after 4 + k; six remote ones on three idle machines end by 4.
  auto owner = Late(4);
  Scheduler& s = *owner;
  Submit(s, 1, {0});
  REQUIRE(s.Assign(0));
  Submit(s, 3, {0});
  const JobId j = Submit(s, 6, {0});
  const RemotePlan plan = PlanRemoteRuns(s, j, kCosts);
  CHECK(plan.local == 0);
  CHECK(plan.remote.size() == 6);
  CHECK(plan.max_load == Approx(4));
}

TEST_CASE("A permit lets a free slot off the holders take the planned task", "[remote_plan]") {
  // Remote runs 4x slower (gamma 0.25): the big job's tasks, queued behind each other on
  // machine 0, would more likely end the job late than early off their holder, and job c
  // waits on machine 2, which is free: late binding's own rule runs nothing off the holders.
  auto owner = Late(4, JobOrder::kSrpt, 0.25);
  Scheduler& s = *owner;
  s.SetNow(0);
  const JobId big = Submit(s, 6, {0});
  s.SetNow(1);
  const JobId c = Submit(s, 1, {2});
  (void)c;
  REQUIRE(s.Assign(0));  // machine 0 starts one of the big job's tasks
  auto& policy = static_cast<LateBinding&>(s.policy());
  CHECK_FALSE(s.Assign(1));  // no permit: machine 1 holds nothing and waits
  const PermitRun run = GrantRemotePermits(s, 6, kCosts);
  CHECK(run.jobs == 1);
  CHECK(run.tasks == 5);
  REQUIRE(run.granted == 3);  // worked out as in the first case, machine 0 loaded with 1
  const auto a = s.Assign(1);
  REQUIRE(a);
  CHECK(a->job == big);
  CHECK_FALSE(a->local);
  const auto b = s.Assign(3);
  REQUIRE(b);
  CHECK(b->job == big);
  s.Finish(a->task);
  const auto d = s.Assign(1);
  REQUIRE(d);
  CHECK(d->job == big);
  CHECK(policy.permits().taken() == 3);
  s.Finish(b->task);
  CHECK_FALSE(s.Assign(3));  // the plan's permits are used up
}

TEST_CASE("A permit whose task a holder took first is skipped", "[remote_plan]") {
  auto owner = Late(2);
  Scheduler& s = *owner;
  const JobId j = Submit(s, 1, {0});
  auto& policy = static_cast<LateBinding&>(s.policy());
  policy.permits().Grant(s.cluster(), s.cluster().job(j).tasks[0]);
  REQUIRE(s.Assign(0)->local);
  CHECK(policy.permits().Take(s.cluster()) == kNoId);
  CHECK(policy.permits().taken() == 0);
}

TEST_CASE("A permit waits while the remote rule's run is quick", "[remote_plan]") {
  // The large job (6 tasks on m0, which runs one of them) is last in the order; with remote
  // runs at 1.25x (gamma 0.8) its queue makes one pay, and that run is quick (1/gamma ends
  // before a holder frees and runs it, 1/alpha + 1/alpha), so it goes before the permits
  // and uses none. At 4x (gamma 0.25) neither job's run pays, and a permit is taken.
  for (const double gamma : {0.8, 0.25}) {
    PolicyParams p;
    p.kind = PolicyKind::kLateBinding;
    p.alpha = 1;
    p.gamma = gamma;
    p.job_order = JobOrder::kSrpt;
    Scheduler s(p);
    for (int m = 0; m < 4; ++m) s.AddMachine(Machine{});
    Submit(s, 1, {1});
    REQUIRE(s.Assign(1));
    const JobId small = Submit(s, 5, {1});
    s.SetNow(1);
    const JobId big = Submit(s, 6, {0});
    REQUIRE(s.Assign(0));
    auto& policy = static_cast<LateBinding&>(s.policy());
    for (const TaskId t : s.cluster().job(big).tasks)
      if (s.cluster().task(t).state == TaskState::kQueued) policy.permits().Grant(s.cluster(), t);
    const auto a = s.Assign(2);
    REQUIRE(a);
    CAPTURE(gamma);
    CHECK(a->job == big);
    CHECK_FALSE(a->local);
    CHECK(policy.permits().taken() == (gamma == 0.8 ? 0u : 1u));
    CHECK(s.cluster().job(small).running == 0);
  }
}

TEST_CASE("Jobs smaller than the threshold get no plan", "[remote_plan]") {
  auto owner = Late(4);
  Scheduler& s = *owner;
  Submit(s, 6, {0});
  const PermitRun run = GrantRemotePermits(s, 7, kCosts);
  CHECK(run.jobs == 0);
  CHECK(run.granted == 0);
}

TEST_CASE("The rebalancer runs on a large job, then on its timer while permits are used",
          "[remote_plan]") {
  auto owner = Late(4);
  Scheduler& s = *owner;
  PermitRebalancer r(PermitRebalancer::Settings{6, 1, 8});
  CHECK(r.Due(0) == nullptr);
  r.OnJobSubmitted(5);
  CHECK(r.Due(0) == nullptr);
  Submit(s, 6, {0});
  r.OnJobSubmitted(6);
  REQUIRE(r.Due(0) != nullptr);
  CHECK(std::string(r.Due(0)) == "big_job");
  CHECK(r.Run(s, 0, 1, 0.5).granted == 3);
  CHECK(r.Due(0.5) == nullptr);
  CHECK(std::string(r.Due(1)) == "timer");
  // Nobody took the permits: the interval doubles.
  r.Run(s, 1, 1, 0.5);
  CHECK(r.interval() == Approx(2));
  CHECK(r.Due(2.5) == nullptr);
  CHECK(r.Due(3) != nullptr);
}

TEST_CASE("Late binding's lp order follows the ranks and places new jobs by Smith's rule",
          "[remote_plan]") {
  auto owner = Late(1, JobOrder::kLp);
  Scheduler& s = *owner;
  const JobId a = Submit(s, 1, {0});
  const JobId b = Submit(s, 1, {0});
  const JobId c = Submit(s, 1, {0});
  // Before an order: as smith, equal ratios go oldest first.
  std::vector<uint32_t> ranks(s.cluster().job_capacity(), UINT32_MAX);
  std::vector<uint64_t> seqs(ranks.size(), 0);
  for (const JobId j : {a, b, c}) seqs[j] = s.cluster().job(j).seq;
  ranks[c] = 0;
  ranks[a] = 1;
  ranks[b] = 2;
  REQUIRE(s.SetPriorityOrder(ranks, seqs));
  // A job that came after the order, twice as heavy: placed before them all.
  const JobId d = Submit(s, 1, {0}, 2);
  std::vector<JobId> served;
  for (int i = 0; i < 4; ++i) {
    const auto x = s.Assign(0);
    REQUIRE(x);
    served.push_back(x->job);
    s.Finish(x->task);
  }
  CHECK(served == std::vector<JobId>{d, c, a, b});
}

TEST_CASE("Only the lp job order takes an LP's ranks", "[remote_plan]") {
  auto owner = Late(1, JobOrder::kSrpt);
  CHECK_FALSE(owner->SetPriorityOrder({0}, {}));
}

// Random submits, starts, finishes, requeues and outages with remote permits re-planned and
// LP ranks re-drawn as it goes: every start is of a queued task, every task finishes once.
TEST_CASE("Late binding with permits and LP ranks loses no task and runs none twice",
          "[remote_plan]") {
  const int seed = GENERATE(1, 2, 3);
  CAPTURE(seed);
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.job_order = JobOrder::kLp;
  p.job_aging = 5;
  Scheduler s(p);
  constexpr uint32_t kMachines = 10;
  for (uint32_t m = 0; m < kMachines; ++m) s.AddMachine(Machine{0, 1 + m % 2});
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::vector<TaskId> running;
  uint64_t submitted = 0, finished = 0;
  double now = 0;
  auto start_all = [&] {
    for (MachineId m = 0; m < kMachines; ++m) {
      while (auto a = s.Assign(m)) {
        REQUIRE(s.cluster().task(a->task).state == TaskState::kRunning);
        REQUIRE(std::find(running.begin(), running.end(), a->task) == running.end());
        running.push_back(a->task);
      }
    }
  };
  for (int step = 0; step < 3000; ++step) {
    now += 0.5;
    s.SetNow(now);
    const int action = static_cast<int>(rng() % 12);
    // Submissions stop while 150 tasks queue: machines 0-2 hold every replica, so the
    // backlog would grow for the whole run, and each permit plan (Algorithm 2 over the
    // backlog) with it; under ASan that took 400 s.
    if (action < 3 && s.queued() < 150) {
      const uint32_t size = rng() % 5 == 0 ? 20 + rng() % 20 : 1 + rng() % 4;
      std::vector<std::vector<MachineId>> sets(size);
      std::vector<TaskSpec> specs(size);
      for (uint32_t i = 0; i < size; ++i) {
        for (uint32_t r = 0; r < 1 + rng() % 3; ++r) {
          const MachineId m = rng() % 3;  // a hot subset: machines 0-2 hold every replica
          if (std::find(sets[i].begin(), sets[i].end(), m) == sets[i].end()) sets[i].push_back(m);
        }
        specs[i].replicas = sets[i];
      }
      s.SubmitJob(1 + rng() % 4, specs);
      submitted += size;
    } else if (action < 8 && !running.empty()) {
      const size_t i = rng() % running.size();
      const TaskId t = running[i];
      running[i] = running.back();
      running.pop_back();
      if (rng() % 10 == 0) {
        s.Requeue(t);
      } else {
        s.Finish(t);
        ++finished;
      }
    } else if (action == 8) {
      GrantRemotePermits(s, 10, HtaCosts{1, {4}});
    } else if (action == 9) {
      std::vector<uint32_t> ranks(s.cluster().job_capacity(), UINT32_MAX);
      std::vector<uint64_t> seqs(ranks.size(), 0);
      uint32_t next = 0;
      for (JobId j = 0; j < ranks.size(); ++j) {
        if (!s.cluster().job(j).alive || rng() % 3 == 0) continue;
        ranks[j] = next++;
        seqs[j] = s.cluster().job(j).seq;
      }
      std::shuffle(ranks.begin(), ranks.end(), rng);
      for (JobId j = 0; j < ranks.size(); ++j)
        if (ranks[j] != UINT32_MAX && !s.cluster().job(j).alive) ranks[j] = UINT32_MAX;
      REQUIRE(s.SetPriorityOrder(ranks, seqs));
    } else if (action == 10) {
      const MachineId m = rng() % kMachines;
      if (s.cluster().machine(m).up && rng() % 4 == 0) {
        for (TaskId t : s.MachineDown(m)) std::erase(running, t);
      } else if (!s.cluster().machine(m).up) {
        s.MachineUp(m);
      }
    }
    start_all();
    REQUIRE(s.policy().Stats().queued == s.queued());
  }
  for (MachineId m = 0; m < kMachines; ++m)
    if (!s.cluster().machine(m).up) s.MachineUp(m);
  for (int round = 0; round < 100000 && (s.queued() + s.running() + s.blocked()) > 0; ++round) {
    now += 1000;
    s.SetNow(now);
    start_all();
    while (!running.empty()) {
      s.Finish(running.back());
      running.pop_back();
      ++finished;
    }
  }
  CHECK(s.queued() == 0);
  CHECK(s.running() == 0);
  CHECK(s.cluster().live_jobs() == 0);
  CHECK(finished == submitted);
}

// The trace simulator's hook for late binding's rebalance, as locsched-sim's.
class PermitHook final : public TraceSimHook {
 public:
  void Attach(Scheduler&) override {}
  void OnJobSubmitted(uint64_t tasks) override { r_.OnJobSubmitted(tasks); }
  void AfterStep(Scheduler& sched, double now) override {
    if (r_.Due(now) != nullptr) r_.Run(sched, now, 1 / 25.0, 1 / 100.0);
  }
  uint64_t granted() const { return r_.granted(); }

 private:
  PermitRebalancer r_{PermitRebalancer::Settings{20, 1, 60}};
};

// Jobs of 1-40 tasks (one in five large), replicas on the first 10 of 40 machines.
TraceWorkload SkewedWorkload(uint64_t seed) {
  Rng rng(seed);
  TraceWorkload w;
  for (double t = 0; t < 600; t += 1 + 8 * rng.Unit()) {
    w.AddJob(t);
    const uint32_t size = rng.Below(5) == 0 ? 20 + rng.Below(20) : 1 + rng.Below(4);
    for (uint32_t i = 0; i < size; ++i) {
      std::vector<MachineId> rep;
      while (rep.size() < 3) {
        const auto m = static_cast<MachineId>(rng.Below(10));
        if (std::find(rep.begin(), rep.end(), m) == rep.end()) rep.push_back(m);
      }
      w.AddTask(TaskKind::kMap, rep);
    }
    w.weights.push_back(1 + rng.Below(8));
  }
  return w;
}

TEST_CASE("Trace runs with rebalance and LP priority are deterministic per seed", "[remote_plan]") {
  const TraceWorkload w = SkewedWorkload(5);
  const bool rebalance = GENERATE(false, true);
  const bool lp = GENERATE(false, true);
  CAPTURE(rebalance, lp);
  auto run = [&](uint64_t seed, uint64_t* granted) {
    PermitHook hook;
    TraceSimParams p;
    p.cluster.machines = 40;
    p.policy.kind = PolicyKind::kLateBinding;
    p.policy.job_order = lp ? JobOrder::kLp : JobOrder::kSrpt;
    p.policy.job_aging = 300;
    p.policy.alpha = 1 / 25.0;
    p.policy.gamma = p.policy.alpha / 4;
    p.lp.enabled = lp;
    p.seed = seed;
    if (rebalance) p.hook = &hook;
    REQUIRE(ValidateTraceSim(w, p).empty());
    const TraceSimResult r = SimulateTrace(w, p);
    *granted = hook.granted();
    return r;
  };
  uint64_t ga = 0, gb = 0, gc = 0;
  const TraceSimResult a = run(7, &ga), b = run(7, &gb);
  CHECK(a.jobs_done == w.jobs.size());
  CHECK(a.tasks_done == w.num_tasks());
  CHECK(a.jct_s == b.jct_s);
  CHECK(a.weighted_jct_s == b.weighted_jct_s);
  CHECK(ga == gb);
  CHECK((ga > 0) == rebalance);
  CHECK(lp == (a.lp_solves > 0));
  CHECK(run(8, &gc).jct_s != a.jct_s);
}

}  // namespace
}  // namespace locsched
