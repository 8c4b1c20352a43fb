// Tests the baseline policies (algorithms/core/baseline_policy.h) through the Scheduler, plus
// their building blocks JobHeap (ordering, ordered iteration) and JobIndex (lazy deletion).
#include "algorithms/core/baseline_policy.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "algorithms/core/job_heap.h"
#include "algorithms/core/job_index.h"
#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

// A scheduler running `kind` over `machines` machines with plenty of slots each.
// (Held by pointer: its policy refers to its cluster, so it must not move.)
std::unique_ptr<Scheduler> MakeScheduler(PolicyKind kind, uint32_t machines,
                                         double delay_wait = 1000) {
  PolicyParams p;
  p.kind = kind;
  p.delay_wait = delay_wait;
  auto s = std::make_unique<Scheduler>(p);
  for (uint32_t m = 0; m < machines; ++m) {
    Machine machine;
    machine.slots = 100;
    s->AddMachine(machine);
  }
  return s;
}

// Submits a job of map tasks, one per replica list; returns the job and its task ids.
std::pair<JobId, std::vector<TaskId>> Submit(Scheduler& s,
                                             const std::vector<std::vector<MachineId>>& tasks) {
  std::vector<TaskSpec> specs(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) specs[i].replicas = tasks[i];
  const JobId j = s.SubmitJob(1, specs);
  return {j, s.cluster().job(j).tasks};
}

TEST_CASE("Naive fair serves the job with the fewest running tasks", "[baselines]") {
  auto s_owner = MakeScheduler(PolicyKind::kFair, 4);
  Scheduler& s = *s_owner;
  const auto [a, ta] = Submit(s, {{3}, {3}, {3}});
  const auto [b, tb] = Submit(s, {{3}, {3}, {3}});
  const auto [c, tc] = Submit(s, {{3}, {3}, {3}});
  std::vector<JobId> order;
  for (int i = 0; i < 4; ++i) order.push_back(s.Assign(0)->job);
  CHECK(order == std::vector<JobId>{a, b, c, a});  // ties go to the oldest job
  // b now runs 1 task, a 2, c 1: finishing b's task leaves b with the fewest.
  const TaskId b_running = [&] {
    for (TaskId t : tb)
      if (s.cluster().task(t).state == TaskState::kRunning) return t;
    return kNoId;
  }();
  REQUIRE(b_running != kNoId);
  s.Finish(b_running);
  CHECK(s.Assign(0)->job == b);  // a 2, b 0, c 1
  CHECK(s.Assign(0)->job == b);  // a 2, b 1, c 1: b and c tie, b is older
  CHECK(s.Assign(0)->job == c);  // a 2, b 2, c 1
}

TEST_CASE("Naive fair runs a local task of the chosen job if it has one, else any", "[baselines]") {
  auto s_owner = MakeScheduler(PolicyKind::kFair, 4);
  Scheduler& s = *s_owner;
  SECTION("the job's own local task wins over its older tasks") {
    const auto [a, ta] = Submit(s, {{1}, {0, 3}, {2}});
    auto x = s.Assign(0);
    REQUIRE(x);
    CHECK(x->task == ta[1]);
    CHECK(x->local);
    x = s.Assign(0);  // no local task left for machine 0: the oldest queued task, remote
    REQUIRE(x);
    CHECK(x->task == ta[0]);
    CHECK_FALSE(x->local);
    x = s.Assign(2);
    REQUIRE(x);
    CHECK(x->task == ta[2]);
    CHECK(x->local);
    CHECK(s.cluster().task(ta[2]).ran_local);
  }
  SECTION("another job's local task does not change the job choice") {
    const auto [a, ta] = Submit(s, {{1}, {1}});
    const auto [b, tb] = Submit(s, {{0}, {0}});
    const auto x = s.Assign(0);
    REQUIRE(x);
    CHECK(x->job == a);  // fewest running (tie), oldest
    CHECK_FALSE(x->local);
    const auto y = s.Assign(0);
    REQUIRE(y);
    CHECK(y->job == b);  // a now runs one task, b none
    CHECK(y->local);
  }
}

