// Tests late binding (algorithms/core/late_binding.h) through the Scheduler: any holder
// takes a task, remote runs only past the rate-derived wait, job order and the aging bound.
#include "algorithms/core/late_binding.h"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

std::unique_ptr<Scheduler> MakeLate(uint32_t machines, JobOrder order = JobOrder::kFair,
                                    double aging = 0) {
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.alpha = 0.8;
  p.gamma = 0.2;
  p.job_order = order;
  p.job_aging = aging;
  auto s = std::make_unique<Scheduler>(p);
  for (uint32_t m = 0; m < machines; ++m) s->AddMachine(Machine{});
  return s;
}

JobId Submit(Scheduler& s, const std::vector<std::vector<MachineId>>& tasks) {
  std::vector<TaskSpec> specs(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) specs[i].replicas = tasks[i];
  return s.SubmitJob(1, specs);
}

TEST_CASE("Late binding: whichever replica holder frees first takes the task", "[late]") {
  auto owner = MakeLate(4);
  Scheduler& s = *owner;
  Submit(s, {{0}, {1}});
  REQUIRE(s.Assign(0));
  REQUIRE(s.Assign(1));  // machines 0 and 1 are busy
  const JobId j = Submit(s, {{0, 1, 2}});
  const auto a = s.Assign(2);
  REQUIRE(a);
  CHECK(a->job == j);
  CHECK(a->local);
  CHECK(s.policy().LocalQueueLength(0) == 0);  // gone from every holder's index
  CHECK_FALSE(s.Assign(0));
}

TEST_CASE("Late binding runs remotely only once waiting is expected to cost more", "[late]") {
  auto owner = MakeLate(4);
  Scheduler& s = *owner;
  auto& policy = dynamic_cast<LateBinding&>(s.policy());
  CHECK(policy.remote_wait() == Approx(1 / 0.2 - 1 / 0.8));

  SECTION("an idle holder takes the task: no remote run however long it waits") {
    const JobId j = Submit(s, {{0}});
    CHECK(policy.ExpectedLocalWait(s.cluster().job(j).tasks[0]) == 0);
    s.SetNow(100);
    CHECK_FALSE(s.Assign(2));
    CHECK(s.Assign(0)->local);
  }
  SECTION("a busy holder with a short queue: waiting for it is sooner") {
    Submit(s, {{0}});
    REQUIRE(s.Assign(0));  // machine 0 busy
    const JobId j = Submit(s, {{0}, {0}});
    // The later task waits for two ends on one slot: 2 / 0.8 = 2.5 < 3.75.
    CHECK(policy.ExpectedLocalWait(s.cluster().job(j).tasks[1]) == Approx(2 / 0.8));
    s.SetNow(50);
    CHECK_FALSE(s.Assign(2));
  }
  SECTION("a lone task behind a long queue at a busy holder: remote finishes sooner") {
    Submit(s, {{1}});
    REQUIRE(s.Assign(1));  // machine 1 busy
    // A job of 4 tasks local to machine 1 only, then a single task held by machine 1: it is
    // last in the order and waits (4 + 1) / 0.8 = 6.25 > 3.75, with no other task of its job.
    const JobId big = Submit(s, std::vector<std::vector<MachineId>>(4, std::vector<MachineId>{1}));
    const JobId lone = Submit(s, {{1}});
    CHECK(policy.ExpectedLocalWait(s.cluster().job(lone).tasks[0]) == Approx(5 / 0.8));
    const auto b = s.Assign(3);
    REQUIRE(b);
    CHECK(b->job == lone);
    CHECK_FALSE(b->local);
    // The 4-task job's first task waits 4 / 0.8 = 5 > 3.75 too, but its other 3 end after
    // it anyway: a slow remote run would more likely end the job late than early.
    CHECK(policy.ExpectedLocalWait(s.cluster().job(big).tasks[0]) == Approx(4 / 0.8));
    CHECK_FALSE(s.Assign(2));
  }
  SECTION("replicas share the queue, and free holder slots start tasks at once") {
    Submit(s, {{0}, {1}});
    REQUIRE(s.Assign(0));
    REQUIRE(s.Assign(1));  // machines 0 and 1 busy, 2 idle
    const JobId j = Submit(s, {{0, 1, 2}, {0, 1, 2}});
    // The other task counts at 3 holders (3 / 3 = 1 task ahead); machine 2's free slot
    // takes one of the two at once, the other waits for the first of 3 slots to end.
    CHECK(policy.ExpectedLocalWait(s.cluster().job(j).tasks[0]) == Approx(1 / (0.8 * 3)));
  }
}

