// Tests MachineFifos (algorithms/core/machine_fifos.h), late binding's per-machine lists,
// against a reference: every (task, stamp, replicas) added, searched from the front for
// the first live one with a replica on the machine. Random adds, removals and reads, so
// the arrival log is dealt at random points and compacted when it grows.
#include "algorithms/core/machine_fifos.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "base/rng.h"

namespace locsched {
namespace {

struct Added {
  TaskId task;
  uint32_t stamp;
  std::vector<MachineId> replicas;
};

TEST_CASE("MachineFifos answers as a front-to-back search of every add", "[machine_fifos]") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    const uint32_t machines = 1 + static_cast<uint32_t>(rng.Below(12));
    const uint32_t tasks = 1 + static_cast<uint32_t>(rng.Below(60));
    Cluster cluster;
    const JobId job = cluster.NewJob(1);
    for (uint32_t i = 0; i < tasks; ++i) cluster.NewTask(job, TaskKind::kMap);  // ids 0..tasks-1
    std::vector<uint32_t> stamps(tasks, 0);
    std::vector<bool> queued(tasks, false);
    std::vector<Added> all;
    MachineFifos fifos(cluster, stamps);
    for (MachineId m = 0; m < machines; ++m) {
      cluster.AddMachine(Machine{});
      fifos.AddMachine(m);
    }
    for (int step = 0; step < 5000; ++step) {
      const auto t = static_cast<TaskId>(rng.Below(tasks));
      const uint64_t op = rng.Below(100);
      if (op < 40 && !queued[t]) {
        std::vector<MachineId> holders;
        const uint64_t k = rng.Below(4);  // 0 to 3 holders
        while (holders.size() < std::min<uint64_t>(k, machines)) {
          const auto m = static_cast<MachineId>(rng.Below(machines));
          if (std::find(holders.begin(), holders.end(), m) == holders.end()) holders.push_back(m);
        }
        cluster.task(t).replicas.Assign(holders);  // new replicas only while not queued
        const uint32_t stamp = ++stamps[t];
        fifos.Add(t, stamp, cluster.task(t).replicas);
        all.push_back(Added{t, stamp, holders});
        queued[t] = true;
      } else if (op < 70 && queued[t]) {
        fifos.Remove(cluster.task(t).replicas);
        ++stamps[t];
        queued[t] = false;
      } else if (op >= 70) {
        const auto m = static_cast<MachineId>(rng.Below(machines));
        TaskId want = kNoId;
        uint32_t count = 0;
        for (const Added& a : all) {
          if (stamps[a.task] != a.stamp) continue;
          const bool local = std::find(a.replicas.begin(), a.replicas.end(), m) != a.replicas.end();
          if (local && want == kNoId) want = a.task;
          count += local;
        }
        INFO("machine " << m);
        REQUIRE(fifos.Front(m) == want);
        REQUIRE(fifos.count(m) == count);
      }
    }
    size_t live = 0;  // live entries in the lists, or one a task in the log
    for (const Added& a : all) live += stamps[a.task] == a.stamp && !a.replicas.empty();
    CHECK(fifos.entries() >= live);
  }
}

// Regression: a backlog queued with no list read (a burst, a daemon restoring its queue)
// sat whole in the arrival log, and the first read dealt it all: 185 ms for a million
// tasks at 10,000 machines. Routing now deals the log in pieces.
TEST_CASE("MachineFifos deals a log that no read drains, in pieces", "[machine_fifos]") {
  constexpr uint32_t kMachines = 5, kTasks = 2000;
  Cluster cluster;
  const JobId job = cluster.NewJob(1);
  std::vector<uint32_t> stamps(kTasks, 0);
  MachineFifos fifos(cluster, stamps);
  for (MachineId m = 0; m < kMachines; ++m) {
    cluster.AddMachine(Machine{});
    fifos.AddMachine(m);
  }
  size_t most_logged = 0;
  for (TaskId t = 0; t < kTasks; ++t) {
    cluster.NewTask(job, TaskKind::kMap);
    cluster.task(t).replicas.Assign(std::vector<MachineId>{t % kMachines, (t + 1) % kMachines});
    fifos.Add(t, ++stamps[t], cluster.task(t).replicas);
    most_logged = std::max(most_logged, fifos.logged());
  }
  CHECK(most_logged <= 4 * kMachines + 16);
  // Every task stays listed, oldest first: machine 1 lists task 0, then task 1.
  CHECK(fifos.Front(1) == 0);
  fifos.Remove(cluster.task(0).replicas);
  ++stamps[0];
  CHECK(fifos.Front(1) == 1);
  CHECK(fifos.count(1) == 2 * kTasks / kMachines - 1);
}

}  // namespace
}  // namespace locsched