TEST_CASE("FIFO serves the oldest job, with greedy locality inside it", "[baselines]") {
  auto s_owner = MakeScheduler(PolicyKind::kFifo, 4);
  Scheduler& s = *s_owner;
  const auto [a, ta] = Submit(s, {{2}, {0}, {2}});
  const auto [b, tb] = Submit(s, {{0}, {0}});
  auto x = s.Assign(0);
  REQUIRE(x);
  CHECK(x->task == ta[1]);  // a's local task first
  CHECK(x->local);
  x = s.Assign(0);
  REQUIRE(x);
  CHECK(x->task == ta[0]);  // a is still the oldest: its oldest task, remote
  CHECK_FALSE(x->local);    // (b's local tasks wait)
  x = s.Assign(2);
  REQUIRE(x);
  CHECK(x->task == ta[2]);
  x = s.Assign(0);
  REQUIRE(x);
  CHECK(x->job == b);
  CHECK(x->local);
  // A job that keeps running many tasks still goes first while it has queued ones.
  const auto [c, tc] = Submit(s, {{3}, {3}, {3}});
  const auto [d, td] = Submit(s, {{3}});
  CHECK(s.Assign(1)->job == b);
  for (int i = 0; i < 3; ++i) CHECK(s.Assign(1)->job == c);
  CHECK(s.Assign(1)->job == d);
  CHECK_FALSE(s.Assign(1).has_value());
}

TEST_CASE("Delay scheduling passes over a job without a local task until it has waited",
          "[baselines]") {
  constexpr double kW = 2.5;  // seconds
  auto s_owner = MakeScheduler(PolicyKind::kDelay, 4, kW);
  Scheduler& s = *s_owner;
  SECTION("a job passed over lets the next job run locally") {
    s.SetNow(10);
    const auto [a, ta] = Submit(s, {{1}});
    const auto [b, tb] = Submit(s, {{0}});
    CHECK(s.cluster().job(a).wait_since == 10);  // its wait starts when it becomes runnable
    const auto x = s.Assign(0);
    REQUIRE(x);
    CHECK(x->job == b);
    CHECK(x->local);
  }
  SECTION("the slot idles until the job has waited W, then the job runs remote") {
    s.SetNow(100);
    const auto [a, ta] = Submit(s, {{1}, {1}, {1}, {1}});
    for (const double now : {100.0, 101.0, 102.4}) {
      s.SetNow(now);
      CHECK_FALSE(s.Assign(0).has_value());
      CHECK(s.queued() == 4);
    }
    s.SetNow(100 + kW);  // waited exactly W
    const auto x = s.Assign(0);
    REQUIRE(x);
    CHECK(x->job == a);
    CHECK_FALSE(x->local);
    CHECK(s.queued() == 3);
    // Once it may run remote it keeps that right until it runs a local task.
    s.SetNow(103);
    const auto x2 = s.Assign(2);
    REQUIRE(x2);
    CHECK_FALSE(x2->local);
    // A local launch starts the wait over.
    s.SetNow(104);
    const auto y = s.Assign(1);
    REQUIRE(y);
    CHECK(y->local);
    CHECK(s.cluster().job(a).wait_since == 104);
    s.SetNow(106);  // waited 2 s < W since the local launch
    CHECK_FALSE(s.Assign(3).has_value());
    s.SetNow(106.5);
    const auto z = s.Assign(3);
    REQUIRE(z);
    CHECK_FALSE(z->local);
  }
  SECTION("a requeued task's job waits afresh from when it became runnable again") {
    s.SetNow(0);
    const auto [a, ta] = Submit(s, {{1}});
    s.SetNow(5);
    const auto x = s.Assign(0);  // waited 5 >= W: remote
    REQUIRE(x);
    CHECK_FALSE(x->local);
    s.SetNow(6);
    s.Requeue(x->task);
    CHECK(s.cluster().job(a).wait_since == 6);
    CHECK_FALSE(s.Assign(0).has_value());
  }
  SECTION("with W = 0 a job runs remotely at once") {
    auto s0_owner = MakeScheduler(PolicyKind::kDelay, 4, 0);
    Scheduler& s0 = *s0_owner;
    Submit(s0, {{1}});
    const auto x = s0.Assign(0);
    REQUIRE(x);
    CHECK_FALSE(x->local);
  }
}

