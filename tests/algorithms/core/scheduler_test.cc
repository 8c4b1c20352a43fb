// Tests Scheduler (algorithms/core/scheduler.h) under every policy: reduces wait for maps,
// completion, requeue, cancel, machine down/drain, and counters equal to a recount.
#include "algorithms/core/scheduler.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

namespace locsched {
namespace {

// Held by pointer: a Scheduler's policy refers to its cluster, so it must not move.
std::unique_ptr<Scheduler> MakeScheduler(PolicyKind kind, uint32_t machines, uint32_t slots = 1,
                                         double delay_wait = 3, uint64_t seed = 1) {
  PolicyParams p;
  p.kind = kind;
  p.delay_wait = delay_wait;
  p.seed = seed;
  if (delay_wait == 0) {  // no locality delay in capacity-scheduler's count either
    p.node_locality_delay = 0;
    p.rack_locality_delay = 0;
  }
  auto s = std::make_unique<Scheduler>(p);
  for (uint32_t m = 0; m < machines; ++m) {
    Machine machine;
    machine.slots = slots;
    s->AddMachine(machine);
  }
  return s;
}

// A task to submit; owns its replica list (TaskSpec only views one).
struct TaskDef {
  std::vector<MachineId> replicas;
  TaskKind kind = TaskKind::kMap;
};

TaskDef Def(std::vector<MachineId> replicas, TaskKind kind = TaskKind::kMap) {
  return TaskDef{std::move(replicas), kind};
}

JobId Submit(Scheduler& s, const std::vector<TaskDef>& defs, double weight = 1) {
  std::vector<TaskSpec> specs(defs.size());
  for (size_t i = 0; i < defs.size(); ++i) {
    specs[i].replicas = defs[i].replicas;
    specs[i].kind = defs[i].kind;
  }
  return s.SubmitJob(weight, specs);
}

// Recounts task states over the cluster and checks every counter the scheduler keeps.
void CheckCounts(const Scheduler& s) {
  const Cluster& c = s.cluster();
  uint64_t queued = 0, running = 0, blocked = 0;
  uint32_t live = 0;
  std::vector<uint32_t> on_machine(c.num_machines(), 0);
  for (JobId j = 0; j < c.job_capacity(); ++j) {
    const Job& job = c.job(j);
    if (!job.alive) continue;
    ++live;
    uint32_t jq = 0, jr = 0, jd = 0, maps_left = 0;
    for (TaskId t : job.tasks) {
      const Task& task = c.task(t);
      REQUIRE(task.job == j);
      switch (task.state) {
        case TaskState::kQueued:
          ++jq;
          break;
        case TaskState::kRunning:
          ++jr;
          REQUIRE(task.machine < c.num_machines());
          ++on_machine[task.machine];
          break;
        case TaskState::kBlocked:
          ++blocked;
          REQUIRE(task.kind == TaskKind::kReduce);
          break;
        case TaskState::kDone:
          ++jd;
          break;
      }
      if (task.kind == TaskKind::kMap && task.state != TaskState::kDone) ++maps_left;
    }
    REQUIRE(job.queued == jq);
    REQUIRE(job.running == jr);
    REQUIRE(job.done == jd);
    REQUIRE(job.maps_left == maps_left);
    REQUIRE_FALSE(job.Finished());  // a finished job is freed at once
    queued += jq;
    running += jr;
  }
  REQUIRE(s.queued() == queued);
  REQUIRE(s.running() == running);
  REQUIRE(s.blocked() == blocked);
  REQUIRE(c.live_jobs() == live);
  REQUIRE(s.policy().Stats().queued == queued);
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    REQUIRE(c.machine(m).running == on_machine[m]);
    REQUIRE(c.machine(m).running <= c.machine(m).slots);
  }
}

// Ids of running tasks of live jobs, optionally only those on machine m.
std::vector<TaskId> RunningTasks(const Scheduler& s, MachineId m = kNoId) {
  std::vector<TaskId> out;
  for (TaskId t = 0; t < s.cluster().task_capacity(); ++t) {
    const Task& task = s.cluster().task(t);
    if (task.job != kNoId && task.state == TaskState::kRunning && (m == kNoId || task.machine == m))
      out.push_back(t);
  }
  return out;
}

// Offers every machine's free slots once; returns the assignments made.
std::vector<Assignment> AssignAll(Scheduler& s) {
  std::vector<Assignment> out;
  for (MachineId m = 0; m < s.cluster().num_machines(); ++m) {
    for (uint32_t k = 0; k < s.cluster().machine(m).slots; ++k) {
      const auto a = s.Assign(m);
      if (a) out.push_back(*a);
    }
  }
  return out;
}

const PolicyKind kAllPolicies[] = {PolicyKind::kJsqMaxWeight, PolicyKind::kFair,
                                   PolicyKind::kFifo,         PolicyKind::kDelay,
                                   PolicyKind::kLateBinding,  PolicyKind::kBalancedPandas,
                                   PolicyKind::kQuincy,       PolicyKind::kCapacityScheduler,
                                   PolicyKind::kFairScheduler};

PolicyParams Params(PolicyKind kind, IntraQueue intra, double delay_wait, uint64_t seed) {
  PolicyParams p;
  p.kind = kind;
  p.intra = intra;
  p.delay_wait = delay_wait;
  p.seed = seed;
  return p;
}

// True, noted as a pass, when `intra` cannot change what `kind` does: only
// JSQ+MaxWeight reads the intra-queue policy, so a generated case can return early.
bool IntraIrrelevant(PolicyKind kind, IntraQueue intra) {
  if (kind == PolicyKind::kJsqMaxWeight || intra == IntraQueue::kFair) return false;
  SUCCEED("the intra-queue policy only matters to JSQ+MaxWeight");
  return true;
}

// Adds n machines with 1, 2, 3, 1, ... slots.
void AddMixedMachines(Scheduler& s, uint32_t n) {
  for (uint32_t m = 0; m < n; ++m) {
    Machine machine;
    machine.slots = 1 + m % 3;
    s.AddMachine(machine);
  }
}

TEST_CASE("Scheduler: reduces stay blocked until every map of their job finishes", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  CAPTURE(PolicyKindName(kind));
  auto owner = MakeScheduler(kind, 4, 2, /*delay_wait=*/0);
  Scheduler& s = *owner;
  const std::vector<TaskDef> specs{Def({0}), Def({1}), Def({2}, TaskKind::kReduce),
                                   Def({3}, TaskKind::kReduce)};
  const JobId j = Submit(s, specs);
  CHECK(s.blocked() == 2);
  CHECK(s.queued() == 2);
  CheckCounts(s);

  std::vector<Assignment> started;
  for (int round = 0; round < 5; ++round)
    for (const Assignment& a : AssignAll(s)) started.push_back(a);
  REQUIRE(started.size() == 2);  // only the maps can start
  for (const Assignment& a : started) CHECK(s.cluster().task(a.task).kind == TaskKind::kMap);
  CHECK(s.queued() == 0);

  const Completion first = s.Finish(started[0].task);
  CHECK(first.job == j);
  CHECK_FALSE(first.job_done);
  CHECK(s.blocked() == 2);  // one map still running
  CHECK(AssignAll(s).empty());
  CheckCounts(s);

  s.Finish(started[1].task);
  CHECK(s.blocked() == 0);
  CHECK(s.queued() == 2);
  CheckCounts(s);
  std::vector<Assignment> reduces = AssignAll(s);
  REQUIRE(reduces.size() == 2);
  for (const Assignment& a : reduces) CHECK(s.cluster().task(a.task).kind == TaskKind::kReduce);
  CHECK_FALSE(s.Finish(reduces[0].task).job_done);
  const Completion last = s.Finish(reduces[1].task);
  CHECK(last.job == j);
  CHECK(last.job_done);
  CHECK_FALSE(s.cluster().job(j).alive);
  CHECK(s.cluster().live_jobs() == 0);
  CHECK(s.queued() + s.running() + s.blocked() == 0);
  CheckCounts(s);
}

TEST_CASE("Scheduler: a job of reduces only is runnable at once", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  auto owner = MakeScheduler(kind, 2);
  Scheduler& s = *owner;
  const std::vector<TaskDef> specs{Def({0}, TaskKind::kReduce), Def({1}, TaskKind::kReduce)};
  Submit(s, specs);
  CHECK(s.blocked() == 0);
  CHECK(s.queued() == 2);
  CheckCounts(s);
}

TEST_CASE("Scheduler: Requeue after a failure makes the task runnable again", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  CAPTURE(PolicyKindName(kind));
  auto owner = MakeScheduler(kind, 2);
  Scheduler& s = *owner;
  const std::vector<TaskDef> specs{Def({0})};
  const JobId j = Submit(s, specs);
  const auto a = s.Assign(0);
  REQUIRE(a);
  CHECK(s.cluster().task(a->task).attempts == 1);
  s.Requeue(a->task);
  CHECK(s.cluster().task(a->task).state == TaskState::kQueued);
  CHECK(s.queued() == 1);
  CHECK(s.running() == 0);
  CHECK(s.cluster().machine(0).running == 0);
  CHECK(s.cluster().job(j).running == 0);
  CheckCounts(s);
  const auto b = s.Assign(0);
  REQUIRE(b);
  CHECK(b->task == a->task);
  CHECK(s.cluster().task(b->task).attempts == 2);
  CHECK(s.Finish(b->task).job_done);
  CheckCounts(s);
}

TEST_CASE("Scheduler: a finished task keeps where it ran; a requeued one forgets", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  CAPTURE(PolicyKindName(kind));
  auto owner = MakeScheduler(kind, 2);
  Scheduler& s = *owner;
  const std::vector<TaskDef> specs{Def({1}), Def({1})};
  const JobId j = Submit(s, specs);
  const TaskId local = s.cluster().job(j).tasks[0];
  const TaskId remote = s.cluster().job(j).tasks[1];
  s.AssignTask(local, 1);
  s.AssignTask(remote, 0);
  CHECK_FALSE(s.Finish(local).job_done);
  CHECK(s.cluster().task(local).state == TaskState::kDone);
  CHECK(s.cluster().task(local).machine == 1);
  CHECK(s.cluster().task(local).ran_local);
  CHECK(s.cluster().machine(1).running == 0);
  s.Requeue(remote);
  CHECK(s.cluster().task(remote).machine == kNoId);
  CheckCounts(s);
  s.AssignTask(remote, 0);
  s.ForgetPlacement(local);
  CHECK(s.cluster().task(local).machine == kNoId);
  CHECK_FALSE(s.cluster().task(local).ran_local);
  CHECK(s.Finish(remote).job_done);
  CheckCounts(s);
}

TEST_CASE("Scheduler: CancelJob removes queued tasks and fixes every count", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  CAPTURE(PolicyKindName(kind));
  auto owner = MakeScheduler(kind, 3, 2, /*delay_wait=*/0);
  Scheduler& s = *owner;
  std::vector<TaskDef> doomed{Def({0}), Def({0}), Def({1}), Def({2}), Def({1})};
  doomed.push_back(Def({2}, TaskKind::kReduce));
  const JobId x = Submit(s, doomed);
  const std::vector<TaskDef> other{Def({0}), Def({1}), Def({2})};
  // Start some of x's maps so it has queued, running and blocked tasks at once.
  REQUIRE(s.Assign(0));
  REQUIRE(s.Assign(1));
  const JobId y = Submit(s, other);
  CheckCounts(s);
  REQUIRE(s.cluster().job(x).running == 2);
  REQUIRE(s.blocked() == 1);

  s.CancelJob(x);
  CHECK_FALSE(s.cluster().job(x).alive);
  CHECK(s.cluster().live_jobs() == 1);
  CHECK(s.queued() == 3);
  CHECK(s.running() == 0);
  CHECK(s.blocked() == 0);
  CHECK(s.cluster().machine(0).running == 0);
  CHECK(s.cluster().machine(1).running == 0);
  CheckCounts(s);
  // Only y's tasks come out of the policy from now on.
  std::vector<Assignment> rest;
  for (int round = 0; round < 5; ++round)
    for (const Assignment& a : AssignAll(s)) rest.push_back(a);
  CHECK(rest.size() == 3);
  for (const Assignment& a : rest) CHECK(a.job == y);
  CheckCounts(s);
}

TEST_CASE("Scheduler: MachineDown requeues its running tasks and loses none", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  CAPTURE(PolicyKindName(kind));
  auto owner = MakeScheduler(kind, 3, 2, /*delay_wait=*/0);
  Scheduler& s = *owner;
  std::vector<TaskDef> specs;
  for (int i = 0; i < 8; ++i) specs.push_back(Def({static_cast<MachineId>(i % 3)}));
  specs.push_back(Def({0}, TaskKind::kReduce));
  Submit(s, specs);
  AssignAll(s);
  const std::vector<TaskId> on_zero = RunningTasks(s, 0);
  REQUIRE_FALSE(on_zero.empty());
  const uint64_t total = s.queued() + s.running() + s.blocked();

  std::vector<TaskId> lost = s.MachineDown(0);
  std::sort(lost.begin(), lost.end());
  CHECK(lost == on_zero);
  for (TaskId t : lost) {
    CHECK(s.cluster().task(t).state == TaskState::kQueued);
    CHECK(s.cluster().task(t).attempts == 0);  // the lost start uses no retry
  }
  CHECK(s.queued() + s.running() + s.blocked() == total);
  CHECK(s.cluster().machine(0).running == 0);
  CheckCounts(s);
  CHECK_FALSE(s.Assign(0).has_value());  // down: no work

  // The others finish everything that can run; machine 0 comes back and helps.
  for (int round = 0; round < 50 && s.cluster().live_jobs() > 0; ++round) {
    if (round == 10) s.MachineUp(0);
    for (TaskId t : RunningTasks(s)) s.Finish(t);
    AssignAll(s);
    CheckCounts(s);
  }
  CHECK(s.cluster().live_jobs() == 0);
}

TEST_CASE("Scheduler: a draining machine gets no new tasks", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  CAPTURE(PolicyKindName(kind));
  auto owner = MakeScheduler(kind, 2, 2, /*delay_wait=*/0);
  Scheduler& s = *owner;
  std::vector<TaskDef> specs(6, Def({0}));
  Submit(s, specs);
  const auto first = s.Assign(0);
  REQUIRE(first);
  s.SetDraining(0, true);
  CHECK_FALSE(s.Assign(0).has_value());
  CHECK(s.cluster().task(first->task).state == TaskState::kRunning);  // it finishes in place
  s.Finish(first->task);
  CHECK_FALSE(s.Assign(0).has_value());
  CheckCounts(s);
  const auto elsewhere = s.Assign(1);  // the work is not stranded
  REQUIRE(elsewhere);
  CHECK_FALSE(elsewhere->local);
  s.SetDraining(0, false);
  // Balanced-PANDAS binds a task to one machine's queue when it is routed: the tasks
  // moved to machine 1 stay there, and machine 0 takes the tasks that arrive next.
  if (kind == PolicyKind::kBalancedPandas) Submit(s, {Def({0})});
  const auto back = s.Assign(0);
  REQUIRE(back);
  CHECK(back->machine == 0);
  CheckCounts(s);
}

TEST_CASE("Regression: Balanced-PANDAS re-routed a down machine's queue into itself forever",
          "[scheduler]") {
  // With no usable machine left, a task used to be parked on machine 0's remote queue;
  // taking machine 0 down then moved its tasks back into that same queue, endlessly.
  auto owner = MakeScheduler(PolicyKind::kBalancedPandas, 2, 1, /*delay_wait=*/0);
  Scheduler& s = *owner;
  s.MachineDown(1);
  Submit(s, std::vector<TaskDef>(3, Def({1})));
  s.MachineDown(0);  // returned: nothing is left to take the tasks, and they wait
  CHECK(s.queued() == 3);
  CHECK_FALSE(s.Assign(0).has_value());
  CheckCounts(s);
  s.MachineUp(1);  // the parked tasks are routed to the first machine that is back
  for (int i = 0; i < 3; ++i) {
    const auto a = s.Assign(1);
    REQUIRE(a);
    CHECK(a->local);
    s.Finish(a->task);
  }
  CHECK(s.cluster().live_jobs() == 0);
  CheckCounts(s);
}

TEST_CASE("Scheduler counters equal a recount through a long random run", "[scheduler]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  const IntraQueue intra = GENERATE(IntraQueue::kFair, IntraQueue::kFifo);
  CAPTURE(PolicyKindName(kind), IntraQueueName(intra));
  if (IntraIrrelevant(kind, intra)) return;
  constexpr uint32_t kMachines = 8;
  Scheduler s(Params(kind, intra, /*delay_wait=*/3, /*seed=*/5));
  AddMixedMachines(s, kMachines);
  std::mt19937_64 rng(static_cast<uint64_t>(kind) * 31 + static_cast<uint64_t>(intra));
  auto pick = [&](const std::vector<TaskId>& v) { return v[rng() % v.size()]; };
  uint64_t jobs_done = 0, assigned = 0, requeued = 0, cancelled = 0, lost_tasks = 0;

  for (int step = 0; step < 4000; ++step) {
    s.SetNow(step);  // one time unit a step: delay scheduling's wait of 3 passes
    const uint64_t roll = rng() % 100;
    if (roll < 12) {
      std::vector<TaskDef> specs;
      const uint32_t maps = static_cast<uint32_t>(rng() % 6);
      const uint32_t reduces = static_cast<uint32_t>(rng() % 3);
      for (uint32_t i = 0; i < maps + reduces; ++i) {
        TaskDef spec;
        spec.kind = i < maps ? TaskKind::kMap : TaskKind::kReduce;
        const uint32_t n = static_cast<uint32_t>(rng() % 4);  // 0..3 replicas
        while (spec.replicas.size() < n) {
          const MachineId m = static_cast<MachineId>(rng() % kMachines);
          if (std::find(spec.replicas.begin(), spec.replicas.end(), m) == spec.replicas.end())
            spec.replicas.push_back(m);
        }
        specs.push_back(spec);
      }
      if (specs.empty()) specs.push_back(Def({0}));
      Submit(s, specs, 1 + static_cast<double>(rng() % 3));
    } else if (roll < 55) {
      const MachineId m = static_cast<MachineId>(rng() % kMachines);
      const Machine& machine = s.cluster().machine(m);
      const bool open = machine.up && !machine.draining && machine.running < machine.slots;
      const bool had_queued = s.queued() > 0;
      const auto a = s.Assign(m);
      if (a) {
        ++assigned;
        REQUIRE(open);
        REQUIRE(a->machine == m);
        const Task& task = s.cluster().task(a->task);
        REQUIRE(task.state == TaskState::kRunning);
        REQUIRE(task.machine == m);
        REQUIRE(a->job == task.job);
        REQUIRE(a->local == task.IsLocalTo(m));
      } else if (open && had_queued && (kind == PolicyKind::kFair || kind == PolicyKind::kFifo)) {
        FAIL("fair/fifo left an open slot idle with tasks queued");
      }
    } else if (roll < 80) {
      const std::vector<TaskId> running = RunningTasks(s);
      if (!running.empty()) jobs_done += s.Finish(pick(running)).job_done;
    } else if (roll < 88) {
      const std::vector<TaskId> running = RunningTasks(s);
      if (!running.empty()) {
        s.Requeue(pick(running));
        ++requeued;
      }
    } else if (roll < 91) {
      std::vector<JobId> live;
      for (JobId j = 0; j < s.cluster().job_capacity(); ++j)
        if (s.cluster().job(j).alive) live.push_back(j);
      if (!live.empty()) {
        s.CancelJob(live[rng() % live.size()]);
        ++cancelled;
      }
    } else if (roll < 94) {
      const MachineId m = static_cast<MachineId>(rng() % kMachines);
      const std::vector<TaskId> expect = RunningTasks(s, m);
      std::vector<TaskId> lost = s.MachineDown(m);
      std::sort(lost.begin(), lost.end());
      REQUIRE(lost == expect);
      lost_tasks += lost.size();
    } else if (roll < 97) {
      s.MachineUp(static_cast<MachineId>(rng() % kMachines));
    } else {
      s.SetDraining(static_cast<MachineId>(rng() % kMachines), rng() % 2 == 0);
    }
    CheckCounts(s);
  }
  // The run exercised every kind of event.
  CHECK(assigned > 500);
  CHECK(jobs_done > 20);
  CHECK(requeued > 20);
  CHECK(cancelled > 5);
  CHECK(lost_tasks > 5);

  // Liveness: with every machine up and open, all remaining work completes.
  for (MachineId m = 0; m < kMachines; ++m) s.MachineUp(m);
  for (int round = 0; round < 2000 && s.cluster().live_jobs() > 0; ++round) {
    s.SetNow(4000 + round);
    for (TaskId t : RunningTasks(s)) s.Finish(t);
    AssignAll(s);
    CheckCounts(s);
  }
  CHECK(s.cluster().live_jobs() == 0);
  CHECK(s.queued() + s.running() + s.blocked() == 0);
}

// A random job of 1-8 maps with 0-3 distinct replicas each, from rng.
std::vector<TaskDef> RandomJob(std::mt19937_64& rng, uint32_t machines) {
  std::vector<TaskDef> defs(1 + rng() % 8);
  for (TaskDef& d : defs) {
    const uint32_t n = static_cast<uint32_t>(rng() % 4);
    while (d.replicas.size() < n) {
      const MachineId m = static_cast<MachineId>(rng() % machines);
      if (std::find(d.replicas.begin(), d.replicas.end(), m) == d.replicas.end())
        d.replicas.push_back(m);
    }
  }
  return defs;
}

// Every policy and job order: a task runs at most once at a time, a finished task never
// runs again, and every task of every job finishes exactly once; late binding's aging
// bound holds for every job while slots keep freeing.
TEST_CASE("Every policy runs each task once and loses none", "[scheduler][property]") {
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)),
                                   PolicyKind::kBalancedPandas);
  const JobOrder order = GENERATE(JobOrder::kFair, JobOrder::kSrpt, JobOrder::kSmith);
  CAPTURE(PolicyKindName(kind), JobOrderName(order));
  constexpr uint32_t kMachines = 6;
  constexpr double kAging = 20;
  PolicyParams params = Params(kind, IntraQueue::kFair, /*delay_wait=*/2, /*seed=*/3);
  params.job_order = order;
  params.job_aging = kAging;
  Scheduler s(params);
  AddMixedMachines(s, kMachines);
  std::mt19937_64 rng(static_cast<uint64_t>(kind) * 7 + static_cast<uint64_t>(order));
  // By (job seq, position): times started, times finished; a task id is recycled.
  std::vector<std::vector<uint32_t>> starts, finishes;
  std::vector<double> last_start;  // by job seq: last start, or submission
  std::vector<JobId> id_of;        // by job seq
  auto seq_of = [&](JobId j) { return s.cluster().job(j).seq; };
  double worst_gap = 0;
  uint64_t done_jobs = 0;
  for (int step = 0; step < 3000 || s.cluster().live_jobs() > 0; ++step) {
    REQUIRE(step < 20000);  // everything finishes
    s.SetNow(step);
    if (step < 3000 && rng() % 100 < 9) {
      const JobId j = Submit(s, RandomJob(rng, kMachines), 1 + static_cast<double>(rng() % 3));
      const uint64_t seq = seq_of(j);
      if (starts.size() <= seq) {
        starts.resize(seq + 1), finishes.resize(seq + 1), last_start.resize(seq + 1, 0);
        id_of.resize(seq + 1, kNoId);
      }
      starts[seq].assign(s.cluster().job(j).tasks.size(), 0);
      finishes[seq].assign(s.cluster().job(j).tasks.size(), 0);
      last_start[seq] = step;
      id_of[seq] = j;
    }
    for (TaskId t : RunningTasks(s)) {
      if (rng() % 3 != 0) continue;
      const Task& task = s.cluster().task(t);
      const uint64_t seq = seq_of(task.job);
      REQUIRE(finishes[seq][task.position]++ == 0);
      REQUIRE(starts[seq][task.position] == 1);
      done_jobs += s.Finish(t).job_done;
    }
    for (const Assignment& a : AssignAll(s)) {
      const Task& task = s.cluster().task(a.task);
      const uint64_t seq = seq_of(a.job);
      REQUIRE(finishes[seq][task.position] == 0);
      REQUIRE(++starts[seq][task.position] == 1);  // never twice, never while running
      last_start[seq] = step;
    }
    if (kind != PolicyKind::kLateBinding) continue;
    for (uint64_t seq = 0; seq < id_of.size(); ++seq) {
      const Job& job = s.cluster().job(id_of[seq]);
      if (id_of[seq] == kNoId || !job.alive || job.seq != seq || job.queued == 0) continue;
      worst_gap = std::max(worst_gap, step - last_start[seq]);
    }
  }
  for (uint64_t seq = 0; seq < starts.size(); ++seq)
    for (size_t i = 0; i < starts[seq].size(); ++i) {
      CAPTURE(seq, i);
      CHECK(finishes[seq][i] == 1);
    }
  CHECK(done_jobs == starts.size());
  // A job past the bound goes first at the next free slot; slots free every few steps.
  if (kind == PolicyKind::kLateBinding) CHECK(worst_gap <= kAging + 10);
}

