// Tests the simulator's `priority` re-solve (algorithms/sim/sim_lp_planner.h): the LP's order
// reaches the Scheduler and overrides fair and fifo where they disagree with it, the
// replan hook runs every replan_interval slots, and runs stay deterministic per seed.
#include "algorithms/sim/sim_lp_planner.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

// Two machines with one slot each; machine 1, the only replica of every task, is down,
// so every task waits in the common remote queue and machine 0 serves them one at a
// time. Job 0 (weight 1, four tasks) arrives before job 1 (weight 10, one task). Fair
// (no job runs anything when the slot asks, so its tie goes to the oldest) and fifo run
// job 0 to the end first; Smith's rule, and so the LP, runs job 1 first.
struct TwoJobs {
  explicit TwoJobs(IntraQueue intra) : sched(Params(intra)) {
    for (int i = 0; i < 2; ++i) sched.AddMachine(Machine{});
    sched.MachineDown(1);
    const MachineId replica[] = {1};
    const TaskSpec t{.replicas = replica};
    const std::vector<TaskSpec> light(4, t), heavy(1, t);
    light_job = sched.SubmitJob(1, light);
    heavy_job = sched.SubmitJob(10, heavy);
  }
  static PolicyParams Params(IntraQueue intra) {
    PolicyParams p;
    p.kind = PolicyKind::kJsqMaxWeight;
    p.intra = intra;
    return p;
  }
  /// Runs machine 0 until the queue is empty; returns the jobs in the order they finished.
  std::vector<JobId> FinishOrder() {
    std::vector<JobId> done;
    while (const std::optional<Assignment> a = sched.Assign(0)) {
      const Completion c = sched.Finish(a->task);
      if (c.job_done) done.push_back(c.job);
    }
    return done;
  }
  Scheduler sched;
  JobId light_job = kNoId, heavy_job = kNoId;
};

TEST_CASE("fair and fifo finish the older light job first", "[sim_lp_planner]") {
  const IntraQueue intra = GENERATE(IntraQueue::kFair, IntraQueue::kFifo);
  TwoJobs env(intra);
  CHECK(env.FinishOrder() == std::vector<JobId>{env.light_job, env.heavy_job});
}

TEST_CASE("priority without a re-solve falls back to arrival order", "[sim_lp_planner]") {
  TwoJobs env(IntraQueue::kPriority);
  CHECK(env.FinishOrder() == std::vector<JobId>{env.light_job, env.heavy_job});
}

TEST_CASE("the LP's order finishes the heavy short job first", "[sim_lp_planner]") {
  TwoJobs env(IntraQueue::kPriority);
  SimParams p;
  p.policy = TwoJobs::Params(IntraQueue::kPriority);
  SimLpPlanner planner(p, BacklogLpOptions{}, 4);
  const std::vector<uint64_t> started(8, 0);
  planner.Replan(env.sched, 0, started);
  REQUIRE(planner.solves() == 1);
  CHECK(planner.failures() == 0);
  CHECK(env.FinishOrder() == std::vector<JobId>{env.heavy_job, env.light_job});
}

SimParams SmallPriorityRun(uint64_t seed) {
  SimParams p;
  p.machines = 50;
  p.data_machines = 40;
  p.policy.kind = PolicyKind::kJsqMaxWeight;
  p.policy.intra = IntraQueue::kPriority;
  p.load = 27;  // 80% of capacity 34
  p.slots = 400;
  p.seed = seed;
  p.job_size_mean = 10;
  p.weight_max = 10;
  p.replan_interval = 4;
  return p;
}

TEST_CASE("the replan hook runs every replan_interval slots", "[sim_lp_planner]") {
  const SimParams p = SmallPriorityRun(3);
  std::vector<uint64_t> slots;
  Simulate(p, {},
           [&](Scheduler&, uint64_t slot, std::span<const uint64_t>) { slots.push_back(slot); });
  REQUIRE(slots.size() == p.slots / p.replan_interval);
  for (size_t i = 0; i < slots.size(); ++i) CHECK(slots[i] == i * p.replan_interval);
}

TEST_CASE("priority runs are deterministic per seed and differ from fair", "[sim_lp_planner]") {
  auto run = [](const SimParams& p) {
    SimLpPlanner planner(p, BacklogLpOptions{}, 4);
    const SimResult r = Simulate(p, {}, planner.Hook());
    CHECK(planner.solves() > 0);
    CHECK(planner.failures() == 0);
    return r;
  };
  const SimParams p = SmallPriorityRun(5);
  const SimResult a = run(p), b = run(p);
  CHECK(a.weighted_mean_job_delay == b.weighted_mean_job_delay);
  CHECK(a.mean_job_delay == b.mean_job_delay);
  CHECK(a.tasks_done == b.tasks_done);
  CHECK(a.trace == b.trace);
  SimParams fair = p;
  fair.policy.intra = IntraQueue::kFair;
  const SimResult f = Simulate(fair);
  CHECK(f.jobs_arrived == a.jobs_arrived);  // the same workload
  CHECK(f.weighted_mean_job_delay != a.weighted_mean_job_delay);
}

}  // namespace
}  // namespace locsched
