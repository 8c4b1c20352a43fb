// Tests online SynchPack (algorithms/lp/online_synchpack.h) under the list scheduler: every
// schedule is feasible (no task lost or run twice), runs repeat exactly, and two hand-worked
// cases show the LP order and the re-solve timer at work.
#include "algorithms/lp/online_synchpack.h"

#include <catch2/catch.hpp>

#include "algorithms/lp/list_scheduler.h"
#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

LpJob UnitJob(double weight, double release, int tasks) {
  LpJob job;
  job.weight = weight;
  job.release = release;
  for (int k = 0; k < tasks; ++k) job.tasks.push_back(LpTask{1.0, {0}, 1.0});
  return job;
}

// Start of (job, task) in `s`, or -1.
double StartOf(const Schedule& s, uint32_t job, uint32_t task) {
  for (const ScheduledTask& e : s)
    if (e.job == job && e.task == task) return e.start;
  return -1;
}

Schedule Run(const LpInstance& in, const OnlineSynchPackOptions& o, size_t* solves = nullptr) {
  OnlineSynchPack policy(in, o);
  Schedule s;
  REQUIRE(RunListScheduler(in, policy, &s).ok());
  if (solves) *solves = policy.solves();
  return s;
}

TEST_CASE("online SynchPack runs every task once, feasibly, the same way each time",
          "[online_synchpack]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 6);
    const LpInstance in = RandomInstance(seed, shape);
    OnlineSynchPackOptions o;
    o.first_interval = 1 + static_cast<double>(seed % 3);
    o.growth = 1.5;
    const Schedule a = Run(in, o);
    const Status feasible = CheckSchedule(in, a);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());  // also: each task exactly once
    const Schedule b = Run(in, o);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a[i].job == b[i].job);
      REQUIRE(a[i].task == b[i].task);
      REQUIRE(a[i].machine == b[i].machine);
      REQUIRE(a[i].start == b[i].start);
    }
  }
}

TEST_CASE("online SynchPack starts the heavy short job first", "[online_synchpack]") {
  // One unit machine; at 0 job 0 (weight 1, two unit tasks) and job 1 (weight 10, one unit
  // task). The LP completes job 1 first: it runs [0, 1), job 0's tasks [1, 2) and [2, 3);
  // sum w C = 10 x 1 + 1 x 3 = 13, the optimum.
  LpInstance in;
  in.capacity = {1.0};
  in.jobs = {UnitJob(1, 0, 2), UnitJob(10, 0, 1)};
  size_t solves = 0;
  const Schedule s = Run(in, OnlineSynchPackOptions{}, &solves);
  REQUIRE(StartOf(s, 1, 0) == 0);
  REQUIRE(WeightedCompletion(in, s) == Approx(13));
  REQUIRE(solves >= 1);
}

TEST_CASE("a job arriving between re-solves waits for the next one to move ahead",
          "[online_synchpack]") {
  // One unit machine; job 0 (weight 1, three unit tasks) at 0, job 1 (weight 100, one unit
  // task) at 0.5. The solve at 0 sees job 0 only. With the next solve at 1, job 1 ranks
  // first there and runs [1, 2); job 0 ends at 4. With the next solve at 10, job 1 is
  // unranked until then and runs after job 0, [3, 4).
  LpInstance in;
  in.capacity = {1.0};
  in.jobs = {UnitJob(1, 0, 3), UnitJob(100, 0.5, 1)};
  OnlineSynchPackOptions o;
  o.first_interval = 1;
  const Schedule soon = Run(in, o);
  REQUIRE(StartOf(soon, 1, 0) == 1);
  REQUIRE(WeightedCompletion(in, soon) == Approx(1 * 4 + 100 * 2));
  o.first_interval = 10;
  const Schedule late = Run(in, o);
  REQUIRE(StartOf(late, 1, 0) == 3);
  REQUIRE(WeightedCompletion(in, late) == Approx(1 * 3 + 100 * 4));
}

TEST_CASE("a machine without local work takes a task deep in a long local queue",
          "[online_synchpack]") {
  // Machine 0 holds six unit tasks of one job (remote penalty 2); machine 1 holds none. With
  // spill 1, at 0 machine 0 starts the first; machine 1 takes the task at position
  // 1 x (2 - 1) x 1 = 1 of the remaining five, remotely (2 s), and again at 2: the job ends
  // at 4, not at the 6 s of one machine.
  LpInstance in;
  in.capacity = {1.0, 1.0};
  LpJob job = UnitJob(1, 0, 6);
  for (LpTask& t : job.tasks) t.remote_penalty = 2;
  in.jobs = {job};
  OnlineSynchPackOptions o;
  o.spill = 1;
  const Schedule s = Run(in, o);
  REQUIRE(CheckSchedule(in, s).ok());
  size_t remote = 0;
  for (const ScheduledTask& e : s) remote += e.machine == 1;
  REQUIRE(remote == 2);
  REQUIRE(WeightedCompletion(in, s) == Approx(4));
}

}  // namespace
}  // namespace locsched