// Journal replay re-applies recorded assignments with AssignTask instead of a pick. A
// local start so imposed used to leave the job's wait running, so after a restart delay
// scheduling sent the job off its holders before the live daemon would have.
TEST_CASE("Delay scheduling: a local assignment replayed without a pick restarts the wait",
          "[baselines]") {
  auto live_owner = MakeScheduler(PolicyKind::kDelay, 3, /*delay_wait=*/10);
  auto replay_owner = MakeScheduler(PolicyKind::kDelay, 3, /*delay_wait=*/10);
  Scheduler& live = *live_owner;
  Scheduler& replay = *replay_owner;
  for (Scheduler* s : {&live, &replay}) {
    s->SetNow(0);
    Submit(*s, {{0}, {0}});
    s->SetNow(5);
  }
  // `live` picks a local task at 5; `replay` imposes the same start.
  const auto a = live.Assign(0);
  REQUIRE(a);
  REQUIRE(a->local);
  replay.AssignTask(a->task, 0);
  // At 12 the job has waited 7 s since its local start, under delay_wait: machine 2,
  // which holds none of its data, gets nothing from either.
  live.SetNow(12);
  replay.SetNow(12);
  CHECK_FALSE(live.Assign(2));
  CHECK_FALSE(replay.Assign(2));
}

TEST_CASE("JobHeap keeps order under insert, erase and update and iterates in order",
          "[baselines][job_heap]") {
  std::vector<int> keys(300, 0);
  JobHeap heap(
      [&keys](JobId a, JobId b) { return keys[a] != keys[b] ? keys[a] < keys[b] : a < b; });
  std::vector<bool> in(keys.size(), false);
  std::mt19937_64 rng(99);
  auto sorted_members = [&] {
    std::vector<JobId> v;
    for (JobId j = 0; j < keys.size(); ++j)
      if (in[j]) v.push_back(j);
    std::sort(v.begin(), v.end(),
              [&](JobId a, JobId b) { return keys[a] != keys[b] ? keys[a] < keys[b] : a < b; });
    return v;
  };
  CHECK(heap.Top() == kNoId);
  for (int step = 0; step < 20000; ++step) {
    const JobId j = static_cast<JobId>(rng() % keys.size());
    const uint64_t roll = rng() % 10;
    if (roll < 4) {
      if (!in[j]) {
        keys[j] = static_cast<int>(rng() % 50);  // many ties, broken by id
        heap.Insert(j);
        in[j] = true;
      }
    } else if (roll < 6) {
      heap.Erase(j);  // absent ids are a no-op
      in[j] = false;
    } else {
      keys[j] = static_cast<int>(rng() % 50);
      heap.Update(j);  // absent ids are a no-op
    }
    REQUIRE(heap.Contains(j) == in[j]);
    JobId first = kNoId;  // the smallest member, by a linear scan
    size_t members = 0;
    for (JobId x = 0; x < keys.size(); ++x) {
      if (!in[x]) continue;
      ++members;
      if (first == kNoId || keys[x] < keys[first]) first = x;  // ties: the lower id, seen first
    }
    REQUIRE(heap.size() == members);
    REQUIRE(heap.Top() == first);
    if (step % 50 == 0) {
      const std::vector<JobId> expect = sorted_members();
      std::vector<JobId> visited;
      heap.ForEachInOrder([&](JobId x) {
        visited.push_back(x);
        return true;
      });
      REQUIRE(visited == expect);
      // Stopping early visits exactly the k first.
      const size_t k = expect.empty() ? 0 : rng() % expect.size();
      visited.clear();
      heap.ForEachInOrder([&](JobId x) {
        visited.push_back(x);
        return visited.size() < k;
      });
      REQUIRE(visited.size() == std::min<size_t>(std::max<size_t>(k, 1), expect.size()));
      REQUIRE(std::equal(visited.begin(), visited.end(), expect.begin()));
    }
  }
}

