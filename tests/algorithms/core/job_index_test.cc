// Tests JobIndex (algorithms/core/job_index.h) against a straightforward reference:
// one list of every (task, job, enqueue count) in the order tasks were added, searched
// from the front. Random adds, picks, requeues, withdrawals and job ends; the index
// builds a job's machine lists on its first FindLocal, at random points in between, or
// (SmallJobs::kScan) reads a small job's list. Both ways are checked.
#include "algorithms/core/job_index.h"

#include <catch2/catch.hpp>

#include <vector>

#include "base/rng.h"

namespace locsched {
namespace {

// What the index should answer, computed the slow way.
class Reference {
 public:
  explicit Reference(const Cluster& cluster) : cluster_(cluster) {}

  void Add(TaskId t) {
    if (enqueued_.size() <= t) enqueued_.resize(t + 1, 0);
    entries_.push_back(Entry{t, cluster_.task(t).job, ++enqueued_[t]});
  }
  void DropJob(JobId j) {
    std::erase_if(entries_, [&](const Entry& e) { return e.job == j; });
  }
  // m == kNoId: any machine.
  TaskId Find(JobId j, MachineId m) const {
    for (const Entry& e : entries_) {
      const Task& task = cluster_.task(e.task);
      if (e.job != j || task.job != j || task.state != TaskState::kQueued) continue;
      if (enqueued_[e.task] != e.count) continue;  // added again since
      if (m == kNoId || task.IsLocalTo(m)) return e.task;
    }
    return kNoId;
  }

 private:
  struct Entry {
    TaskId task;
    JobId job;
    uint32_t count;
  };
  const Cluster& cluster_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> enqueued_;  // by task id
};

class Fixture {
 public:
  // Few machines and large jobs give long lists (their read prefix dropped as the front
  // moves) and tables by machine; many machines and small jobs give maps.
  Fixture(uint64_t seed, uint32_t machines = 12, uint32_t max_tasks = 8,
          JobIndex::SmallJobs small = JobIndex::SmallJobs::kBuildLists)
      : rng_(seed),
        machines_(machines),
        max_tasks_(max_tasks),
        index_(cluster_, small),
        ref_(cluster_) {
    for (uint32_t m = 0; m < machines_; ++m) cluster_.AddMachine(Machine{});
  }

  void Step() {
    const uint64_t op = rng_.Below(100);
    if (op < 10 || jobs_.empty()) return NewJob();
    const JobId j = jobs_[rng_.Below(jobs_.size())];
    if (op < 45) return Query(j);
    const TaskId t = cluster_.job(j).tasks[rng_.Below(cluster_.job(j).tasks.size())];
    Task& task = cluster_.task(t);
    if (op < 70 && task.state == TaskState::kQueued) {
      task.state = TaskState::kRunning;  // picked
      index_.Remove(t);
    } else if (op < 80 && task.state == TaskState::kQueued) {
      task.state = TaskState::kBlocked;  // withdrawn
      index_.Remove(t);
    } else if (op < 95 && task.state != TaskState::kQueued) {
      Enqueue(t);  // requeued
    } else if (op >= 95) {
      EndJob(j);
    }
  }

  void CheckAll() {
    for (JobId j : jobs_) Query(j);
  }

 private:
  void NewJob() {
    const JobId j = cluster_.NewJob(1);
    const uint64_t tasks = 1 + rng_.Below(max_tasks_);
    for (uint64_t i = 0; i < tasks; ++i) {
      const TaskId t = cluster_.NewTask(j, TaskKind::kMap);
      std::vector<MachineId> replicas;
      const uint64_t k = rng_.Below(4);  // 0 to 3 holders
      while (replicas.size() < k) {
        const auto m = static_cast<MachineId>(rng_.Below(machines_));
        if (std::find(replicas.begin(), replicas.end(), m) == replicas.end()) replicas.push_back(m);
      }
      cluster_.task(t).replicas.Assign(replicas);
      Enqueue(t);
    }
    jobs_.push_back(j);
  }

  void Enqueue(TaskId t) {
    Task& task = cluster_.task(t);
    task.state = TaskState::kQueued;
    ++task.generation;
    index_.Add(t);
    ref_.Add(t);
  }

  void EndJob(JobId j) {
    for (TaskId t : cluster_.job(j).tasks)
      if (cluster_.task(t).state == TaskState::kQueued) index_.Remove(t);
    cluster_.FreeJob(j);
    index_.DropJob(j);
    ref_.DropJob(j);
    std::erase(jobs_, j);
  }

  void Query(JobId j) {
    INFO("job " << j);
    CHECK(index_.FindAny(j) == ref_.Find(j, kNoId));
    const auto m = static_cast<MachineId>(rng_.Below(machines_));
    INFO("machine " << m);
    CHECK(index_.FindLocal(j, m) == ref_.Find(j, m));
  }