// A run off its holders keeps the asking machine busy for 1/gamma = 5 s; tasks local to it
// that arrive meanwhile and find their other holders busy wait or run off themselves
// (LateBinding::DisplacedLocal). Each section first runs `served` single-task jobs held by
// machine 3 only, then asks at `now` about a lone task that waits (4 + 1) / 0.8 = 6.25 s
// for busy machine 1: running off gains 6.25 + 1.25 - 5 = 2.5 s for its job.
TEST_CASE("Late binding: a run off its holders counts the local work it displaces", "[late]") {
  auto owner = MakeLate(4);
  Scheduler& s = *owner;
  const auto serve_on_3 = [&s](int served) {
    for (int i = 0; i < served; ++i) {
      Submit(s, {{3}});
      const auto a = s.Assign(3);
      REQUIRE(a);
      REQUIRE(a->local);
      s.Finish(a->task);
    }
  };
  const auto lone_behind_busy_holder = [&s]() {
    Submit(s, {{1}});
    REQUIRE(s.Assign(1));  // machine 1 busy
    Submit(s, std::vector<std::vector<MachineId>>(4, std::vector<MachineId>{1}));
    return Submit(s, {{1}});
  };
  SECTION("a machine that serves local work often keeps its slot for it") {
    // 20 tasks in 20 s (+ one task time as a prior): 0.94 a second, of which 5 s of
    // running off displaces 4.7, each by 3.75 s: far more than the 2.5 s gained.
    serve_on_3(20);
    s.SetNow(20);
    const JobId lone = lone_behind_busy_holder();
    CHECK_FALSE(s.Assign(3));
    // Machine 2 holds no data: it displaces nothing, and runs the lone task.
    const auto b = s.Assign(2);
    REQUIRE(b);
    CHECK(b->job == lone);
    CHECK_FALSE(b->local);
  }
  SECTION("a machine whose local work is rare runs it") {
    // One task in 100 s: 0.0099 a second, 0.05 displaced by 3.75 s: 0.19 s < 2.5 s.
    serve_on_3(1);
    s.SetNow(100);
    const JobId lone = lone_behind_busy_holder();
    const auto b = s.Assign(3);
    REQUIRE(b);
    CHECK(b->job == lone);
    CHECK_FALSE(b->local);
  }
}

TEST_CASE("Late binding offers a remote run to the job its holders serve last", "[late]") {
  // Six single-task jobs held by busy machine 0: the first, which waited longest, is the
  // one machine 0 serves next (1 / 0.8 = 1.25 s); the last waits for all six to start
  // (6 / 0.8 = 7.5 s > 3.75), so it is the one that runs elsewhere.
  auto owner = MakeLate(3);
  Scheduler& s = *owner;
  auto& policy = dynamic_cast<LateBinding&>(s.policy());
  Submit(s, {{0}});
  REQUIRE(s.Assign(0));
  std::vector<JobId> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(Submit(s, {{0}}));
  REQUIRE(s.Assign(0 + 1).has_value());
  CHECK(s.cluster().job(jobs.back()).running == 1);
  CHECK(policy.ExpectedLocalWait(s.cluster().job(jobs.front()).tasks[0]) == Approx(1 / 0.8));
  // With five left the last waits 5 / 0.8 = 6.25: machine 2 runs it too.
  const auto b = s.Assign(2);
  REQUIRE(b);
  CHECK(b->job == jobs[4]);
}

