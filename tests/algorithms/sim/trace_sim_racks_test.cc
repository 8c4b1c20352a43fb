// Tests the rack level of the trace-driven simulation (algorithms/sim/trace_sim.h): a
// hand-worked run over two racks, --racks 1 being the run without racks, and the rates a
// RateEstimator learns per locality level converging to the cluster model's true rates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "algorithms/sim/trace_sim.h"
#include "base/rng.h"

namespace locsched {
namespace {

// Poisson jobs (geometric sizes, mean 10) at `load` of `machines` one-slot machines with
// 25 s tasks; replicas as HDFS places them over `racks` racks (machine m in rack
// m * racks / machines): one on a random machine, two on another rack. With `holders` set,
// only the first `holders` machines of each rack (at least 2) hold data.
TraceWorkload RackedWorkload(uint32_t machines, uint32_t racks, double load, double seconds,
                             uint64_t seed, uint32_t holders = 0) {
  Rng rng(seed);
  TraceWorkload w;
  const double jobs_per_s = load * machines / 25.0 / 10.0;
  const uint32_t per_rack = machines / racks;  // the test uses racks dividing machines
  const uint32_t hot = holders == 0 ? per_rack : holders;
  for (double t = 0;;) {
    t += -std::log(rng.Unit()) / jobs_per_s;
    if (t > seconds) break;
    w.AddJob(t);
    uint32_t size = 1;
    while (rng.Unit() > 0.1) ++size;
    for (uint32_t i = 0; i < size; ++i) {
      const uint32_t rack = rng.Below(racks);
      const MachineId first = rack * per_rack + rng.Below(hot);
      uint32_t other = rng.Below(racks - 1);
      other += other >= rack;
      const MachineId second = other * per_rack + rng.Below(hot);
      MachineId third = other * per_rack + rng.Below(hot - 1);
      third += third >= second;
      w.AddTask(TaskKind::kMap, {first, second, third});
    }
  }
  return w;
}

TEST_CASE("Trace mode: a rack-local task runs at the rack slowdown", "[trace_sim][racks]") {
  // Four machines in two racks (m0, m1 | m2, m3), heartbeats every 3 s (m0 at 0.75 s, m1
  // at 1.5 s, m2 at 2.25 s); tasks take 10 s local, 40 s off-rack and, by default,
  // sqrt(4) = 2 times longer, 20 s, in a holder's rack. One job of three tasks, all on m0.
  TraceWorkload w;
  w.AddJob(0);
  for (int i = 0; i < 3; ++i) w.AddTask(TaskKind::kMap, {0});
  TraceSimParams p;
  p.cluster.machines = 4;
  p.cluster.racks = 2;
  p.cluster.local_mean_s = 10;
  p.cluster.remote_slowdown = 4;
  p.cluster.heartbeat_s = 3;
  p.cluster.fixed_durations = true;
  p.policy.kind = PolicyKind::kFifo;
  REQUIRE(ValidateTraceSim(w, p).empty());
  CHECK(RackSlowdown(p.cluster) == 2);
  const TraceSimResult r = SimulateTrace(w, p);
  // m0 runs one local (0.75-10.75 s), m1 one rack-local (1.5-21.5 s), m2 one off-rack
  // (2.25-42.25 s).
  REQUIRE(r.jobs_done == 1);
  CHECK(r.jct_s[0] == Approx(42.25));
  CHECK(r.locality == Approx(1.0 / 3));
  CHECK(r.rack_local == Approx(1.0 / 3));
  CHECK(r.off_rack == Approx(1.0 / 3));
  CHECK(r.rack_done == 1);

  SECTION("an explicit rack slowdown") {
    p.cluster.rack_slowdown = 3;
    CHECK(SimulateTrace(w, p).makespan_s == Approx(42.25));  // m2's off-rack run still ends last
    p.cluster.rack_slowdown = 5;                             // beyond the remote slowdown
    CHECK(ValidateTraceSim(w, p).find("rack-slowdown") == 0);
  }
  SECTION("one rack is no topology: every non-local run is off-rack") {
    p.cluster.racks = 1;
    const TraceSimResult one = SimulateTrace(w, p);
    CHECK(one.rack_local == 0);
    CHECK(one.jct_s[0] == Approx(42.25));
    CHECK(one.makespan_s == Approx(42.25));
    CHECK(one.off_rack == Approx(2.0 / 3));
  }
}

TEST_CASE("Trace mode with one rack is the run without racks, for every policy",
          "[trace_sim][racks]") {
  const TraceWorkload w = RackedWorkload(40, 4, 0.8, 400, 4);
  for (const PolicyKind kind :
       {PolicyKind::kJsqMaxWeight, PolicyKind::kDelay, PolicyKind::kFair, PolicyKind::kFifo,
        PolicyKind::kLateBinding, PolicyKind::kBalancedPandas, PolicyKind::kQuincy,
        PolicyKind::kCapacityScheduler, PolicyKind::kFairScheduler}) {
    CAPTURE(PolicyKindName(kind));
    TraceSimParams p;
    p.cluster.machines = 40;
    p.policy.kind = kind;
    p.policy.alpha = 1 / 25.0;
    p.policy.gamma = p.policy.alpha / 4;
    const TraceSimResult none = SimulateTrace(w, p);
    p.cluster.racks = 1;
    const TraceSimResult one = SimulateTrace(w, p);
    CHECK(none.jct_s == one.jct_s);
    CHECK(none.locality == one.locality);
    CHECK(none.rack_local == 0);
    CHECK(one.rack_local == 0);
  }
}

TEST_CASE("Trace mode with racks: every policy finishes every task, deterministically",
          "[trace_sim][racks]") {
  const TraceWorkload w = RackedWorkload(40, 4, 0.8, 400, 6);
  for (const PolicyKind kind :
       {PolicyKind::kJsqMaxWeight, PolicyKind::kDelay, PolicyKind::kFair, PolicyKind::kFifo,
        PolicyKind::kLateBinding, PolicyKind::kBalancedPandas, PolicyKind::kQuincy,
        PolicyKind::kCapacityScheduler, PolicyKind::kFairScheduler}) {
    CAPTURE(PolicyKindName(kind));
    TraceSimParams p;
    p.cluster.machines = 40;
    p.cluster.racks = 4;
    p.policy.kind = kind;
    p.policy.alpha = 1 / 25.0;
    p.policy.gamma = p.policy.alpha / 4;
    p.policy.beta = p.policy.alpha / 2;
    const TraceSimResult a = SimulateTrace(w, p), b = SimulateTrace(w, p);
    CHECK(a.jobs_done == w.jobs.size());
    CHECK(a.tasks_done == w.num_tasks());
    CHECK(a.local_done + a.rack_done + a.off_rack_done == w.num_tasks());
    CHECK(a.locality + a.rack_local + a.off_rack == Approx(1));
    CHECK(a.jct_s == b.jct_s);
  }
}

TEST_CASE("Late binding in trace mode runs rack-local rather than off-rack", "[trace_sim][racks]") {
  // Half of each rack's machines hold all the data, at 60% load of the cluster (120% of the
  // holders'): some tasks must leave their holders, and late binding sends most of them to
  // a holder's rack (with HDFS's placement two racks hold replicas of each task).
  const TraceWorkload w = RackedWorkload(40, 4, 0.6, 600, 8, 5);
  TraceSimParams p;
  p.cluster.machines = 40;
  p.cluster.racks = 4;
  p.policy.kind = PolicyKind::kLateBinding;
  p.policy.job_order = JobOrder::kSrpt;
  p.policy.alpha = 1 / 25.0;
  p.policy.gamma = p.policy.alpha / 4;
  p.policy.beta = p.policy.alpha / 2;
  const TraceSimResult r = SimulateTrace(w, p);
  CAPTURE(r.locality, r.rack_local, r.off_rack);
  REQUIRE(r.jobs_done == w.jobs.size());
  REQUIRE(r.rack_local + r.off_rack > 0);
  CHECK(r.rack_local > r.off_rack);
}

// The estimate's relative error bound: 5 standard errors of a mean of n Exp draws (the
// rate's relative standard error is about 1/sqrt(n); the decay over a window of all the
// run's tasks weighs each sample between e^-1 and 1, which costs at most a factor 1.1 in
// effective samples), plus the prior's pull, kPriorWeight pseudo-samples at most `prior_off`
// (relative) away: a false failure is a 5-sigma event, and the seeds are fixed.
double Tolerance(uint64_t n, double prior_off) {
  const double samples = static_cast<double>(n);
  return 5 * std::sqrt(1.1 / samples) + 10 * prior_off / (10 + samples);
}

TEST_CASE("Rates learnt per locality level converge to the model's true rates",
          "[trace_sim][racks]") {
  // FIFO at 95% load runs many tasks at each level; the durations are drawn up front,
  // independently of where the tasks run, so each level's sample is unbiased.
  const TraceWorkload w = RackedWorkload(60, 6, 0.95, 3000, 12);
  TraceSimParams p;
  p.cluster.machines = 60;
  p.cluster.racks = 6;
  p.cluster.local_mean_s = 25;
  p.cluster.remote_slowdown = 4;
  p.cluster.rack_slowdown = 0;  // sqrt(4) = 2
  p.policy.kind = PolicyKind::kFifo;
  // A prior far from the truth (FIFO does not use it): everything at 1 / 50 s.
  p.policy.alpha = p.policy.beta = p.policy.gamma = 1 / 50.0;
  p.seed = 21;
  const TraceSimResult r = SimulateTrace(w, p);
  REQUIRE(r.jobs_done == w.jobs.size());
  CAPTURE(r.local_done, r.rack_done, r.off_rack_done);
  REQUIRE(r.local_done >= 500);
  REQUIRE(r.rack_done >= 500);
  REQUIRE(r.off_rack_done >= 500);
  struct Level {
    double learnt, truth;
    uint64_t n;
  };
  const Level levels[] = {{r.learnt_alpha, 1 / 25.0, r.local_done},
                          {r.learnt_beta, 1 / 50.0, r.rack_done},
                          {r.learnt_gamma, 1 / 100.0, r.off_rack_done}};
  for (const Level& l : levels) {
    CAPTURE(l.learnt, l.truth, l.n);
    const double prior_off = std::abs(l.truth * 50 - 1);  // |prior mean / true mean - 1|
    CHECK(std::abs(l.learnt / l.truth - 1) <= Tolerance(l.n, prior_off));
  }
  // And the levels are told apart: each learnt rate is nearer its own truth than a neighbour's.
  CHECK(r.learnt_alpha > 1.5 / 50);
  CHECK(r.learnt_beta < 1.5 / 50);
  CHECK(r.learnt_beta > 1.5 / 100);
  CHECK(r.learnt_gamma < 1.5 / 100);
}

TEST_CASE("Regression: JSQ's tie-breaks drew the durations' random stream in trace mode",
          "[trace_sim]") {
  // The command line seeds the policy and the durations with one number. When both drew
  // one stream, JSQ+MaxWeight's choice of the remote queue (a draw below 1/4) fell on the
  // tasks whose durations (-log of the same draw) were long: its remote tasks ran about
  // 40% longer than the model says, and the rate learnt from them was that much low.
  // Data on the first 20 of 60 machines (replicas from 3 racks of 20 folded onto them),
  // so JSQ+MaxWeight runs many tasks remote.
  TraceWorkload w = RackedWorkload(60, 3, 0.8, 4000, 5);
  for (MachineId& m : w.replicas) m %= 20;
  TraceSimParams p;
  p.cluster.machines = 60;
  p.cluster.local_mean_s = 25;
  p.cluster.remote_slowdown = 4;
  p.policy.kind = PolicyKind::kJsqMaxWeight;
  p.policy.alpha = 1 / 25.0;
  p.policy.gamma = 1 / 100.0;
  p.policy.seed = p.seed = 7;
  const TraceSimResult r = SimulateTrace(w, p);
  REQUIRE(r.jobs_done == w.jobs.size());
  CAPTURE(r.learnt_alpha, r.learnt_gamma, r.local_done, r.off_rack_done);
  REQUIRE(r.off_rack_done >= 200);
  CHECK(std::abs(r.learnt_gamma * 100 - 1) <= Tolerance(r.off_rack_done, 0));
  CHECK(std::abs(r.learnt_alpha * 25 - 1) <= Tolerance(r.local_done, 0));
}

}  // namespace
}  // namespace locsched