  Rng rng_;
  uint32_t machines_, max_tasks_;
  Cluster cluster_;
  JobIndex index_;
  Reference ref_;
  std::vector<JobId> jobs_;
};

constexpr JobIndex::SmallJobs kModes[] = {JobIndex::SmallJobs::kBuildLists,
                                          JobIndex::SmallJobs::kScan};

TEST_CASE("JobIndex answers as a front-to-back search of every add", "[job_index]") {
  for (const JobIndex::SmallJobs small : kModes) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      INFO("seed " << seed << ", scan " << (small == JobIndex::SmallJobs::kScan));
      Fixture f(seed, 12, 8, small);
      for (int i = 0; i < 3000; ++i) f.Step();
      f.CheckAll();
    }
  }
}

// With kScan, jobs of up to 400 tasks cross the scan limit (256 entries, live or
// stale) both ways while they are asked about: they are scanned, then given lists.
TEST_CASE("JobIndex answers the same with long lists, tables and maps", "[job_index]") {
  for (const JobIndex::SmallJobs small : kModes) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      INFO("seed " << seed << ", scan " << (small == JobIndex::SmallJobs::kScan));
      Fixture long_lists(seed, 4, 80, small);
      Fixture maps(seed, 400, 6, small);
      Fixture large_jobs(seed, 40, 400, small);
      for (int i = 0; i < 3000; ++i) {
        long_lists.Step();
        maps.Step();
        large_jobs.Step();
      }
      long_lists.CheckAll();
      maps.CheckAll();
      large_jobs.CheckAll();
    }
  }
}

TEST_CASE("JobIndex builds a job's machine lists only when asked", "[job_index]") {
  Cluster cluster;
  for (int m = 0; m < 4; ++m) cluster.AddMachine(Machine{});
  JobIndex index(cluster);
  const JobId j = cluster.NewJob(1);
  std::vector<TaskId> tasks;
  for (MachineId m : {2u, 1u, 2u}) {
    const TaskId t = cluster.NewTask(j, TaskKind::kMap);
    const std::vector<MachineId> replicas{m, 3};
    cluster.task(t).replicas.Assign(replicas);
    cluster.task(t).state = TaskState::kQueued;
    index.Add(t);
    tasks.push_back(t);
  }
  CHECK(index.entries() == 3);  // one entry a task until then
  CHECK_FALSE(index.Indexed(j));
  CHECK(index.FindAny(j) == tasks[0]);
  index.Remove(tasks[0]);
  CHECK(index.FindLocal(j, 2) == tasks[2]);
  CHECK(index.Indexed(j));
  CHECK(index.FindLocal(j, 3) == tasks[1]);
  CHECK(index.FindLocal(j, 0) == kNoId);
  index.DropJob(j);
  CHECK(index.entries() == 0);
  CHECK_FALSE(index.Indexed(j));
}

TEST_CASE("JobIndex with kScan reads a small job's list and indexes a large one", "[job_index]") {
  Cluster cluster;
  for (int m = 0; m < 4; ++m) cluster.AddMachine(Machine{});
  JobIndex index(cluster, JobIndex::SmallJobs::kScan);
  const auto add_job = [&](uint32_t tasks) {
    const JobId j = cluster.NewJob(1);
    for (uint32_t i = 0; i < tasks; ++i) {
      const TaskId t = cluster.NewTask(j, TaskKind::kMap);
      // Task i is held by machine i % 3 and, from the third on, by machine 3 too.
      std::vector<MachineId> replicas{i % 3};
      if (i >= 2) replicas.push_back(3);
      cluster.task(t).replicas.Assign(replicas);
      cluster.task(t).state = TaskState::kQueued;
      index.Add(t);
    }
    return j;
  };
  const JobId small = add_job(10);
  const std::vector<TaskId>& tasks = cluster.job(small).tasks;
  index.Remove(tasks[1]);
  CHECK(index.FindLocal(small, 1) == tasks[4]);  // tasks[1] left the queue
  CHECK(index.FindLocal(small, 3) == tasks[2]);
  CHECK(index.FindLocal(small, 0) == tasks[0]);
  CHECK_FALSE(index.Indexed(small));
  CHECK(index.entries() == 10);  // one entry a task
  const JobId large = add_job(300);
  CHECK(index.FindLocal(large, 2) == cluster.job(large).tasks[2]);
  CHECK(index.Indexed(large));
}

TEST_CASE("JobIndex with kScan finds tasks of more than three holders", "[job_index]") {
  Cluster cluster;
  for (int m = 0; m < 6; ++m) cluster.AddMachine(Machine{});
  JobIndex index(cluster, JobIndex::SmallJobs::kScan);
  const JobId j = cluster.NewJob(1);
  const TaskId few = cluster.NewTask(j, TaskKind::kMap), many = cluster.NewTask(j, TaskKind::kMap);
  const std::vector<MachineId> few_holders{0, 1}, many_holders{1, 2, 3, 4, 5};
  cluster.task(few).replicas.Assign(few_holders);
  cluster.task(many).replicas.Assign(many_holders);
  index.Add(few);
  index.Add(many);
  CHECK(index.FindLocal(j, 1) == few);
  CHECK(index.FindLocal(j, 5) == many);
  CHECK(index.FindLocal(j, 0) == few);
  index.Remove(few);
  CHECK(index.FindLocal(j, 1) == many);
  CHECK(index.FindLocal(j, 0) == kNoId);
}

}  // namespace
}  // namespace locsched
