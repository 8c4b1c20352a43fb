// Tests the trace-driven simulation (algorithms/sim/trace_sim.h): tiny workloads whose
// schedules are worked out by hand, determinism per seed, and delay scheduling's wait
// meaning the same at 600 and 5,000 machines; tenant queues, and preemption giving a late
// tenant its guarantee.
#include "algorithms/sim/trace_sim.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "base/rng.h"

namespace locsched {
namespace {

// Two machines, one slot each; heartbeats every 3 s (machine 0 at 1.5 s, machine 1 at 3 s,
// then every 3 s); a task takes 10 s where a replica is and 40 s elsewhere.
TraceSimParams TwoMachines(PolicyKind kind, double delay_wait = 0) {
  TraceSimParams p;
  p.cluster.machines = 2;
  p.cluster.local_mean_s = 10;
  p.cluster.remote_slowdown = 4;
  p.cluster.heartbeat_s = 3;
  p.cluster.fixed_durations = true;
  p.policy.kind = kind;
  p.policy.delay_wait = delay_wait;
  return p;
}

TEST_CASE("Trace mode: FIFO on a hand-worked trace", "[trace_sim]") {
  // j0 at 0 s: tasks a and b, both held by machine 0. j1 at 1 s: one task held by machine 1.
  TraceWorkload w;
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  w.AddTask(TaskKind::kMap, {0});
  w.AddJob(1);
  w.AddTask(TaskKind::kMap, {1});
  const TraceSimParams p = TwoMachines(PolicyKind::kFifo);
  REQUIRE(ValidateTraceSim(w, p).empty());
  const TraceSimResult r = SimulateTrace(w, p);
  // 1.5 s: machine 0 heartbeats; FIFO serves j0, task a runs local until 11.5 s.
  // 3 s: machine 1 heartbeats; the oldest job j0 runs b remote: 40 s, until 43 s.
  // 11.5 s: a ends and machine 0 asks at once; j1's task runs there remote until 51.5 s.
  // j0 ends at 43 s (JCT 43), j1 at 51.5 s (JCT 50.5).
  REQUIRE(r.jobs_done == 2);
  CHECK(r.jct_s[0] == Approx(43));
  CHECK(r.jct_s[1] == Approx(50.5));
  CHECK(r.mean_jct_s == Approx((43 + 50.5) / 2));
  // Waits: a 1.5 s, b 3 s, j1's task 10.5 s.
  CHECK(r.mean_task_wait_s == Approx((1.5 + 3 + 10.5) / 3));
  CHECK(r.locality == Approx(1.0 / 3));
  CHECK(r.off_rack == Approx(2.0 / 3));
  // Queued while a holder was free: a and b while machine 0 idled until 1.5 s (1.5 s each),
  // j1's task while machine 1 idled from 1 s to 3 s (2 s).
  CHECK(r.idle_holder_task_s == Approx(1.5 + 1.5 + 2));
  CHECK(r.makespan_s == Approx(51.5));
  CHECK(r.stable);
  REQUIRE(r.buckets.size() == 5);
  CHECK(r.buckets[0].jobs == 1);  // j1: one task
  CHECK(r.buckets[0].mean_jct_s == Approx(50.5));
  CHECK(r.buckets[1].jobs == 1);  // j0: two tasks
  CHECK(r.buckets[1].mean_jct_s == Approx(43));
}

TEST_CASE("Trace mode: delay scheduling on the same trace keeps every task local", "[trace_sim]") {
  TraceWorkload w;
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  w.AddTask(TaskKind::kMap, {0});
  w.AddJob(1);
  w.AddTask(TaskKind::kMap, {1});
  const TraceSimResult r = SimulateTrace(w, TwoMachines(PolicyKind::kDelay, 5));
  // 1.5 s: j0 runs a on machine 0 (until 11.5 s). 3 s: fair order puts j1 (0 running)
  // first; its task is local to machine 1 and runs until 13 s. 11.5 s: a ends, machine 0
  // runs b locally until 21.5 s. j0: JCT 21.5; j1: JCT 12.
  REQUIRE(r.jobs_done == 2);
  CHECK(r.jct_s[0] == Approx(21.5));
  CHECK(r.jct_s[1] == Approx(12));
  CHECK(r.locality == Approx(1));
}

TEST_CASE("Trace mode: delay scheduling runs remote once the job has waited its time",
          "[trace_sim]") {
  // j0 at 0 s and j1 at 0.5 s, one task each, both held only by machine 0.
  TraceWorkload w;
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  w.AddJob(0.5);
  w.AddTask(TaskKind::kMap, {0});
  // 1.5 s: j0 runs on machine 0 until 11.5 s. Machine 1 asks at 3 s, 6 s, 9 s.
  SECTION("a wait of 5 s: j1 runs remote at 6 s (waited 5.5 s), until 46 s") {
    const TraceSimResult r = SimulateTrace(w, TwoMachines(PolicyKind::kDelay, 5));
    CHECK(r.jct_s[0] == Approx(11.5));
    CHECK(r.jct_s[1] == Approx(45.5));
    CHECK(r.locality == Approx(0.5));
    // j0's task waited for machine 0's first heartbeat (1.5 s), j1's from 0.5 s to 1.5 s.
    CHECK(r.idle_holder_task_s == Approx(1.5 + 1));
  }
  SECTION("a wait of 20 s: j1 waits for machine 0 (free at 11.5 s), runs local until 21.5 s") {
    const TraceSimResult r = SimulateTrace(w, TwoMachines(PolicyKind::kDelay, 20));
    CHECK(r.jct_s[0] == Approx(11.5));
    CHECK(r.jct_s[1] == Approx(21));
    CHECK(r.locality == Approx(1));
    CHECK(r.mean_task_wait_s == Approx((1.5 + 11) / 2));
  }
}

TEST_CASE("Trace mode: reduces start once their job's maps are done", "[trace_sim]") {
  TraceWorkload w;
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  w.AddTask(TaskKind::kReduce, {1});
  const TraceSimResult r = SimulateTrace(w, TwoMachines(PolicyKind::kFifo));
  // The map runs on machine 0 from 1.5 s to 11.5 s; the reduce is released then and machine
  // 0, asking at once, runs it remote (40 s) until 51.5 s.
  CHECK(r.jct_s[0] == Approx(51.5));
  CHECK(r.mean_task_wait_s == Approx(1.5 / 2));
}

TEST_CASE("Trace mode: LP priority re-solves on the daemon's adaptive timer", "[trace_sim]") {
  // One machine, one job of 10 tasks held by it at 0 s; each task takes 10 s. The machine
  // asks at 3 s and then every 3 s while tasks wait (steps at 3, 6, 9, ...), and tasks
  // start at 3, 13, ..., 93 s. The LP's timer (base 5 s, doubling up to 60 s) solves at
  // the first step at or after 5 s (6 s: next 10 s later), then 18 s (next in 20 s),
  // 39 s (next in 40 s), 81 s (next in 60 s, after the last task started at 93 s).
  TraceWorkload w;
  w.AddJob(0);
  for (int i = 0; i < 10; ++i) w.AddTask(TaskKind::kMap, {0});
  TraceSimParams p;
  p.cluster.machines = 1;
  p.cluster.local_mean_s = 10;
  p.cluster.fixed_durations = true;
  p.policy.kind = PolicyKind::kJsqMaxWeight;
  p.policy.intra = IntraQueue::kPriority;
  p.policy.alpha = 0.1;
  p.policy.gamma = 0.025;
  p.lp.enabled = true;
  REQUIRE(ValidateTraceSim(w, p).empty());
  const TraceSimResult r = SimulateTrace(w, p);
  CHECK(r.jct_s[0] == Approx(103));
  CHECK(r.lp_failures == 0);
  CHECK(r.lp_solves == 4);
  p.policy.intra = IntraQueue::kFair;
  CHECK(ValidateTraceSim(w, p).rfind("lp-priority:", 0) == 0);
}

// Poisson jobs of geometric size (mean 10) with three distinct random replicas per task,
// offering `load` of the cluster's local capacity for `seconds`.
TraceWorkload RandomWorkload(uint32_t machines, double load, double seconds, uint64_t seed) {
  Rng rng(seed);
  TraceWorkload w;
  const double job_rate = load * machines / 25.0 / 10.0;
  for (double t = -std::log(rng.Unit()) / job_rate; t < seconds;
       t += -std::log(rng.Unit()) / job_rate) {
    w.AddJob(t);
    uint32_t size = 1;
    while (rng.Unit() > 0.1) ++size;
    for (uint32_t i = 0; i < size; ++i) {
      std::vector<MachineId> rep;
      while (rep.size() < 3) {
        const auto m = static_cast<MachineId>(rng.Below(machines));
        if (std::find(rep.begin(), rep.end(), m) == rep.end()) rep.push_back(m);
      }
      w.AddTask(TaskKind::kMap, rep);
    }
  }
  return w;
}

TEST_CASE("Trace mode is deterministic per seed", "[trace_sim]") {
  const TraceWorkload w = RandomWorkload(50, 0.8, 600, 3);
  for (const PolicyKind kind :
       {PolicyKind::kJsqMaxWeight, PolicyKind::kDelay, PolicyKind::kFair, PolicyKind::kFifo,
        PolicyKind::kLateBinding, PolicyKind::kBalancedPandas, PolicyKind::kQuincy,
        PolicyKind::kCapacityScheduler, PolicyKind::kFairScheduler}) {
    CAPTURE(PolicyKindName(kind));
    TraceSimParams p;
    p.cluster.machines = 50;
    p.policy.kind = kind;
    p.policy.alpha = 1 / 25.0;
    p.policy.gamma = p.policy.alpha / 4;
    p.seed = 9;
    const TraceSimResult a = SimulateTrace(w, p), b = SimulateTrace(w, p);
    CHECK(a.jobs_done == w.jobs.size());
    CHECK(a.jct_s == b.jct_s);
    CHECK(a.idle_holder_task_s == b.idle_holder_task_s);
    p.seed = 10;
    CHECK(SimulateTrace(w, p).jct_s != a.jct_s);
  }
}

TEST_CASE("Delay scheduling's wait gives the same locality at 600 and 5,000 machines",
          "[trace_sim]") {
  // One workload model at 70% load, scaled to each cluster; the same 10 s wait.
  std::vector<double> locality;
  for (const uint32_t machines : {600u, 5000u}) {
    const TraceWorkload w = RandomWorkload(machines, 0.7, 400, 5);
    TraceSimParams p;
    p.cluster.machines = machines;
    p.policy.kind = PolicyKind::kDelay;
    p.policy.delay_wait = 10;
    const TraceSimResult r = SimulateTrace(w, p);
    CHECK(r.jobs_done == w.jobs.size());
    locality.push_back(r.locality);
  }
  CAPTURE(locality[0], locality[1]);
  CHECK(locality[0] < 1);  // the wait matters: some tasks run remote
  CHECK(std::abs(locality[0] - locality[1]) <= 0.01);
}

}  // namespace
}  // namespace locsched