TEST_CASE("Scheduler: slots claimed in rounds, then settled, get what Assign gives one by one",
          "[scheduler]") {
  // Two cores with one seed see the same jobs. One fills free slots with Assign; the
  // other claims a round of slots first and settles them after, as the simulator does.
  // Each claim must choose what Assign would, and never a task already claimed (the
  // baselines' index finds queued tasks by their state).
  const PolicyKind kind = GENERATE(from_range(std::begin(kAllPolicies), std::end(kAllPolicies)));
  const IntraQueue intra = GENERATE(IntraQueue::kFair, IntraQueue::kFifo);
  CAPTURE(PolicyKindName(kind), IntraQueueName(intra));
  if (IntraIrrelevant(kind, intra)) return;
  constexpr uint32_t kMachines = 6;
  const PolicyParams p = Params(kind, intra, /*delay_wait=*/2, /*seed=*/11);
  Scheduler one(p), rounds(p);
  AddMixedMachines(one, kMachines);
  AddMixedMachines(rounds, kMachines);
  std::mt19937_64 rng(7 + static_cast<uint64_t>(kind));
  uint64_t started = 0;
  for (int step = 0; step < 300; ++step) {
    one.SetNow(step);
    rounds.SetNow(step);
    const std::vector<TaskDef> job = RandomJob(rng, kMachines);
    REQUIRE(Submit(one, job) == Submit(rounds, job));
    // The slots to fill, machines repeated (several slots each), in random order.
    std::vector<MachineId> slots;
    for (uint32_t k = 0; k < 1 + rng() % 10; ++k)
      slots.push_back(static_cast<MachineId>(rng() % kMachines));
    std::vector<Claim> claims;
    for (MachineId m : slots) {
      const std::optional<Assignment> a = one.Assign(m);
      const Claim c = rounds.ClaimSlot(m);
      REQUIRE(c.task == (a ? a->task : kNoId));
      if (c.task != kNoId) claims.push_back(c);
    }
    for (const Claim& c : claims) {
      const Assignment b = rounds.Settle(c);
      const Task& task = one.cluster().task(b.task);
      REQUIRE(b.job == task.job);
      REQUIRE(b.machine == task.machine);
      REQUIRE(b.local == task.ran_local);
      REQUIRE(rounds.cluster().task(b.task).attempts == task.attempts);
      REQUIRE(rounds.cluster().task(b.task).generation == task.generation);
      ++started;
    }
    CheckCounts(rounds);
    // Finish the same random share of running tasks in both.
    for (TaskId t : RunningTasks(one))
      if (rng() % 2 == 0) REQUIRE(one.Finish(t).job_done == rounds.Finish(t).job_done);
  }
  CHECK(started > 300);
}

