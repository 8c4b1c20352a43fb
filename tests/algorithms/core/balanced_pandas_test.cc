// Tests Balanced-PANDAS (algorithms/core/balanced_pandas.h): routing by weighted workload
// over three levels, serving local before rack-local before remote, and MachineHeap.
#include "algorithms/core/balanced_pandas.h"

#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <vector>

#include "algorithms/core/machine_heap.h"
#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

using Level = BalancedPandas::Level;

std::unique_ptr<Scheduler> MakePandas(const std::vector<uint32_t>& racks) {
  PolicyParams p;
  p.kind = PolicyKind::kBalancedPandas;
  p.alpha = 0.8;
  p.beta = 0.4;
  p.gamma = 0.2;
  auto s = std::make_unique<Scheduler>(p);
  for (uint32_t rack : racks) {
    Machine m;
    m.rack = rack;
    s->AddMachine(m);
  }
  return s;
}

void SubmitOne(Scheduler& s, std::vector<MachineId> replicas) {
  TaskSpec spec;
  spec.replicas = replicas;
  s.SubmitJob(1, std::span<const TaskSpec>(&spec, 1));
}

TEST_CASE("Balanced-PANDAS routes to the least weighted workload over the task's rate",
          "[pandas]") {
  auto owner = MakePandas({0, 0});  // one rack: two levels
  Scheduler& s = *owner;
  auto& pandas = dynamic_cast<BalancedPandas&>(s.policy());
  CHECK_FALSE(pandas.racks_in_use());
  SubmitOne(s, {0});  // every queue empty: ties go local
  CHECK(pandas.QueueLength(0, Level::kLocal) == 1);
  // Machine 0: W = 1/0.8, cost 1.25/0.8; machine 1: W = 0, cost 0 at the remote rate.
  SubmitOne(s, {0});
  CHECK(pandas.QueueLength(1, Level::kRemote) == 1);
  CHECK(pandas.Workload(0) == Approx(1 / 0.8));
  CHECK(pandas.Workload(1) == Approx(1 / 0.2));
  // Now machine 1 costs 5 / 0.2 = 25 remote, machine 0 costs 1.25 / 0.8 local.
  SubmitOne(s, {0});
  CHECK(pandas.QueueLength(0, Level::kLocal) == 2);
}

TEST_CASE("Balanced-PANDAS prefers a rack-local machine over an off-rack one", "[pandas]") {
  auto owner = MakePandas({0, 0, 1, 1});
  Scheduler& s = *owner;
  auto& pandas = dynamic_cast<BalancedPandas&>(s.policy());
  REQUIRE(pandas.racks_in_use());
  SubmitOne(s, {0});
  SubmitOne(s, {0});  // machine 0 has W 1.25 > 0; machine 1 (its rack) and 2, 3 are empty
  CHECK(pandas.QueueLength(1, Level::kRack) == 1);
  CHECK(pandas.QueueLength(2, Level::kRemote) + pandas.QueueLength(3, Level::kRemote) == 0);
}

TEST_CASE("Balanced-PANDAS serves local, then rack-local, then remote", "[pandas]") {
  auto owner = MakePandas({0, 0, 1, 1});
  Scheduler& s = *owner;
  // Fill machine 1's three queues through snapshot placement (queue = machine * 3 + level):
  // a remote task, a rack-local one, then a local one.
  auto submit_to = [&](std::vector<MachineId> replicas, uint32_t queue) {
    TaskSpec spec;
    spec.replicas = replicas;
    spec.queue = queue;
    return s.cluster().job(s.SubmitJob(1, std::span<const TaskSpec>(&spec, 1))).tasks[0];
  };
  const TaskId remote = submit_to({2}, 1 * 3 + Level::kRemote);
  const TaskId rack = submit_to({0}, 1 * 3 + Level::kRack);
  const TaskId local = submit_to({1}, 1 * 3 + Level::kLocal);
  std::vector<TaskId> order;
  for (int i = 0; i < 3; ++i) {
    const auto a = s.Assign(1);
    REQUIRE(a);
    order.push_back(a->task);
    s.Finish(a->task);
  }
  CHECK(order == std::vector<TaskId>{local, rack, remote});
}

TEST_CASE("MachineHeap keeps the least key on top under random re-keys", "[pandas]") {
  MachineHeap heap;
  std::vector<double> key(50, 0);
  std::vector<bool> in(50, false);
  std::mt19937 rng(3);
  for (int step = 0; step < 5000; ++step) {
    const MachineId m = rng() % 50;
    if (rng() % 4 == 0) {
      heap.Erase(m);
      in[m] = false;
    } else {
      key[m] = static_cast<double>(rng() % 20);
      heap.Set(m, key[m]);
      in[m] = true;
    }
    MachineId best = kNoId;
    for (MachineId i = 0; i < 50; ++i)
      if (in[i] && (best == kNoId || key[i] < key[best])) best = i;
    REQUIRE(heap.Top() == best);
  }
}

}  // namespace
}  // namespace locsched
