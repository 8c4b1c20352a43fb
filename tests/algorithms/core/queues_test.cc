// Tests LocalityQueues (algorithms/core/queues.h): O(1) lengths and job counts against a
// naive model, per-job FIFO, the fair/fifo/priority intra-queue policies, and DrainQueue.
#include "algorithms/core/queues.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

namespace locsched {
namespace {

constexpr uint32_t kR = LocalityQueues::kRemote;

// A cluster with `machines` local queues and `jobs` jobs (ids 0.., seq increasing).
struct Env {
  explicit Env(IntraQueue intra, uint32_t machines = 3, uint32_t jobs = 0)
      : queues(cluster, intra) {
    for (uint32_t m = 0; m < machines; ++m) {
      cluster.AddMachine(Machine{});
      queues.AddMachine();
    }
    for (uint32_t j = 0; j < jobs; ++j) cluster.NewJob(1);
  }
  // A new task of job j, pushed to `queue`.
  TaskId Push(JobId j, uint32_t queue) {
    const TaskId t = cluster.NewTask(j, TaskKind::kMap);
    queues.Push(t, queue);
    return t;
  }
  // Sets job j's running count, telling the queues as the policy does on every change.
  void SetRunning(JobId j, uint32_t running) {
    cluster.job(j).running = running;
    queues.SetRunning(j, running, cluster.job(j).seq);
  }
  Cluster cluster;
  LocalityQueues queues;
};

// The naive reference: per queue, per job, a FIFO of task ids.
class QueueModel {
 public:
  void Push(TaskId t, JobId j, uint32_t queue) {
    queues_[queue][j].push_back(t);
    where_[t] = queue;
    ++lengths_[queue];
  }
  void Remove(TaskId t, JobId j) {
    const uint32_t queue = where_.at(t);
    auto& fifo = queues_[queue][j];
    fifo.erase(std::find(fifo.begin(), fifo.end(), t));
    if (fifo.empty()) queues_[queue].erase(j);
    where_.erase(t);
    --lengths_[queue];
  }
  uint32_t Length(uint32_t queue) const {
    auto it = lengths_.find(queue);
    return it == lengths_.end() ? 0 : it->second;
  }
  uint32_t JobCount(uint32_t queue) const {
    auto it = queues_.find(queue);
    return it == queues_.end() ? 0 : static_cast<uint32_t>(it->second.size());
  }
  // The job the policy should serve in `queue`, kNoId if empty.
  JobId Best(uint32_t queue, const Cluster& c, IntraQueue intra,
             const std::vector<uint32_t>& ranks) const {
    auto it = queues_.find(queue);
    if (it == queues_.end() || it->second.empty()) return kNoId;
    JobId best = kNoId;
    std::tuple<uint64_t, uint64_t> best_key{};
    for (const auto& entry : it->second) {
      const JobId j = entry.first;
      const Job& job = c.job(j);
      uint64_t primary = 0;
      if (intra == IntraQueue::kFair) primary = job.running;
      if (intra == IntraQueue::kPriority) primary = j < ranks.size() ? ranks[j] : UINT32_MAX;
      const std::tuple<uint64_t, uint64_t> key{primary, job.seq};
      if (best == kNoId || key < best_key) {
        best = j;
        best_key = key;
      }
    }
    return best;
  }
  TaskId Front(uint32_t queue, JobId j) const { return queues_.at(queue).at(j).front(); }
  // Every task of `queue`, per job in FIFO order.
  std::map<JobId, std::deque<TaskId>> Take(uint32_t queue) {
    auto out = std::move(queues_[queue]);
    queues_.erase(queue);
    lengths_.erase(queue);
    for (const auto& entry : out)
      for (TaskId t : entry.second) where_.erase(t);
    return out;
  }
  const std::map<TaskId, uint32_t>& where() const { return where_; }

