// Tests every policy of the name table (algorithms/core/policy.h) through the Scheduler:
// randomized runs in which no task is lost or run twice, and the job-order names.
#include "algorithms/core/policy.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

TEST_CASE("Every policy name parses back to itself", "[policy]") {
  REQUIRE(PolicyNames().size() >= 6);
  for (std::string_view name : PolicyNames()) {
    const auto kind = ParsePolicyKind(name);
    REQUIRE(kind);
    CHECK(PolicyKindName(*kind) == name);
  }
  for (std::string_view name : {"fair", "srpt", "smith", "lp", "fifo"}) {
    const auto order = ParseJobOrder(name);
    REQUIRE(order);
    CHECK(JobOrderName(*order) == name);
  }
  CHECK_FALSE(ParseJobOrder("lifo"));
}

// Random submits, starts, finishes, failures, cancels and machine outages; at the end
// the cluster drains. Every start must be of a queued task, and every task must finish
// exactly once unless its job was cancelled.
TEST_CASE("No policy loses a task or runs one twice", "[policy]") {
  const std::string name(GENERATE(from_range(PolicyNames())));
  const int order = GENERATE(0, 1, 2, 3);
  const bool racks = GENERATE(false, true);
  CAPTURE(name, order, racks);
  PolicyParams p;
  p.kind = *ParsePolicyKind(name);
  p.job_order = static_cast<JobOrder>(order);
  p.job_aging = 5;
  p.delay_wait = 3;
  Scheduler s(p);
  constexpr uint32_t kMachines = 12;
  for (uint32_t m = 0; m < kMachines; ++m) {
    Machine machine;
    machine.slots = 1 + m % 3;
    machine.rack = racks ? m / 4 : 0;
    s.AddMachine(machine);
  }
  std::mt19937 rng(42 + order);
  std::vector<TaskId> running;
  std::set<std::pair<JobId, uint64_t>> cancelled;  // (job, seq)
  std::vector<std::vector<MachineId>> replicas;
  uint64_t submitted = 0, finished = 0, cancelled_tasks = 0;
  double now = 0;
  auto start_all = [&] {
    for (MachineId m = 0; m < kMachines; ++m) {
      while (auto a = s.Assign(m)) {
        const Task& task = s.cluster().task(a->task);
        REQUIRE(task.state == TaskState::kRunning);
        REQUIRE(task.machine == m);
        for (TaskId r : running) REQUIRE(r != a->task);
        running.push_back(a->task);
      }
    }
  };
  for (int step = 0; step < 3000; ++step) {
    now += 0.5;
    s.SetNow(now);
    const int action = static_cast<int>(rng() % 10);
    if (action < 3) {
      const uint32_t size = 1 + rng() % 6;
      std::vector<std::vector<MachineId>> sets(size);
      std::vector<TaskSpec> specs(size);
      for (uint32_t i = 0; i < size; ++i) {
        const uint32_t k = rng() % 3;  // 0..2 replicas
        for (uint32_t r = 0; r < k; ++r) {
          const MachineId m = rng() % kMachines;
          if (std::find(sets[i].begin(), sets[i].end(), m) == sets[i].end()) sets[i].push_back(m);
        }
        specs[i].replicas = sets[i];
        specs[i].kind = i > 0 && rng() % 4 == 0 ? TaskKind::kReduce : TaskKind::kMap;
      }
      if (specs[0].kind == TaskKind::kReduce) specs[0].kind = TaskKind::kMap;
      s.SubmitJob(1 + rng() % 3, specs);
      submitted += size;
    } else if (action < 7 && !running.empty()) {
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
    } else if (action == 7 && s.cluster().live_jobs() > 0 && rng() % 5 == 0) {
      for (JobId j = 0; j < s.cluster().job_capacity(); ++j) {
        const Job& job = s.cluster().job(j);
        if (!job.alive) continue;
        cancelled_tasks += job.tasks.size() - job.done;
        for (TaskId t : job.tasks) std::erase(running, t);
        s.CancelJob(j);
        break;
      }
    } else if (action == 8) {
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
  // Drain: machines come back, every running task finishes, free slots keep asking.
  for (MachineId m = 0; m < kMachines; ++m)
    if (!s.cluster().machine(m).up) s.MachineUp(m);
  for (int round = 0; round < 100000 && (s.queued() + s.running() + s.blocked()) > 0; ++round) {
    now += 1000;  // past every wait: a policy may run any task anywhere
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
  CHECK(s.blocked() == 0);
  CHECK(s.cluster().live_jobs() == 0);
  CHECK(finished + cancelled_tasks == submitted);
}

}  // namespace
}  // namespace locsched