namespace locsched {
namespace {

TEST_CASE("Trace mode: tenant queues keep a queue under its maximum and report it", "[trace_sim]") {
  QueueTreeSpec spec;
  QueueSpec a;
  a.name = "a";
  a.guarantee = 50;
  a.maximum = 50;
  QueueSpec b = a;
  b.name = "b";
  b.maximum = 100;
  spec.queues = {a, b};
  spec.default_queue = "b";
  QueueTree tree;
  REQUIRE(QueueTree::Build(spec, &tree).ok());
  TraceWorkload w;
  w.AddJob(0);
  for (MachineId m = 0; m < 8; ++m) w.AddTask(TaskKind::kMap, {m % 4});
  w.AddJob(30);
  w.AddTask(TaskKind::kMap, {0});
  w.AddTask(TaskKind::kMap, {1});
  TraceSimParams p;
  p.cluster.machines = 4;
  p.cluster.fixed_durations = true;
  p.cluster.local_mean_s = 100;
  p.policy.kind = PolicyKind::kFifo;
  p.queues = &tree;
  p.job_queues = {*tree.Find("a"), *tree.Find("b")};
  REQUIRE(ValidateTraceSim(w, p).empty());
  const TraceSimResult r = SimulateTrace(w, p);
  CHECK(r.jobs_done == 2);
  REQUIRE(r.queues.size() == 2);
  CHECK(r.queues[0].name == "a");
  CHECK(r.queues[0].max_slots == 2);
  CHECK(r.queues[0].peak_running == 2);  // 8 tasks, 4 machines: held at its maximum
  CHECK(r.queues[0].jobs_done == 1);
  // b's job arrives while a runs 2 of 4 slots: 2 are free, so b has its guarantee at once.
  CHECK(r.queues[1].meter.open_episodes == 0);
  CHECK(r.queues[1].mean_jct_s > 0);
  p.job_queues = {0};
  CHECK(ValidateTraceSim(w, p) == "queues: one queue per job");
}

// Two tenants guaranteed half of 20 one-slot machines each: a floods the idle cluster at
// 0 s with 40 tasks, b's 20 arrive at 10 s. Every replica is on machine 0 or 1, so nearly
// every task runs remote: 400 s, a long wait for b without preemption.
struct Burst {
  QueueTree tree;
  TraceWorkload w;
  TraceSimParams p;
  Burst() {
    QueueTreeSpec spec;
    for (const char* name : {"a", "b"}) {
      QueueSpec q;
      q.name = name;
      q.guarantee = 50;
      spec.queues.push_back(q);
    }
    spec.default_queue = "b";
    REQUIRE(QueueTree::Build(spec, &tree).ok());
    for (int j = 0; j < 6; ++j) {
      w.AddJob(j < 4 ? 0 : 10);
      for (int i = 0; i < 10; ++i) w.AddTask(TaskKind::kMap, {j < 4 ? 0u : 1u});
      p.job_queues.push_back(*tree.Find(j < 4 ? "a" : "b"));
    }
    p.cluster.machines = 20;
    p.cluster.fixed_durations = true;
    p.cluster.local_mean_s = 100;
    p.policy.kind = PolicyKind::kFifo;
    p.policy.alpha = 1 / p.cluster.local_mean_s;  // the guarantee grace: 100 s
    p.policy.gamma = p.policy.alpha / p.cluster.remote_slowdown;
    p.queues = &tree;
  }
};

TEST_CASE("Trace mode: preemption gives a late tenant its guarantee within the timeout",
          "[trace_sim]") {
  Burst burst;
  const TraceSimResult plain = SimulateTrace(burst.w, burst.p);
  burst.p.preemption_timeout_s = 100;
  REQUIRE(ValidateTraceSim(burst.w, burst.p).empty());
  const TraceSimResult r = SimulateTrace(burst.w, burst.p);
  for (const TraceSimResult* x : {&plain, &r}) {
    CHECK(x->jobs_done == 6);
    CHECK(x->tasks_done == x->tasks);  // none lost, none run twice
    REQUIRE(x->queues.size() == 2);
    CHECK(x->queues[1].meter.open_episodes == 0);
  }
  // Without preemption b waits for a's 400 s tasks. With it, at 110 s a loses its 10 most
  // recent (the task machine 0 started at 100 s, when its local task ended, 10 s in; nine
  // of the first wave, about 107 s in) and b holds its 10 slots at once. b's ten end at
  // 510 s, within the grace FIFO gives the slots to a's older jobs, and b, starved again,
  // takes 9 back at 610 s (each 100 s in; one slot of b's runs local on machine 1).
  const double ttg = r.queues[1].meter.ttg_p99_s;
  CHECK(plain.queues[1].meter.ttg_p99_s > 300);
  CHECK(ttg <= burst.p.preemption_timeout_s + 3 * burst.p.cluster.heartbeat_s);
  CHECK(ttg < plain.queues[1].meter.ttg_p99_s);
  CHECK(plain.preempted_tasks == 0);
  CHECK(r.preempted_tasks == 19);
  CHECK(r.queues[0].preempted_tasks == 19);
  CHECK(r.queues[1].preempted_tasks == 0);
  CHECK(r.preempted_task_s == Approx(10 + 9 * 107 + 9 * 100).epsilon(0.02));
  CHECK(r.preempted_task_s == Approx(r.queues[0].preempted_task_s));
  CHECK(r.preempted_share > 0);
  CHECK(r.preempted_share < 0.2);
}

TEST_CASE("Trace mode: with a kill wait, preemption stops tasks only that much later",
          "[trace_sim]") {
  Burst burst;
  burst.p.preemption_timeout_s = 100;
  const TraceSimResult at_once = SimulateTrace(burst.w, burst.p);
  burst.p.preemption_kill_wait_s = 5;
  REQUIRE(ValidateTraceSim(burst.w, burst.p).empty());
  const TraceSimResult r = SimulateTrace(burst.w, burst.p);
  CHECK(r.tasks_done == r.tasks);
  CHECK(r.preempted_tasks > 0);
  // Each round stops its victims 5 s later, after 5 s more of their run.
  CHECK(r.preempted_task_s > at_once.preempted_task_s);
  const double ttg = r.queues[1].meter.ttg_p99_s;
  CHECK(ttg > at_once.queues[1].meter.ttg_p99_s);
  CHECK(ttg <= burst.p.preemption_timeout_s + 5 + 3 * burst.p.cluster.heartbeat_s);
  burst.p.preemption_kill_wait_s = -1;
  CHECK(ValidateTraceSim(burst.w, burst.p) ==
        "preemption-kill-wait: must be a non-negative number of seconds");
}

TEST_CASE("Trace mode: preemption restores guarantees under the models of YARN's schedulers",
          "[trace_sim]") {
  for (const PolicyKind kind : {PolicyKind::kCapacityScheduler, PolicyKind::kFairScheduler}) {
    CAPTURE(PolicyKindName(kind));
    Burst burst;
    burst.p.policy.kind = kind;
    burst.p.policy.job_order = DefaultJobOrder(kind);
    burst.p.policy.node_locality_delay = 0;  // run off the holders at once, as FIFO does
    burst.p.policy.rack_locality_delay = 0;
    const TraceSimResult plain = SimulateTrace(burst.w, burst.p);
    burst.p.preemption_timeout_s = 100;
    REQUIRE(ValidateTraceSim(burst.w, burst.p).empty());
    const TraceSimResult r = SimulateTrace(burst.w, burst.p);
    for (const TraceSimResult* x : {&plain, &r}) {
      CHECK(x->jobs_done == 6);
      CHECK(x->tasks_done == x->tasks);  // none lost, none run twice
      REQUIRE(x->queues.size() == 2);
    }
    CHECK(plain.preempted_tasks == 0);
    CHECK(r.preempted_tasks > 0);
    CHECK(r.queues[1].preempted_tasks == 0);  // only a, above its guarantee, loses tasks
    CHECK(r.queues[1].meter.ttg_p99_s <=
          burst.p.preemption_timeout_s + 3 * burst.p.cluster.heartbeat_s);
    CHECK(r.queues[1].meter.ttg_p99_s < plain.queues[1].meter.ttg_p99_s);
  }
}

TEST_CASE("Trace mode: the preemption timeout is checked", "[trace_sim]") {
  Burst burst;
  burst.p.preemption_timeout_s = -1;
  CHECK(ValidateTraceSim(burst.w, burst.p) ==
        "preemption-timeout: must be a non-negative number of seconds");
  burst.p.preemption_timeout_s = 30;
  burst.p.queues = nullptr;
  burst.p.job_queues.clear();
  CHECK(ValidateTraceSim(burst.w, burst.p) ==
        "preemption-timeout: preempts for tenant queues; give --queues or --tenants");
}

}  // namespace
}  // namespace locsched