 private:
  std::map<uint32_t, std::map<JobId, std::deque<TaskId>>> queues_;
  std::map<TaskId, uint32_t> where_;
  std::map<uint32_t, uint32_t> lengths_;
};

// Pops every task of `queue` and returns the job of each pop, in order.
std::vector<JobId> PopAllJobs(Env& env, uint32_t queue) {
  std::vector<JobId> jobs;
  for (TaskId t = env.queues.PopBest(queue).task; t != kNoId; t = env.queues.PopBest(queue).task)
    jobs.push_back(env.cluster.task(t).job);
  return jobs;
}

TEST_CASE("LocalityQueues: empty queues", "[queues]") {
  Env env(IntraQueue::kFair, 2);
  CHECK(env.queues.num_local() == 2);
  for (uint32_t q : {0u, 1u, kR}) {
    CHECK(env.queues.Length(q) == 0);
    CHECK(env.queues.JobCount(q) == 0);
    CHECK(env.queues.BestJob(q) == kNoId);
    CHECK(env.queues.PopBest(q).task == kNoId);
    CHECK(env.queues.DrainQueue(q).empty());
  }
}

TEST_CASE("LocalityQueues keeps per-job FIFO order inside a subqueue", "[queues]") {
  Env env(IntraQueue::kFifo, 2, 1);
  std::vector<TaskId> tasks;
  for (int i = 0; i < 6; ++i) tasks.push_back(env.Push(0, 1));
  const TaskId other_queue = env.Push(0, kR);  // same job, another queue: its own subqueue
  CHECK(env.queues.Length(1) == 6);
  CHECK(env.queues.JobCount(1) == 1);
  CHECK(env.queues.Length(kR) == 1);

  env.queues.Remove(tasks[2]);  // middle
  env.queues.Remove(tasks[0]);  // head
  env.queues.Remove(tasks[5]);  // tail
  CHECK(env.queues.Length(1) == 3);
  CHECK(env.cluster.task(tasks[2]).queue == kNoId);
  const TaskId appended = env.Push(0, 1);
  std::vector<TaskId> popped;
  for (TaskId t = env.queues.PopBest(1).task; t != kNoId; t = env.queues.PopBest(1).task)
    popped.push_back(t);
  CHECK(popped == std::vector<TaskId>{tasks[1], tasks[3], tasks[4], appended});
  CHECK(env.queues.JobCount(1) == 0);
  CHECK(env.queues.PopBest(kR).task == other_queue);
}

TEST_CASE("LocalityQueues fair: fewest running tasks first, ties by oldest job", "[queues]") {
  Env env(IntraQueue::kFair, 1, 3);  // jobs 0, 1, 2 in arrival order
  for (JobId j : {2u, 0u, 1u}) {
    env.Push(j, 0);
    env.Push(j, 0);
  }
  env.SetRunning(0, 2);
  env.SetRunning(1, 1);
  env.SetRunning(2, 1);
  CHECK(env.queues.BestJob(0) == 1);  // 1 and 2 tie on running; 1 is older

  // Running counts are read live: no notification is needed.
  env.SetRunning(1, 3);
  CHECK(env.queues.BestJob(0) == 2);
  env.SetRunning(0, 0);
  CHECK(env.queues.BestJob(0) == 0);
  const TaskId t = env.queues.PopBest(0).task;
  CHECK(env.cluster.task(t).job == 0);
  env.SetRunning(0, 1);  // as the scheduler would after starting it
  env.SetRunning(2, 1);
  CHECK(env.queues.BestJob(0) == 0);  // 0 and 2 tie at 1 running; 0 is older
}

TEST_CASE("LocalityQueues fair: a running count past 2^24 still ranks after smaller ones",
          "[queues]") {
  Env env(IntraQueue::kFair, 1, 2);
  env.Push(0, 0);
  env.Push(1, 0);
  env.SetRunning(0, 1u << 25);  // saturates inside the fair key
  env.SetRunning(1, (1u << 24) - 2);
  CHECK(env.queues.BestJob(0) == 1);
  env.SetRunning(1, 1u << 30);  // both saturate: the older job wins the tie
  CHECK(env.queues.BestJob(0) == 0);
}

TEST_CASE("LocalityQueues fair regression: a recycled job id starts from its new job's count",
          "[queues]") {
  // The fair keys are a dense mirror by job id; a job that reuses a freed id
  // must not inherit the old job's running count before the policy reports it.
  Env env(IntraQueue::kFair, 1, 2);
  const TaskId old_task = env.Push(0, 0);
  env.Push(1, 0);
  env.SetRunning(0, 5);
  env.SetRunning(1, 1);
  env.queues.Remove(old_task);
  env.cluster.FreeJob(0);
  REQUIRE(env.cluster.NewJob(1) == 0);  // the id comes back, running 0, newest seq
  env.Push(0, 0);
  CHECK(env.queues.BestJob(0) == 0);
}

TEST_CASE("LocalityQueues: an older job's task finds its subqueue after newer jobs entered",
          "[queues]") {
  // Push skips the job search for a job newer than all the queue ever held;
  // an older job must still join its existing subqueue, not open a second one.
  const IntraQueue intra = GENERATE(IntraQueue::kFair, IntraQueue::kFifo);
  Env env(intra, 1, 3);
  const TaskId a1 = env.Push(0, 0);
  env.Push(2, 0);
  env.Push(1, 0);
  const TaskId a2 = env.Push(0, 0);
  CHECK(env.queues.JobCount(0) == 3);
  CHECK(env.queues.Length(0) == 4);
  CHECK(env.queues.BestJob(0) == 0);  // oldest, all at 0 running
  CHECK(env.queues.PopBest(0).task == a1);
  CHECK(env.queues.PopBest(0).task == a2);
  CHECK(env.queues.JobCount(0) == 2);
}

TEST_CASE("LocalityQueues fifo: the oldest job first, whatever it runs", "[queues]") {
  Env env(IntraQueue::kFifo, 1, 4);
  for (JobId j : {3u, 1u, 2u}) env.Push(j, 0);
  env.SetRunning(1, 100);
  env.SetRunning(3, 0);
  CHECK(env.queues.BestJob(0) == 1);
  CHECK(PopAllJobs(env, 0) == std::vector<JobId>{1, 2, 3});
}

TEST_CASE("LocalityQueues priority: smallest rank first, ties by oldest, unranked last",
          "[queues]") {
  Env env(IntraQueue::kPriority, 1, 5);
  for (JobId j = 0; j < 5; ++j) env.Push(j, kR);
  // Job 4 has no entry (the vector is shorter): it ranks last.
  env.queues.SetPriorityRanks({7, 2, 2, 0});
  CHECK(env.queues.BestJob(kR) == 3);
  CHECK(PopAllJobs(env, kR) == std::vector<JobId>{3, 1, 2, 0, 4});

  // New ranks re-order subqueues already queued.
  for (JobId j = 0; j < 5; ++j) env.Push(j, kR);
  env.queues.SetPriorityRanks({1, 5, 0, 9, 3});
  CHECK(PopAllJobs(env, kR) == std::vector<JobId>{2, 0, 4, 1, 3});
}

TEST_CASE("LocalityQueues priority ranks with seqs ignore a job that reuses an id", "[queues]") {
  Env env(IntraQueue::kPriority, 1, 3);
  std::vector<uint64_t> seqs;
  for (JobId j = 0; j < 3; ++j) seqs.push_back(env.cluster.job(j).seq);
  env.queues.SetPriorityRanks({2, 0, 1}, seqs);
  env.cluster.FreeJob(1);  // job 1 leaves; its id is handed to the next arrival
  const JobId reused = env.cluster.NewJob(1);
  REQUIRE(reused == 1);
  for (JobId j = 0; j < 3; ++j) env.Push(j, kR);
  // The newcomer does not inherit rank 0: it ranks last, behind the ranked jobs.
  CHECK(PopAllJobs(env, kR) == std::vector<JobId>{2, 0, 1});
}

TEST_CASE("LocalityQueues TasksBefore counts what a new task would wait behind", "[queues]") {
  Env env(IntraQueue::kPriority, 1, 4);
  for (JobId j : {0u, 0u, 1u, 2u, 2u, 2u}) env.Push(j, 0);
  env.queues.SetPriorityRanks({2, 0, 1, 3});
  CHECK(env.queues.TasksBefore(0, 1) == 1);  // its own task
  CHECK(env.queues.TasksBefore(0, 2) == 4);  // job 1's and its own three
  CHECK(env.queues.TasksBefore(0, 0) == 6);  // everything
  CHECK(env.queues.TasksBefore(0, 3) == 6);  // not queued here, ranked last
  env.queues.SetIntraQueue(IntraQueue::kFifo);
  CHECK(env.queues.TasksBefore(0, 1) == 3);  // jobs 0 and 1 are older than job 2
  env.queues.SetIntraQueue(IntraQueue::kFair);
  env.SetRunning(0, 1);
  CHECK(env.queues.TasksBefore(0, 2) == 4);  // jobs 1 and 2 tie on 0 running, 1 is older
}

TEST_CASE("LocalityQueues place_new: an unranked job goes in by Smith's rule", "[queues]") {
  // Ranked: job 0 (weight 1, 4 tasks: ratio 0.25) first, job 1 (weight 8, 1 task: 8) second.
  Env env(IntraQueue::kPriority, 1, 2);
  env.cluster.job(1).weight = 8;
  for (JobId j : {0u, 0u, 0u, 0u, 1u}) env.Push(j, 0);
  std::vector<uint64_t> seqs{env.cluster.job(0).seq, env.cluster.job(1).seq};

  SECTION("without place_new a newcomer is last") {
    env.queues.SetPriorityRanks({0, 1}, seqs);
    const JobId late = env.cluster.NewJob(2);
    env.Push(late, 0);
    CHECK(PopAllJobs(env, 0) == std::vector<JobId>{0, 0, 0, 0, 1, 2});
  }
  SECTION("ratio 2: one ranked job is worthier, so it comes second") {
    env.queues.SetPriorityRanks({0, 1}, seqs, /*place_new=*/true);
    const JobId late = env.cluster.NewJob(2);
    env.Push(late, 0);
    CHECK(env.queues.TasksBefore(0, late) == 5);  // job 0's four and its own
    CHECK(PopAllJobs(env, 0) == std::vector<JobId>{0, 0, 0, 0, 2, 1});
  }
  SECTION("ratio 10: worthier than every ranked job, so it comes first") {
    env.queues.SetPriorityRanks({0, 1}, seqs, /*place_new=*/true);
    const JobId late = env.cluster.NewJob(10);
    env.Push(late, 0);
    CHECK(env.queues.BestJob(0) == late);
  }
  SECTION("ratio 0.1: below every ranked job, so it comes last") {
    env.queues.SetPriorityRanks({0, 1}, seqs, /*place_new=*/true);
    const JobId late = env.cluster.NewJob(1);
    std::vector<TaskId> tasks;  // all ten exist before the first push places the job
    for (int i = 0; i < 10; ++i) tasks.push_back(env.cluster.NewTask(late, TaskKind::kMap));
    for (TaskId t : tasks) env.queues.Push(t, 0);
    CHECK(PopAllJobs(env, 0) == std::vector<JobId>{0, 0, 0, 0, 1, late, late, late, late, late,
                                                   late, late, late, late, late});
  }
}

TEST_CASE("LocalityQueues place_new keeps a placed job's key until the next ranks", "[queues]") {
  // The key is fixed when first needed, so the job's tasks starting later cannot move it
  // inside a heap that was ordered by the old key.
  Env env(IntraQueue::kPriority, 2, 2);
  env.cluster.job(1).weight = 8;
  for (JobId j : {0u, 0u, 0u, 0u, 1u}) env.Push(j, 0);
  env.queues.SetPriorityRanks({0, 1}, {env.cluster.job(0).seq, env.cluster.job(1).seq}, true);
  const JobId late = env.cluster.NewJob(2);
  env.Push(late, 0);  // placed now: 1 waiting task, ratio 2: after job 0, before job 1
  for (int i = 0; i < 10; ++i) env.Push(late, kR);  // 11 waiting: ratio 2/11 would be last
  CHECK(PopAllJobs(env, 0) == std::vector<JobId>{0, 0, 0, 0, late, 1});
  env.Push(1, kR);
  CHECK(env.queues.TasksBefore(kR, 1) == 11);  // still placed before job 1
  // A new order places it again from its current count: ratio 2/11 < 0.25, after job 1.
  env.queues.SetPriorityRanks({0, 1}, {env.cluster.job(0).seq, env.cluster.job(1).seq}, true);
  CHECK(env.queues.TasksBefore(kR, 1) == 1);
}

TEST_CASE("LocalityQueues SetIntraQueue re-orders queued subqueues", "[queues]") {
  Env env(IntraQueue::kFair, 2, 4);
  for (uint32_t q : {0u, kR})
    for (JobId j : {2u, 3u, 0u, 1u}) env.Push(j, q);
  env.SetRunning(0, 3);
  env.SetRunning(1, 2);
  env.SetRunning(2, 0);
  env.SetRunning(3, 0);
  env.queues.SetPriorityRanks({1, 0, 3, 2});  // stored; not used until priority is on

  for (uint32_t q : {0u, kR}) CHECK(env.queues.BestJob(q) == 2);  // fair: 2 and 3 tie, 2 older
  env.queues.SetIntraQueue(IntraQueue::kPriority);
  for (uint32_t q : {0u, kR}) CHECK(env.queues.BestJob(q) == 1);
  env.queues.SetIntraQueue(IntraQueue::kFifo);
  for (uint32_t q : {0u, kR}) CHECK(env.queues.BestJob(q) == 0);
  env.queues.SetIntraQueue(IntraQueue::kFair);
  for (uint32_t q : {0u, kR}) CHECK(env.queues.BestJob(q) == 2);
  env.queues.SetIntraQueue(IntraQueue::kPriority);
  CHECK(PopAllJobs(env, 0) == std::vector<JobId>{1, 0, 3, 2});
  env.queues.SetIntraQueue(IntraQueue::kFifo);
  CHECK(PopAllJobs(env, kR) == std::vector<JobId>{0, 1, 2, 3});
}

TEST_CASE("LocalityQueues with hundreds of jobs in a queue serves like the small case",
          "[queues]") {
  // A queue with many jobs (more than kHashAbove, a private constant: 16, now 128) finds
  // a job's entry through a hash index of heap positions, and drops the index again
  // below kUnhashBelow. 300 jobs cycled down to 2 cross both thresholds each round.
  constexpr JobId kMany = 300;
  Env env(IntraQueue::kFifo, 1, kMany);
  std::mt19937_64 rng(3);
  for (int round = 0; round < 3; ++round) {
    std::vector<JobId> jobs(kMany);
    for (JobId j = 0; j < kMany; ++j) jobs[j] = j;
    std::shuffle(jobs.begin(), jobs.end(), rng);
    std::map<JobId, std::vector<TaskId>> pushed;
    for (int pass = 0; pass < 3; ++pass)  // three tasks per job, interleaved across jobs
      for (JobId j : jobs) pushed[j].push_back(env.Push(j, 0));
    CHECK(env.queues.JobCount(0) == kMany);
    CHECK(env.queues.Length(0) == 3 * kMany);
    CHECK(env.queues.BestJob(0) == 0);
    // Remove the middle task of every job, found through the index.
    for (JobId j : jobs) env.queues.Remove(pushed[j][1]);
    CHECK(env.queues.JobCount(0) == kMany);
    CHECK(env.queues.Length(0) == 2 * kMany);
    // Drop all but two jobs entirely, in random order (the heap moves entries
    // around; the index must follow), checking the oldest remaining job as we go.
    std::set<JobId> left(jobs.begin(), jobs.end());
    for (size_t i = 0; i + 2 < jobs.size(); ++i) {
      env.queues.Remove(pushed[jobs[i]][2]);
      env.queues.Remove(pushed[jobs[i]][0]);
      left.erase(jobs[i]);
      REQUIRE(env.queues.JobCount(0) == left.size());
      REQUIRE(env.queues.BestJob(0) == *left.begin());
    }
    // A later push of an existing job must find its entry, not open a second one.
    const JobId a = std::min(jobs[kMany - 2], jobs[kMany - 1]);
    const JobId b = std::max(jobs[kMany - 2], jobs[kMany - 1]);
    const TaskId extra = env.Push(b, 0);
    CHECK(env.queues.JobCount(0) == 2);
    std::vector<TaskId> order;
    for (TaskId t = env.queues.PopBest(0).task; t != kNoId; t = env.queues.PopBest(0).task)
      order.push_back(t);
    CHECK(order ==
          std::vector<TaskId>{pushed[a][0], pushed[a][2], pushed[b][0], pushed[b][2], extra});
    CHECK(env.queues.JobCount(0) == 0);
  }
}

TEST_CASE("LocalityQueues finds a job's entry at every position of a wide queue", "[queues]") {
  // A queue of more than kWideAbove (32) jobs finds a job through its compact ids, 16 or 4
  // at a time and then one by one. Every job count from 33 to 70 puts some job in each
  // kind of block; a second task of each job must join its entry, not open another. Pops
  // under fair take the job id from the same ids.
  const IntraQueue intra = GENERATE(IntraQueue::kFair, IntraQueue::kFifo);
  for (JobId jobs = 33; jobs <= 70; ++jobs) {
    CAPTURE(IntraQueueName(intra), jobs);
    Env env(intra, 1, jobs);
    std::vector<TaskId> first(jobs), second(jobs);
    for (JobId j = 0; j < jobs; ++j) first[j] = env.Push(j, 0);
    for (JobId j = jobs; j-- > 0;) second[j] = env.Push(j, 0);  // older jobs: searched
    REQUIRE(env.queues.JobCount(0) == jobs);
    for (JobId j = 0; j < jobs; ++j) {  // fair and fifo agree here: no job runs
      for (TaskId expect : {first[j], second[j]}) {
        const Pick pick = env.queues.PopBest(0);  // the job too: a wide pop reads it from ids
        REQUIRE(pick.task == expect);
        REQUIRE(pick.job == j);
      }
    }
  }
}

TEST_CASE("LocalityQueues DrainQueue returns every task, oldest first per job", "[queues]") {
  Env env(IntraQueue::kFair, 2, 20);
  std::map<JobId, std::vector<TaskId>> in_q1;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) {
    const JobId j = static_cast<JobId>(rng() % 20);
    in_q1[j].push_back(env.Push(j, 1));
  }
  const TaskId elsewhere = env.Push(3, 0);
  const std::vector<TaskId> drained = env.queues.DrainQueue(1);
  CHECK(drained.size() == 200);
  CHECK(env.queues.Length(1) == 0);
  CHECK(env.queues.JobCount(1) == 0);
  CHECK(env.queues.Length(0) == 1);
  std::map<JobId, std::vector<TaskId>> got;
  for (TaskId t : drained) {
    got[env.cluster.task(t).job].push_back(t);
    CHECK(env.cluster.task(t).queue == kNoId);
  }
  CHECK(got == in_q1);
  // The queue is usable afterwards.
  const TaskId again = env.Push(5, 1);
  CHECK(env.queues.PopBest(1).task == again);
  CHECK(env.queues.PopBest(0).task == elsewhere);
}

TEST_CASE("LocalityQueues matches a naive model under random operations", "[queues]") {
  const IntraQueue start = GENERATE(IntraQueue::kFair, IntraQueue::kFifo, IntraQueue::kPriority);
  CAPTURE(IntraQueueName(start));
  constexpr uint32_t kMachines = 2;
  constexpr uint32_t kJobs = 500;
  // Queues swing between empty and a few hundred jobs, crossing the private
  // hash-index and ids-mirror thresholds (kHashAbove, kUnhashBelow, kWideAbove,
  // kNarrowBelow) both ways every cycle.
  constexpr uint32_t kManyJobs = 200;
  Env env(start, kMachines, kJobs);
  QueueModel model;
  IntraQueue intra = start;
  std::vector<uint32_t> ranks;
  std::mt19937_64 rng(static_cast<uint64_t>(start) * 1000 + 17);
  const std::vector<uint32_t> all_queues{0, 1, kR};
  std::vector<TaskId> queued;  // tasks in some queue, for random removal
  std::map<uint32_t, bool> was_big;
  int went_above = 0, came_back = 0;

  for (int step = 0; step < 20000; ++step) {
    const bool growing = (step / 2500) % 2 == 0;
    const uint64_t roll = rng() % 1000;
    const uint64_t push_until = growing ? 700 : 100;
    const uint64_t remove_until = push_until + (growing ? 100 : 450);
    const uint32_t q = all_queues[rng() % all_queues.size()];
    if (roll < push_until) {
      const JobId j = static_cast<JobId>(rng() % kJobs);
      const TaskId t = env.Push(j, q);
      model.Push(t, j, q);
      queued.push_back(t);
    } else if (roll < remove_until) {
      if (queued.empty()) continue;
      const size_t i = rng() % queued.size();
      const TaskId t = queued[i];
      env.queues.Remove(t);
      model.Remove(t, env.cluster.task(t).job);
      queued[i] = queued.back();
      queued.pop_back();
    } else if (roll < 900) {
      const JobId expect_job = model.Best(q, env.cluster, intra, ranks);
      const TaskId t = env.queues.PopBest(q).task;
      if (expect_job == kNoId) {
        REQUIRE(t == kNoId);
      } else {
        REQUIRE(t == model.Front(q, expect_job));
        model.Remove(t, expect_job);
        queued.erase(std::find(queued.begin(), queued.end(), t));
      }
    } else if (roll < 960) {
      env.SetRunning(static_cast<JobId>(rng() % kJobs), static_cast<uint32_t>(rng() % 4));
    } else if (roll < 975) {
      intra = static_cast<IntraQueue>(rng() % 3);
      env.queues.SetIntraQueue(intra);
    } else if (roll < 990) {
      ranks.assign(rng() % (kJobs + 5), 0);  // sometimes shorter than the job table
      for (uint32_t& r : ranks) r = static_cast<uint32_t>(rng() % 6);
      env.queues.SetPriorityRanks(ranks);
    } else if (!growing) {
      const auto expect = model.Take(q);
      const std::vector<TaskId> drained = env.queues.DrainQueue(q);
      std::map<JobId, std::deque<TaskId>> got;
      for (TaskId t : drained) {
        got[env.cluster.task(t).job].push_back(t);
        queued.erase(std::find(queued.begin(), queued.end(), t));
      }
      REQUIRE(got == expect);
    }
    for (uint32_t k : all_queues) {
      REQUIRE(env.queues.Length(k) == model.Length(k));
      REQUIRE(env.queues.JobCount(k) == model.JobCount(k));
      if (step % 8 == 0) REQUIRE(env.queues.BestJob(k) == model.Best(k, env.cluster, intra, ranks));
      if (env.queues.JobCount(k) >= kManyJobs && !was_big[k]) {
        was_big[k] = true;
        ++went_above;
      }
      if (env.queues.JobCount(k) < 4 && was_big[k]) {
        was_big[k] = false;
        ++came_back;
      }
    }
  }
  // The sequence really swung queues from hundreds of jobs to a few, many times.
  CHECK(went_above >= 6);
  CHECK(came_back >= 6);
}

TEST_CASE("LocalityQueues regression: priority ranks >= 2^24 keep their order", "[queues]") {
  // An earlier KeyOf packed rank << 40 | seq into 64 bits, so a rank >= 2^24
  // lost its high bits: rank 2^24 became key 0 and was served before rank 1.
  Env env(IntraQueue::kPriority, 1, 3);
  for (JobId j = 0; j < 3; ++j) env.Push(j, 0);
  env.queues.SetPriorityRanks({uint32_t{1} << 24, 1, 2});
  CHECK(PopAllJobs(env, 0) == std::vector<JobId>{1, 2, 0});
}

}  // namespace
}  // namespace locsched
