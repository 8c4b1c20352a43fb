// Tests Cluster (algorithms/core/cluster.h): dense id allocation, recycling of job and
// task ids after FreeJob, the generation bump on reuse, and maps_left counting.
#include "algorithms/core/cluster.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace locsched {
namespace {

TEST_CASE("Cluster hands out dense machine, job and task ids", "[cluster]") {
  Cluster c;
  for (uint32_t i = 0; i < 4; ++i) {
    Machine m;
    m.slots = i + 1;
    REQUIRE(c.AddMachine(m) == i);
  }
  CHECK(c.num_machines() == 4);
  CHECK(c.machine(3).slots == 4);

  const JobId a = c.NewJob(2.5);
  const JobId b = c.NewJob(1.0);
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(c.job_capacity() == 2);
  CHECK(c.live_jobs() == 2);
  CHECK(c.job(a).alive);
  CHECK(c.job(a).weight == 2.5);
  CHECK(c.job(a).seq < c.job(b).seq);

  const TaskId t0 = c.NewTask(a, TaskKind::kMap);
  const TaskId t1 = c.NewTask(b, TaskKind::kMap);
  const TaskId t2 = c.NewTask(a, TaskKind::kReduce);
  CHECK(t0 == 0);
  CHECK(t1 == 1);
  CHECK(t2 == 2);
  CHECK(c.task_capacity() == 3);
  CHECK(c.job(a).tasks == std::vector<TaskId>{t0, t2});
  CHECK(c.job(b).tasks == std::vector<TaskId>{t1});
  CHECK(c.task(t2).job == a);
  CHECK(c.task(t2).kind == TaskKind::kReduce);
  CHECK(c.task(t2).state == TaskState::kBlocked);
}

TEST_CASE("Cluster counts maps_left over maps only, and Finished over all tasks", "[cluster]") {
  Cluster c;
  const JobId j = c.NewJob(1);
  for (int i = 0; i < 3; ++i) c.NewTask(j, TaskKind::kMap);
  for (int i = 0; i < 2; ++i) c.NewTask(j, TaskKind::kReduce);
  CHECK(c.job(j).maps_left == 3);
  CHECK(c.job(j).tasks.size() == 5);
  CHECK_FALSE(c.job(j).Finished());
  c.job(j).done = 4;
  CHECK_FALSE(c.job(j).Finished());
  c.job(j).done = 5;
  CHECK(c.job(j).Finished());

  const JobId reduces_only = c.NewJob(1);
  c.NewTask(reduces_only, TaskKind::kReduce);
  CHECK(c.job(reduces_only).maps_left == 0);
}

TEST_CASE("Cluster recycles a freed job's id and resets its record", "[cluster]") {
  Cluster c;
  const JobId a = c.NewJob(1);
  const JobId b = c.NewJob(1);
  c.NewTask(a, TaskKind::kMap);
  Job& ja = c.job(a);
  ja.running = 3;
  ja.queued = 2;
  ja.done = 1;
  ja.wait_since = 7;
  const uint64_t old_seq = ja.seq;

  c.FreeJob(a);
  CHECK_FALSE(c.job(a).alive);
  CHECK(c.job(a).tasks.empty());
  CHECK(c.live_jobs() == 1);

  const JobId again = c.NewJob(4);
  CHECK(again == a);  // the freed id comes back before the table grows
  CHECK(c.job_capacity() == 2);
  CHECK(c.live_jobs() == 2);
  const Job& j = c.job(again);
  CHECK(j.alive);
  CHECK(j.weight == 4);
  CHECK(j.running == 0);
  CHECK(j.queued == 0);
  CHECK(j.done == 0);
  CHECK(j.wait_since == 0);
  CHECK(j.maps_left == 0);
  CHECK(j.tasks.empty());
  CHECK(j.seq > old_seq);
  CHECK(j.seq > c.job(b).seq);  // seq keeps growing: a recycled id is still the newest job

  const JobId fresh = c.NewJob(1);
  CHECK(fresh == 2);  // nothing left to recycle: the table grows
}

TEST_CASE("Cluster recycles task ids after FreeJob and bumps their generation", "[cluster]") {
  Cluster c;
  const JobId a = c.NewJob(1);
  std::vector<TaskId> old_tasks;
  for (int i = 0; i < 3; ++i) old_tasks.push_back(c.NewTask(a, TaskKind::kMap));
  // Dirty every field NewTask must reset.
  std::vector<uint32_t> gen_before;
  for (TaskId t : old_tasks) {
    Task& task = c.task(t);
    task.state = TaskState::kRunning;
    task.ran_local = true;
    task.machine = 5;
    task.replicas.Assign(std::vector<MachineId>{1, 2, 3});
    task.size = 10;
    task.duration = 20;
    task.attempts = 4;
    task.queue = 9;
    task.prev = 8;
    task.next = 7;
    gen_before.push_back(task.generation);
  }

  c.FreeJob(a);
  for (size_t i = 0; i < old_tasks.size(); ++i) {
    CHECK(c.task(old_tasks[i]).job == kNoId);
    CHECK(c.task(old_tasks[i]).generation > gen_before[i]);  // stale references die at once
  }

  const JobId b = c.NewJob(1);
  std::vector<TaskId> new_tasks;
  for (int i = 0; i < 3; ++i) new_tasks.push_back(c.NewTask(b, TaskKind::kReduce));
  CHECK(c.task_capacity() == 3);  // no growth: all three ids were reused
  CHECK(std::set<TaskId>(new_tasks.begin(), new_tasks.end()) ==
        std::set<TaskId>(old_tasks.begin(), old_tasks.end()));
  for (TaskId t : new_tasks) {
    const Task& task = c.task(t);
    const size_t i =
        static_cast<size_t>(std::find(old_tasks.begin(), old_tasks.end(), t) - old_tasks.begin());
    CHECK(task.generation > gen_before[i] + 1);  // bumped at free and again at reuse
    CHECK(task.job == b);
    CHECK(task.kind == TaskKind::kReduce);
    CHECK(task.state == TaskState::kBlocked);
    CHECK_FALSE(task.ran_local);
    CHECK(task.machine == kNoId);
    CHECK(task.replicas.empty());
    CHECK(task.size == 0);
    CHECK(task.duration == 0);
    CHECK(task.attempts == 0);
    CHECK(task.queue == kNoId);
    CHECK(task.prev == kNoId);
    CHECK(task.next == kNoId);
  }
  CHECK(c.job(b).tasks == new_tasks);
  CHECK(c.job(b).maps_left == 0);
}

TEST_CASE("Cluster never hands out a live id twice (random alloc/free)", "[cluster]") {
  Cluster c;
  std::mt19937_64 rng(12345);
  std::vector<JobId> live;
  std::set<JobId> live_set;
  std::set<TaskId> live_tasks;
  size_t peak_jobs = 0, peak_tasks = 0;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const JobId j = c.NewJob(1);
      REQUIRE(c.job(j).alive);
      REQUIRE(live_set.insert(j).second);  // not held by another live job
      const uint32_t n = static_cast<uint32_t>(rng() % 5);
      uint32_t maps = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const bool map = rng() % 2 == 0;
        maps += map;
        const TaskId t = c.NewTask(j, map ? TaskKind::kMap : TaskKind::kReduce);
        REQUIRE(live_tasks.insert(t).second);  // not held by any live job
      }
      REQUIRE(c.job(j).maps_left == maps);
      live.push_back(j);
    } else {
      const size_t i = rng() % live.size();
      for (TaskId t : c.job(live[i]).tasks) live_tasks.erase(t);
      c.FreeJob(live[i]);
      live_set.erase(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
    peak_jobs = std::max(peak_jobs, live.size());
    peak_tasks = std::max(peak_tasks, live_tasks.size());
    REQUIRE(c.live_jobs() == live.size());
  }
  // Recycling keeps the tables at the peak live population.
  CHECK(c.job_capacity() == peak_jobs);
  CHECK(c.task_capacity() == peak_tasks);
  for (JobId j : live)
    for (TaskId t : c.job(j).tasks) CHECK(c.task(t).job == j);
}

}  // namespace
}  // namespace locsched