TEST_CASE("Late binding's longest-waiting list stays as long as the waiting jobs", "[late]") {
  auto owner = MakeLate(3);
  Scheduler& s = *owner;
  auto& policy = dynamic_cast<LateBinding&>(s.policy());
  Submit(s, {{2}});
  REQUIRE(s.Assign(2));  // machine 2 stays busy: the next job waits at the front for ever
  Submit(s, {{2}});
  for (int i = 0; i < 5000; ++i) {
    s.SetNow(i);
    Submit(s, {{0}, {0}});
    const auto a = s.Assign(0);
    REQUIRE(a);
    s.Finish(a->task);
    s.Finish(s.Assign(0)->task);
    CHECK(policy.progress_entries() <= 2 * 2 + 16 + 1);
  }
  CHECK_FALSE(s.Assign(1));  // the waiting job's holder is busy, and its wait is short
}

TEST_CASE("Late binding serves jobs in srpt order, local tasks first", "[late]") {
  auto owner = MakeLate(2, JobOrder::kSrpt);
  Scheduler& s = *owner;
  const JobId big = Submit(s, {{0}, {0}, {0}});
  const JobId small = Submit(s, {{0}});
  CHECK(s.Assign(0)->job == small);
  s.Finish(s.cluster().job(small).tasks[0]);
  CHECK(s.Assign(0)->job == big);
}

// Journal replay re-applies a heartbeat's recorded assignments with AssignTask instead
// of asking the policy. That start used to leave the job's wait where it was (a pick
// restarts it), so after a restart the aging bound and the off-holder offer went to
// another job than the live daemon's.
TEST_CASE("Late binding: an assignment replayed without a pick restarts its job's wait", "[late]") {
  constexpr double kAging = 10;
  auto live_owner = MakeLate(3, JobOrder::kFair, kAging);
  auto replay_owner = MakeLate(3, JobOrder::kFair, kAging);
  Scheduler& live = *live_owner;
  Scheduler& replay = *replay_owner;
  // Both get the same events; `live` picks, `replay` imposes what `live` picked.
  const auto start = [&](MachineId m) {
    const auto a = live.Assign(m);
    REQUIRE(a);
    CHECK(replay.AssignTask(a->task, m).job == a->job);
  };
  for (Scheduler* s : {&live, &replay}) {
    s->SetNow(0);
    Submit(*s, {{1}});       // z, which keeps machine 1 busy
    Submit(*s, {{0}, {0}});  // x, both of its tasks held by machine 0
  }
  start(1);
  JobId y = kNoId;
  for (Scheduler* s : {&live, &replay}) {
    s->SetNow(1);
    y = Submit(*s, {{1}});  // y: its holder stays busy (job ids match: same events)
    s->SetNow(5);
  }
  start(0);  // x starts a task at 5: its wait starts again
  // At 14, y has started nothing for 13 s (past the aging bound) and x for 9 s: the
  // aging bound gives machine 2 to y, in both.
  live.SetNow(14);
  replay.SetNow(14);
  const auto from_live = live.Assign(2);
  const auto from_replay = replay.Assign(2);
  REQUIRE(from_live);
  REQUIRE(from_replay);
  CHECK(from_live->job == y);
  CHECK(from_replay->job == from_live->job);
  CHECK(from_replay->task == from_live->task);
}

TEST_CASE("Late binding's aging bound: no job goes longer without a start", "[late]") {
  constexpr double kAging = 10;
  auto owner = MakeLate(1, JobOrder::kSrpt, kAging);
  Scheduler& s = *owner;
  std::vector<std::vector<MachineId>> big_tasks(20, std::vector<MachineId>{0});
  const uint64_t big = s.cluster().job(Submit(s, big_tasks)).seq;  // ids are recycled
  double last_big_start = 0, worst_gap = 0;
  uint32_t big_started = 0;
  TaskId running = kNoId;
  for (double now = 0; now < 500; now += 1) {
    s.SetNow(now);
    if (running != kNoId) s.Finish(running);
    running = kNoId;
    // A stream of one-task jobs that srpt prefers, at 3/4 of the machine's capacity.
    if (static_cast<int>(now) % 4 != 0) Submit(s, {{0}});
    const auto a = s.Assign(0);
    if (!a) continue;
    running = a->task;
    if (s.cluster().job(a->job).seq == big) {
      worst_gap = std::max(worst_gap, now - last_big_start);
      last_big_start = now;
      ++big_started;
    }
  }
  CHECK(big_started == 20);
  CHECK(worst_gap <= kAging + 1);
}

}  // namespace
}  // namespace locsched
