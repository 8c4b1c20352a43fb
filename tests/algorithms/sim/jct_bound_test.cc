// Tests the JCT lower bounds (algorithms/sim/jct_bound.h): hand-worked phases, SRPT runs
// and workloads whose bound is worked out by hand, the unfinished-job correction of the
// slotted model's window, and a property test: no policy's trace run, on any placement or
// seed, ends with a mean JCT (or weighted JCT) below its bound.
#include "algorithms/sim/jct_bound.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/sim/trace_shape.h"
#include "base/rng.h"

namespace locsched {
namespace {

double Phase(std::vector<double> works, uint64_t slots) {
  return PhaseBound(works, slots);
}

TEST_CASE("PhaseBound: the longest task, the work per slot, or the waves", "[jct_bound]") {
  CHECK(Phase({}, 4) == 0);
  CHECK(Phase({7}, 4) == 7);
  CHECK(Phase({3, 1, 1, 1}, 2) == 3);  // the longest task (also 6 / 2)
  CHECK(Phase({1, 1, 1, 1, 4}, 4) == 4);
  CHECK(Phase({2, 2, 2, 2}, 3) == 4);     // two waves of 2 where 8 / 3 says 2.67
  CHECK(Phase({1, 1, 1, 1, 1}, 2) == 3);  // ceil(5 / 2) waves of 1
  CHECK(Phase({5, 4, 3, 1}, 3) == 5);     // 3 + 1 = 4 < the longest, 5
  CHECK(Phase({6, 4, 3, 3}, 3) == 6);
  // {9, 8, 8, 8, 1, 1, 1} on 3 slots: 4 of the longest 4 tasks share a slot two by two:
  // at least 8 + 8 = 16; 36 / 3 = 12 and 9 say less.
  CHECK(Phase({1, 8, 9, 1, 8, 1, 8}, 3) == 16);
  // A thousand tasks of 1 on 300 slots: four waves.
  CHECK(Phase(std::vector<double>(1000, 1), 300) == 4);
}

TEST_CASE("SrptFlow: shortest remaining work first on one fast server", "[jct_bound]") {
  SrptFlow one(1);
  // A (4) at 0, B (1) at 1: B preempts A (3 left) and ends at 2; A ends at 5.
  one.Release(0, 4);
  one.Release(1, 1);
  CHECK(one.Drain() == Approx(1 + 5));
  SrptFlow two(2);
  // Twice as fast: A has 2 left at 1; B ends at 1.5, A at 2.5.
  two.Release(0, 4);
  two.Release(1, 1);
  CHECK(two.Drain() == Approx(0.5 + 2.5));
  SrptFlow idle(1);
  // The server idles between jobs: each takes its own work.
  idle.Release(0, 1);
  idle.Release(10, 2);
  CHECK(idle.Drain() == Approx(1 + 2));
}

// Two slots (two machines of one slot); tasks 10 s local.
TraceClusterModel TwoSlots() {
  TraceClusterModel c;
  c.machines = 2;
  c.local_mean_s = 10;
  c.fixed_durations = true;
  return c;
}

JctBound BoundOf(const TraceWorkload& w, const TraceClusterModel& c, uint64_t seed,
                 std::vector<double> jct) {
  std::vector<uint32_t> job_of, maps_left, tasks_left;
  std::vector<double> work;
  DrawTraceTasks(w, c.fixed_durations, seed, &job_of, &work, &maps_left, &tasks_left);
  return TraceJctBound(w, work, c, jct);
}

struct PolicyCase {
  std::string name;
  PolicyKind kind;
  JobOrder order = JobOrder::kFair;
  IntraQueue intra = IntraQueue::kFair;
  double wait = 0;
  bool lp = false;
};

std::vector<PolicyCase> AllPolicies() {
  return {{"fifo", PolicyKind::kFifo},
          {"fair", PolicyKind::kFair},
          {"delay 0 s", PolicyKind::kDelay, JobOrder::kFair, IntraQueue::kFair, 0},
          {"delay 20 s", PolicyKind::kDelay, JobOrder::kFair, IntraQueue::kFair, 20},
          {"jsq-maxweight fair", PolicyKind::kJsqMaxWeight},
          {"jsq-maxweight fifo", PolicyKind::kJsqMaxWeight, JobOrder::kFair, IntraQueue::kFifo},
          {"balanced-pandas", PolicyKind::kBalancedPandas},
          {"late-binding fair", PolicyKind::kLateBinding, JobOrder::kFair},
          {"late-binding srpt", PolicyKind::kLateBinding, JobOrder::kSrpt},
          {"late-binding smith", PolicyKind::kLateBinding, JobOrder::kSmith},
          {"late-binding lp", PolicyKind::kLateBinding, JobOrder::kLp, IntraQueue::kFair, 0, true}};
}

// `machines` of two slots each.
TraceClusterModel MachinesOfTwoSlots(uint32_t machines, bool fixed) {
  TraceClusterModel c;
  c.machines = machines;
  c.slots_per_machine = 2;
  c.fixed_durations = fixed;
  return c;
}

// Policy c on `cluster`, which its rates follow.
TraceSimParams ParamsFor(const PolicyCase& c, const TraceClusterModel& cluster, uint64_t seed) {
  TraceSimParams p;
  p.cluster = cluster;
  p.policy.kind = c.kind;
  p.policy.job_order = c.order;
  p.policy.intra = c.intra;
  p.policy.delay_wait = c.wait;
  p.policy.alpha = 1 / cluster.local_mean_s;
  p.policy.gamma = p.policy.alpha / cluster.remote_slowdown;
  p.policy.beta = p.policy.alpha / RackSlowdown(cluster);
  p.policy.seed = seed;
  p.seed = seed;
  p.lp.enabled = c.lp;
  return p;
}

TEST_CASE("TraceJctBound: two jobs on two slots, where SRPT is the larger", "[jct_bound]") {
  // Both at 0 s, two 10 s maps each. Each job alone needs 10 s (critical path 10). One
  // server twice a slot's speed runs one job (20 s of work) by 10 s, the other by 20 s:
  // mean 15, which running one job on both slots, then the other, achieves.
  TraceWorkload w;
  for (int j = 0; j < 2; ++j) {
    w.AddJob(0);
    w.AddTask(TaskKind::kMap, {0});
    w.AddTask(TaskKind::kMap, {1});
  }
  w.weights = {1, 3};
  const JctBound b = BoundOf(w, TwoSlots(), 1, {10, 20});
  CHECK(b.jobs == 2);
  CHECK(b.critical_path_mean == Approx(10));
  CHECK(b.srpt_mean == Approx(15));
  CHECK(b.mean == Approx(15));
  // Weighted: each job's own bound times its weight, 1 x 10 + 3 x 10.
  CHECK(b.weighted == Approx(40));
  CHECK(b.weighted_mean() == Approx(10));
}

// At `submit_s`: three maps and a reduce, every one held by machine 0.
void AddMapReduceJob(TraceWorkload& w, double submit_s) {
  w.AddJob(submit_s);
  for (int i = 0; i < 3; ++i) w.AddTask(TaskKind::kMap, {0});
  w.AddTask(TaskKind::kReduce, {0});
}

TEST_CASE("TraceJctBound: a map and reduce job, where its critical path is the larger",
          "[jct_bound]") {
  // Three 10 s maps held by machine 0 of two: machine 0 runs them at full speed, machine
  // 1 at a quarter (remote 4x), 1.25 slots' worth: 30 s of work need 24 s (more than the
  // two waves, 20 s, that two local slots would need). Then the 10 s reduce: 34 s. SRPT
  // runs the job's 40 s of work at 1.25 slots' speed: 32 s.
  TraceWorkload w;
  AddMapReduceJob(w, 5);
  JctBound b = BoundOf(w, TwoSlots(), 1, {31});
  CHECK(b.jobs == 1);
  CHECK(b.critical_path_mean == Approx(34));
  CHECK(b.srpt_mean == Approx(32));
  CHECK(b.mean == Approx(34));
  // The simulator reports the same, and its run is no shorter.
  TraceSimParams p;
  p.cluster = TwoSlots();
  p.policy.kind = PolicyKind::kFifo;
  REQUIRE(ValidateTraceSim(w, p).empty());
  const TraceSimResult r = SimulateTrace(w, p);
  REQUIRE(r.jobs_done == 1);
  CHECK(r.lower_bound_mean_jct_s == Approx(34));
  CHECK(r.lower_bound_critical_path_s == Approx(34));
  CHECK(r.lower_bound_srpt_s == Approx(32));
  CHECK(r.lower_bound_weighted_jct_s == Approx(34));
  CHECK(r.mean_jct_s >= 34);
  // A second job that did not finish counts in neither bound.
  AddMapReduceJob(w, 6);
  b = BoundOf(w, TwoSlots(), 1, {31, -1});
  CHECK(b.jobs == 1);
  CHECK(b.mean == Approx(34));
}

TEST_CASE("TraceJctBound: held on both machines, the phase's waves", "[jct_bound]") {
  // The same job with every task held by both machines: both run at full speed, so the
  // maps' two waves (20 s) and the reduce (10 s) make 30 s; SRPT's 40 s on two slots, 20 s.
  TraceWorkload w;
  w.AddJob(5);
  for (int i = 0; i < 3; ++i) w.AddTask(TaskKind::kMap, {0, 1});
  w.AddTask(TaskKind::kReduce, {1, 0});
  const JctBound b = BoundOf(w, TwoSlots(), 1, {31});
  CHECK(b.critical_path_mean == Approx(30));
  CHECK(b.srpt_mean == Approx(20));
  CHECK(b.mean == Approx(30));
}

TEST_CASE("HolderRate: holders at 1, their racks at the rack rate, the rest remote",
          "[jct_bound]") {
  TraceClusterModel c;
  c.machines = 6;  // racks {0, 1, 2} and {3, 4, 5}
  c.slots_per_machine = 2;
  c.remote_slowdown = 4;
  SECTION("one rack: holders at 1, every other machine at 1/4") {
    HolderRate rate(c);
    CHECK(rate.slots() == 12);
    CHECK(rate.Of(std::vector<MachineId>{0, 0, 4}) == Approx(2 * (2 + 4 / 4.0)));
    CHECK(rate.Of(std::vector<MachineId>{}) == Approx(2 * 6 / 4.0));
    CHECK(rate.Of(std::vector<MachineId>{0, 1, 2, 3, 4, 5}) == Approx(12));
  }
  SECTION("two racks: a holder's rack-mates at 1/2 (sqrt 4), the other rack at 1/4") {
    c.racks = 2;
    HolderRate rate(c);
    CHECK(rate.Of(std::vector<MachineId>{1}) == Approx(2 * (1 + 2 / 2.0 + 3 / 4.0)));
    CHECK(rate.Of(std::vector<MachineId>{1, 4}) == Approx(2 * (2 + 4 / 2.0)));
    c.rack_slowdown = 1.5;
    HolderRate set(c);
    CHECK(set.Of(std::vector<MachineId>{2, 2}) == Approx(2 * (1 + 2 / 1.5 + 3 / 4.0)));
  }
}

TEST_CASE("TraceJctBound: a rack that holds nothing runs at the remote rate", "[jct_bound]") {
  // Four machines in two racks, remote 4x (rack 2x): four 10 s maps held by machine 0.
  // Machine 0 runs 1, machine 1 (its rack) 1/2, machines 2 and 3 1/4 each: 2 slots' worth,
  // so 40 s of work take at least 20 s, where four local slots would say 10 s.
  TraceWorkload w;
  w.AddJob(0);
  for (int i = 0; i < 4; ++i) w.AddTask(TaskKind::kMap, {0});
  TraceClusterModel c = TwoSlots();
  c.machines = 4;
  c.racks = 2;
  const JctBound b = BoundOf(w, c, 1, {40});
  CHECK(b.critical_path_mean == Approx(20));
  CHECK(b.srpt_mean == Approx(20));
  // Every policy's run of it is no shorter.
  for (const PolicyCase& pc : AllPolicies()) {
    const TraceSimParams p = ParamsFor(pc, c, 1);
    INFO(pc.name);
    REQUIRE(ValidateTraceSim(w, p).empty());
    const TraceSimResult r = SimulateTrace(w, p);
    REQUIRE(r.jobs_done == 1);
    CHECK(r.lower_bound_mean_jct_s == Approx(20));
    CHECK(r.mean_jct_s >= 20);
  }
}

TEST_CASE("TraceJctBound: drawn works, the waves of unequal tasks", "[jct_bound]") {
  // One job of 5 maps with Exp(1) works on 2 slots, held by both: the bound is PhaseBound
  // of the drawn works times the local mean, whatever they are.
  TraceWorkload w;
  w.AddJob(0);
  for (int i = 0; i < 5; ++i) w.AddTask(TaskKind::kMap, {0, 1});
  TraceClusterModel c = TwoSlots();
  c.fixed_durations = false;
  std::vector<uint32_t> job_of, maps_left, tasks_left;
  std::vector<double> work;
  DrawTraceTasks(w, false, 9, &job_of, &work, &maps_left, &tasks_left);
  std::vector<double> local;
  for (const double x : work) local.push_back(x * 10);
  std::sort(local.begin(), local.end(), std::greater<>());
  double total = 0;
  for (const double x : local) total += x;
  const double expect =
      std::max({local[0], total / 2, local[1] + local[2], local[2] + local[3] + local[4]});
  const JctBound b = BoundOf(w, c, 9, {1000});
  CHECK(b.critical_path_mean == Approx(expect));
  CHECK(b.mean == Approx(std::max(expect, total / 2)));
  // Held by machine 0 alone, the work runs at 1.25 slots' speed at most.
  TraceWorkload one;
  one.AddJob(0);
  for (int i = 0; i < 5; ++i) one.AddTask(TaskKind::kMap, {0});
  CHECK(BoundOf(one, c, 9, {1000}).critical_path_mean == Approx(std::max(expect, total / 1.25)));
}

TEST_CASE("WindowJctBound: unfinished jobs are given the latest end they could have",
          "[jct_bound]") {
  SECTION("every job finished: SRPT's mean") {
    WindowJctBound b(1);
    b.Arrive(0, 4);
    b.Arrive(1, 1);
    b.Done(1, 1, 1, 2);
    b.Done(0, 4, 4, 1);
    const JctBound r = b.Finish(10);
    CHECK(r.jobs == 2);
    CHECK(r.srpt_mean == Approx(6.0 / 2));
    CHECK(r.critical_path_mean == Approx(2.5));
    CHECK(r.mean == Approx(3));
    CHECK(r.weighted_mean() == Approx((2 * 1 + 1 * 4) / 3.0));
  }
  SECTION("one left: SRPT's total less what the unfinished job could take") {
    // Stopped at 3 with A (4, from 0) unfinished: A could end by 3 + 4 = 7, a flow of 7.
    // SRPT's total, 6, less 7 leaves nothing; B's own bound, 1, remains.
    WindowJctBound b(1);
    b.Arrive(0, 4);
    b.Arrive(1, 1);
    b.Done(1, 1, 1, 1);
    const JctBound r = b.Finish(3);
    CHECK(r.srpt_mean == 0);
    CHECK(r.mean == Approx(1));
  }
  SECTION("one left, far from the end: SRPT still counts") {
    // A (1) at 0 and B (1) at 0.5 done; C (1) at 100 unfinished when the run stops at
    // 101: it could end by 102 (a flow of 2). SRPT's flows 1, 1.5 and 1 (3.5) less 2
    // leave 1.5 over the two done jobs.
    WindowJctBound b(1);
    b.Arrive(0, 1);
    b.Arrive(0.5, 1);
    b.Arrive(100, 1);
    b.Done(0, 1, 1, 1);
    b.Done(0.5, 1, 1, 1);
    const JctBound r = b.Finish(101);
    CHECK(r.srpt_mean == Approx(1.5 / 2));
    CHECK(r.mean == Approx(1));
  }
  SECTION("nothing finished: no bound") {
    WindowJctBound b(4);
    b.Arrive(0, 4);
    CHECK(b.Finish(1).mean == 0);
  }
}

// Poisson jobs (mean 6 tasks, a third with up to two reduces), three distinct random
// replicas per task, offering `load` of the local capacity of `machines` of two slots over
// `seconds` (tasks 25 s local on average); weights 1-4.
TraceWorkload RandomWorkload(uint32_t machines, double load, double seconds, uint64_t seed) {
  Rng rng(seed);
  TraceWorkload w;
  const double job_rate = load * machines * 2 / 25.0 / 6.0;
  for (double t = -std::log(rng.Unit()) / job_rate; t < seconds;
       t += -std::log(rng.Unit()) / job_rate) {
    w.AddJob(t);
    w.weights.push_back(1 + static_cast<double>(rng.Below(4)));
    uint32_t size = 1;
    while (rng.Unit() > 1.0 / 6) ++size;
    const uint32_t reduces = rng.Below(3) == 0 ? rng.Below(std::min(size, 3U)) : 0;
    for (uint32_t i = 0; i < size; ++i) {
      std::vector<MachineId> rep;
      while (rep.size() < 3) {
        const auto m = static_cast<MachineId>(rng.Below(machines));
        if (std::find(rep.begin(), rep.end(), m) == rep.end()) rep.push_back(m);
      }
      w.AddTask(i + reduces >= size ? TaskKind::kReduce : TaskKind::kMap, rep);
    }
  }
  return w;
}

// One run of `w` under every policy: none ends below its bounds.
void CheckEveryPolicy(const TraceWorkload& w, const TraceClusterModel& cluster, uint64_t seed) {
  for (const PolicyCase& c : AllPolicies()) {
    const TraceSimParams p = ParamsFor(c, cluster, seed);
    REQUIRE(ValidateTraceSim(w, p).empty());
    const TraceSimResult r = SimulateTrace(w, p);
    INFO(c.name << ", seed " << seed << ", " << cluster.machines << " machines in " << cluster.racks
                << " racks, remote " << cluster.remote_slowdown << "x");
    REQUIRE(r.jobs_done > 0);
    CHECK(r.lower_bound_mean_jct_s > 0);
    CHECK(r.mean_jct_s >= r.lower_bound_mean_jct_s * (1 - 1e-9));
    CHECK(r.weighted_jct_s >= r.lower_bound_weighted_jct_s * (1 - 1e-9));
    // The reported bound is the larger of its two parts.
    CHECK(r.lower_bound_mean_jct_s ==
          std::max(r.lower_bound_critical_path_s, r.lower_bound_srpt_s));
  }
}

TEST_CASE("No policy's trace run goes below its JCT bound, on any placement or seed",
          "[jct_bound]") {
  // Moderate and heavy load (0.95, where delay's waits pile up), drawn and fixed works.
  constexpr uint32_t kMachines = 16;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    for (const double share : {1.0, 0.3}) {
      TraceWorkload w = RandomWorkload(kMachines, seed >= 3 ? 0.95 : 0.7, 900, 40 + seed);
      if (share < 1) ConcentrateReplicas(w, kMachines, share);
      CheckEveryPolicy(w, MachinesOfTwoSlots(kMachines, seed % 2 == 0), seed);
    }
  }
}

TEST_CASE("No run goes below its bound where racks, an empty rack and the slowdown vary",
          "[jct_bound]") {
  // The data on 16 machines in 4 racks, a fifth rack of 4 holding nothing; the bound
  // counts the holders, their racks and the empty rack each at its own rate.
  constexpr uint32_t kHolders = 16;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    for (const double share : {1.0, 0.4}) {
      TraceWorkload w = RandomWorkload(kHolders, 0.8, 900, 70 + seed);
      if (share < 1) ConcentrateReplicas(w, kHolders, share);
      TraceClusterModel c = MachinesOfTwoSlots(kHolders + 4, seed == 2);
      c.racks = 5;
      c.remote_slowdown = seed == 3 ? 1.25 : 4;
      CheckEveryPolicy(w, c, seed);
    }
  }
}

}  // namespace
}  // namespace locsched