// Puts task t into the queued state with a fresh generation, as the Scheduler does.
void MarkQueued(Cluster& c, TaskId t) {
  c.task(t).state = TaskState::kQueued;
  ++c.task(t).generation;
}
// Takes task t out of the queues (started), as the Scheduler and the policy do.
void MarkRunning(Cluster& c, JobIndex& index, TaskId t) {
  c.task(t).state = TaskState::kRunning;
  ++c.task(t).generation;
  index.Remove(t);
}

TEST_CASE("JobIndex finds the oldest local/any task and deletes lazily", "[baselines][job_index]") {
  Cluster c;
  JobIndex index(c);
  const JobId j = c.NewJob(1);
  std::vector<TaskId> t;
  const std::vector<std::vector<MachineId>> replicas{{0, 1}, {1}, {2}, {}};
  for (const auto& r : replicas) {
    t.push_back(c.NewTask(j, TaskKind::kMap));
    c.task(t.back()).replicas.Assign(r);
    MarkQueued(c, t.back());
    index.Add(t.back());
  }
  CHECK(index.FindLocal(j, 1) == t[0]);
  CHECK(index.FindLocal(j, 1) == t[0]);  // finding does not remove
  CHECK(index.FindLocal(j, 2) == t[2]);
  CHECK(index.FindLocal(j, 7) == kNoId);
  CHECK(index.FindAny(j) == t[0]);

  // t0 is picked through machine 1's list; no other list may return it.
  MarkRunning(c, index, t[0]);
  CHECK(index.FindAny(j) == t[1]);
  CHECK(index.FindLocal(j, 0) == kNoId);
  CHECK(index.FindLocal(j, 1) == t[1]);

  // Requeued (a failure): it is indexed again, behind the older entries.
  MarkQueued(c, t[0]);
  index.Add(t[0]);
  CHECK(index.FindLocal(j, 0) == t[0]);
  CHECK(index.FindAny(j) == t[1]);

  // An entry made before the task was withdrawn and added again is dead, though the
  // task is queued.
  index.Remove(t[1]);
  index.Add(t[1]);
  CHECK(index.FindAny(j) == t[2]);
  CHECK(index.FindLocal(j, 1) == t[0]);

  // Stale entries are reclaimed as they are met; DropJob frees the rest.
  const size_t before = index.entries();
  MarkRunning(c, index, t[2]);
  MarkRunning(c, index, t[3]);
  CHECK(index.FindAny(j) == t[0]);
  CHECK(index.entries() < before);
  index.DropJob(j);
  CHECK(index.entries() == 0);
  CHECK(index.FindAny(j) == kNoId);
}

TEST_CASE("JobIndex never returns tasks of a freed job whose ids were recycled",
          "[baselines][job_index]") {
  Cluster c;
  JobIndex index(c);
  const JobId j = c.NewJob(1);
  std::vector<TaskId> old;
  for (int i = 0; i < 3; ++i) {
    old.push_back(c.NewTask(j, TaskKind::kMap));
    c.task(old.back()).replicas.Assign(std::vector<MachineId>{4});
    MarkQueued(c, old.back());
    index.Add(old.back());
  }
  // The job is cancelled (its queued tasks withdrawn) without DropJob, then its job
  // and task ids come back for a new job.
  for (TaskId t : old) {
    c.task(t).state = TaskState::kDone;
    index.Remove(t);
  }
  c.FreeJob(j);
  const JobId j2 = c.NewJob(1);
  REQUIRE(j2 == j);
  const TaskId fresh = c.NewTask(j2, TaskKind::kMap);
  REQUIRE(std::find(old.begin(), old.end(), fresh) != old.end());  // a recycled id
  c.task(fresh).replicas.Assign(std::vector<MachineId>{4});
  CHECK(index.FindLocal(j2, 4) == kNoId);
  CHECK(index.FindAny(j2) == kNoId);
  MarkQueued(c, fresh);
  index.Add(fresh);
  CHECK(index.FindLocal(j2, 4) == fresh);
  MarkRunning(c, index, fresh);
  CHECK(index.FindLocal(j2, 4) == kNoId);
  CHECK(index.FindAny(j2) == kNoId);
}

}  // namespace
}  // namespace locsched