TEST_CASE("Scheduler: a JSQ+MaxWeight assignment says whether it runs local", "[scheduler]") {
  // The policy returns only the task; the Scheduler asks the task about the machine.
  auto owner = MakeScheduler(PolicyKind::kJsqMaxWeight, 3, /*slots=*/2);
  Scheduler& s = *owner;
  s.SetDraining(2, true);           // tasks whose replicas are all on 2 can only join R
  Submit(s, {Def({2})});            // -> R
  const auto remote = s.Assign(0);  // Q0 is empty: MaxWeight serves R
  REQUIRE(remote);
  CHECK_FALSE(remote->local);
  Submit(s, {Def({0, 2})});        // -> Q0 or R, both empty: a random tie
  const auto local = s.Assign(0);  // from Q0, or from R to a replica holder
  REQUIRE(local);
  CHECK(local->local);
  Submit(s, {Def({1, 2})});
  const auto other = s.Assign(1);
  REQUIRE(other);
  CHECK(other->local);
  CheckCounts(s);
}

TEST_CASE("Scheduler regression: neither copyable nor movable", "[scheduler]") {
  // Scheduler owns cluster_ and a policy that holds Cluster& to it. An earlier
  // version was implicitly movable: the moved-to scheduler's policy kept
  // pointing at the moved-from cluster (use-after-free once that one died).
  CHECK_FALSE(std::is_copy_constructible_v<Scheduler>);
  CHECK_FALSE(std::is_move_constructible_v<Scheduler>);
  CHECK_FALSE(std::is_copy_assignable_v<Scheduler>);
  CHECK_FALSE(std::is_move_assignable_v<Scheduler>);
}

TEST_CASE("Scheduler bug: an empty job was kept alive for ever", "[scheduler][bug]") {
  // A job without tasks can never finish, so it must not be kept.
  PolicyParams params;
  Scheduler s(params);
  s.AddMachine(Machine{});
  CHECK(s.SubmitJob(1.0, {}) == kNoId);
  CHECK(s.cluster().live_jobs() == 0);
  CHECK(s.queued() == 0);
}

}  // namespace
}  // namespace locsched
