// Tests QueueSharing (algorithms/core/queue_sharing.h) through the Scheduler: the slot
// order, maximums, held jobs, reasons and Reconfigure; and properties over random trees and
// workloads under every policy: no start takes a queue above its maximum, a queue with
// demand holds min(demand, its guarantee) once the guarantee grace has passed and running
// tasks turn over, no task is lost or run twice, and held jobs run once admitted.
#include "algorithms/core/queue_sharing.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "tests/algorithms/core/queue_fixtures.h"

namespace locsched {
namespace {

using test::Make;
using test::Q;
using test::Tree;

// Submits a job of `tasks` maps, each held by `replicas`, to leaf `queue`.
JobId Submit(Scheduler& s, uint32_t queue, uint32_t tasks, std::vector<MachineId> replicas,
             uint32_t user = kNoId) {
  std::vector<TaskSpec> specs(tasks);
  for (TaskSpec& t : specs) t.replicas = replicas;
  return s.SubmitJob(1, specs, JobTenancy{queue, user});
}

uint32_t Leaf(const Scheduler& s, std::string_view name) {
  return *s.sharing()->tree().Find(name);
}

// The guarantee grace of Make's cores: one mean local task time, 1 / alpha.
const double kGrace = 1 / PolicyParams{}.alpha;

// Fills every free slot; returns the starts.
std::vector<Assignment> Fill(Scheduler& s) {
  std::vector<Assignment> out;
  for (MachineId m = 0; m < s.cluster().num_machines(); ++m)
    while (std::optional<Assignment> a = s.Assign(m)) out.push_back(*a);
  return out;
}

uint32_t CountIn(const Scheduler& s, const std::vector<Assignment>& starts, uint32_t leaf) {
  return static_cast<uint32_t>(std::count_if(starts.begin(), starts.end(), [&](const auto& a) {
    return s.cluster().job(a.job).queue == leaf;
  }));
}

TEST_CASE("queue sharing: without a tree the core has no sharing layer") {
  Scheduler s(PolicyParams{});
  CHECK(s.sharing() == nullptr);
  CHECK(s.InternUser("") == kNoId);
  const uint32_t bob = s.InternUser("bob");
  CHECK(s.InternUser("bob") == bob);
  CHECK(s.UserName(bob) == "bob");
  CHECK(s.UserName(kNoId).empty());
}

TEST_CASE("queue sharing: free slots go to the lowest used / guaranteed first") {
  auto s = Make(Tree({Q("a", 75), Q("b", 25)}), PolicyKind::kFifo, 1, 8);
  const uint32_t a = Leaf(*s, "a"), b = Leaf(*s, "b");
  Submit(*s, b, 20, {0});
  Submit(*s, a, 20, {0});
  s->SetNow(kGrace);  // both have been below their guarantees for the grace: both owed
  const std::vector<Assignment> starts = Fill(*s);
  CHECK(CountIn(*s, starts, a) == 6);
  CHECK(CountIn(*s, starts, b) == 2);
  CHECK(s->sharing()->Usage(a).running_tasks == 6);
  CHECK(s->sharing()->Usage(0).running_tasks == 8);
  CHECK(s->sharing()->Usage(a).share() == Approx(0.75));
}

TEST_CASE("queue sharing: within the guarantee grace, slots follow the cluster's job order") {
  auto s = Make(Tree({Q("a", 75), Q("b", 25)}), PolicyKind::kLateBinding, 1, 8);
  const uint32_t a = Leaf(*s, "a"), b = Leaf(*s, "b");
  const JobId big = Submit(*s, a, 20, {0});
  const JobId small = Submit(*s, b, 3, {0});
  s->SetNow(kGrace / 2);  // a is below its 6 slots, but not yet for the grace
  std::vector<Assignment> starts;
  for (int i = 0; i < 3; ++i) starts.push_back(*s->Assign(0));
  // srpt across the queues: b's 3-task job before a's 20-task one, though a is furthest
  // below its guarantee.
  for (const Assignment& x : starts) CHECK(x.job == small);
  // Past the grace, a (0 of 6 guaranteed slots) has first claim on what frees, before a
  // job shorter still in b (above its 2).
  Submit(*s, b, 2, {0});
  s->SetNow(kGrace);
  const std::optional<Assignment> next = s->Assign(0);
  REQUIRE(next);
  CHECK(next->job == big);
  CHECK(s->sharing()->Usage(a).running_tasks == 1);
  CHECK(s->sharing()->Usage(b).running_tasks == 3);
}

TEST_CASE("queue sharing: a late-binding slot takes the first local job of every queue") {
  // Each queue's own walk would serve its own first local job; the slot serves the one
  // first in the cluster's order (srpt) among them, whatever the queues' turn.
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kLateBinding, 2, 1);
  const uint32_t a = Leaf(*s, "a"), b = Leaf(*s, "b");
  Submit(*s, a, 5, {1});                        // a's only job: not local to machine 0
  const JobId a_local = Submit(*s, a, 4, {0});  // a's job local to 0
  const JobId b_local = Submit(*s, b, 2, {0});  // b's, shorter
  const std::optional<Assignment> x = s->Assign(0);
  REQUIRE(x);
  CHECK(x->job == b_local);
  CHECK(s->cluster().job(a_local).running == 0);
}

TEST_CASE("queue sharing: a task whose queue is not first says so") {
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kLateBinding, 1, 4);
  const JobId ja = Submit(*s, Leaf(*s, "a"), 4, {0});
  const JobId jb = Submit(*s, Leaf(*s, "b"), 4, {0});
  const WaitFacts facts = WaitFacts::Of(s->cluster(), 0);
  // Both queues are empty and equal: a comes first in tree order, so b waits its turn.
  const WaitInfo wb = ExplainWait(s->policy(), s->cluster(), s->cluster().job(jb).tasks[0], facts);
  CHECK(wb.reason == WaitReason::kQueueTurn);
  CHECK(wb.queue == Leaf(*s, "b"));
  const WaitInfo wa = ExplainWait(s->policy(), s->cluster(), s->cluster().job(ja).tasks[0], facts);
  CHECK(wa.reason == WaitReason::kNextHeartbeat);
}

TEST_CASE("queue sharing: fifo leaves run their jobs in arrival order") {
  QueueSpec a = Q("a", 100);
  a.order = JobOrder::kFifo;
  auto s = Make(Tree({a}), PolicyKind::kLateBinding, 1, 1);  // late binding: srpt by default
  const JobId big = Submit(*s, Leaf(*s, "a"), 3, {0});
  Submit(*s, Leaf(*s, "a"), 1, {0});
  const std::vector<Assignment> starts = Fill(*s);
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].job == big);  // srpt would start the one-task job
}

TEST_CASE("queue sharing: a leaf's Quincy sees the slots other queues' tasks free") {
  // Regression: b's Quincy solved while its holder m0 was busy (waiting 0 s costs less than
  // a remote run) and heard nothing when a's task on m0 ended, so it declined m0 until its
  // next timed re-solve; in trace mode its queue waited over 1,500 s at p99.
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kQuincy, 2, 1);
  const JobId a = Submit(*s, Leaf(*s, "a"), 1, {0});
  REQUIRE(s->Assign(0));
  const JobId b = Submit(*s, Leaf(*s, "b"), 1, {0});
  CHECK_FALSE(s->Assign(1));  // b's flow: wait for m0 rather than run remote
  s->SetNow(1);
  REQUIRE(s->Finish(s->cluster().job(a).tasks[0]).job_done);
  const std::optional<Assignment> next = s->Assign(0);
  REQUIRE(next);
  CHECK(next->job == b);
  CHECK(next->local);
}

TEST_CASE("queue sharing: a queue alone takes slots up to its maximum, never past it") {
  auto s = Make(Tree({Q("a", 20, 50), Q("b", 80)}), PolicyKind::kLateBinding, 2, 5);
  const uint32_t a = Leaf(*s, "a");
  Submit(*s, a, 30, {0, 1});
  const std::vector<Assignment> starts = Fill(*s);
  CHECK(starts.size() == 5);
  CHECK(s->sharing()->MaxSlots(a) == 5);
  // The waiting tasks say why.
  const WaitFacts facts = WaitFacts::Of(s->cluster(), 0);
  TaskId waiting = kNoId;
  for (TaskId t : s->cluster().job(starts[0].job).tasks)
    if (s->cluster().task(t).state == TaskState::kQueued) waiting = t;
  const WaitInfo why = ExplainWait(s->policy(), s->cluster(), waiting, facts);
  CHECK(why.reason == WaitReason::kQueueAtMaximum);
  CHECK(why.queue == a);
  CHECK(WaitReasonName(why.reason) == "queue_at_maximum");
}

TEST_CASE("queue sharing: a parent's maximum bounds its children") {
  auto s = Make(Tree({Q("p", 50, 50), Q("c1", 50, 100, "p"), Q("c2", 50, 100, "p"), Q("d", 50)}),
                PolicyKind::kFair, 1, 10);
  Submit(*s, Leaf(*s, "c1"), 20, {0});
  Submit(*s, Leaf(*s, "c2"), 20, {0});
  CHECK(Fill(*s).size() == 5);
  CHECK(s->sharing()->Usage(Leaf(*s, "p")).running_tasks == 5);
}

TEST_CASE("queue sharing: max_running_jobs holds later jobs until earlier ones finish") {
  QueueSpec a = Q("a", 100);
  a.max_running_jobs = 1;
  auto s = Make(Tree({a}), PolicyKind::kLateBinding, 1, 4);
  const uint32_t leaf = Leaf(*s, "a");
  const JobId first = Submit(*s, leaf, 1, {0});
  const JobId second = Submit(*s, leaf, 1, {0});
  CHECK(s->sharing()->Held(second));
  CHECK_FALSE(s->sharing()->Held(first));
  CHECK(s->sharing()->Usage(leaf).held_jobs == 1);
  CHECK(s->sharing()->Usage(leaf).pending_tasks == 2);
  std::vector<Assignment> starts = Fill(*s);
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].job == first);
  const TaskId held_task = s->cluster().job(second).tasks[0];
  const WaitInfo why =
      ExplainWait(s->policy(), s->cluster(), held_task, WaitFacts::Of(s->cluster(), 0));
  CHECK(why.reason == WaitReason::kHeldByJobLimit);
  CHECK(s->Finish(starts[0].task).job_done);
  CHECK_FALSE(s->sharing()->Held(second));
  starts = Fill(*s);
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].job == second);
}

TEST_CASE("queue sharing: a user at its limit has further jobs held") {
  QueueSpec a = Q("a", 100);
  a.user_limit = 50;  // 2 of 4 slots
  auto s = Make(Tree({a}), PolicyKind::kFair, 1, 4);
  const uint32_t leaf = Leaf(*s, "a");
  const uint32_t bob = s->InternUser("bob"), ann = s->InternUser("ann");
  Submit(*s, leaf, 2, {0}, bob);
  const JobId bob2 = Submit(*s, leaf, 2, {0}, bob);
  const JobId ann1 = Submit(*s, leaf, 1, {0}, ann);
  CHECK(s->sharing()->Held(bob2));
  CHECK_FALSE(s->sharing()->Held(ann1));
  CHECK(s->sharing()->Usage(leaf).users == 2);
  const WaitInfo why = ExplainWait(s->policy(), s->cluster(), s->cluster().job(bob2).tasks[0],
                                   WaitFacts::Of(s->cluster(), 0));
  CHECK(why.reason == WaitReason::kHeldByUserLimit);
  std::vector<Assignment> starts = Fill(*s);
  CHECK(starts.size() == 3);
  // One of bob's tasks ends: his load drops below the limit and his next job is admitted.
  for (const Assignment& x : starts)
    if (s->cluster().job(x.job).user == bob) {
      s->Finish(x.task);
      break;
    }
  CHECK_FALSE(s->sharing()->Held(bob2));
}

TEST_CASE("queue sharing: reconfigure keeps jobs, refuses dropping a busy leaf, keeps orphans") {
  auto s = Make(Tree({Q("a", 50), Q("b", 50)}), PolicyKind::kLateBinding, 1, 4);
  const JobId j = Submit(*s, Leaf(*s, "b"), 3, {0});
  QueueSharing& qs = *s->sharing();
  // Dropping b while it holds a job is refused; the old tree stays.
  Status st = qs.Reconfigure(Tree({Q("a", 100)}), false, nullptr);
  CHECK(st.message() == "queue.b: removed while it holds 1 jobs");
  CHECK(qs.tree().Find("b").has_value());
  // b turned into a parent: refused even when orphans are kept.
  st = qs.Reconfigure(Tree({Q("a", 50), Q("b", 50), Q("b1", 100, 100, "b")}, "a"), true, nullptr);
  CHECK(st.message() == "queue.b: has child queues now while it holds 1 jobs");
  // A new order and a new sibling: the job moves with its leaf and still runs.
  QueueSpec b = Q("b", 40);
  b.order = JobOrder::kFifo;
  REQUIRE(qs.Reconfigure(Tree({Q("c", 10), Q("a", 50), b}), false, nullptr).ok());
  CHECK(s->cluster().job(j).queue == *qs.tree().Find("b"));
  CHECK(qs.Usage(*qs.tree().Find("b")).pending_tasks == 3);
  // Kept orphans: b stays as a stopped child of root until its job finishes.
  std::vector<std::string> kept;
  REQUIRE(qs.Reconfigure(Tree({Q("a", 100)}), true, &kept).ok());
  CHECK(kept == std::vector<std::string>{"b"});
  const QueueNode& orphan = qs.tree().node(*qs.tree().Find("b"));
  CHECK(orphan.spec.state == QueueState::kStopped);
  CHECK(orphan.guaranteed == 0);
  const std::vector<Assignment> starts = Fill(*s);
  CHECK(starts.size() == 3);
  for (const Assignment& x : starts) s->Finish(x.task);
  CHECK(s->cluster().live_jobs() == 0);
}

// --- Properties over random trees and workloads --------------------------------------

// A random tree of 2-5 leaves, some under a parent; shares are percentages or weights.
QueueTree RandomTree(std::mt19937_64& rng, bool limits) {
  std::uniform_real_distribution<double> u(0, 1);
  const int leaves = 2 + static_cast<int>(rng() % 4);
  std::vector<QueueSpec> queues;
  const bool nest = leaves >= 3 && u(rng) < 0.5;
  // Top level: either all leaves, or a parent holding the first two leaves.
  std::vector<std::string> top;
  if (nest) top.push_back("p");
  for (int i = nest ? 2 : 0; i < leaves; ++i) top.push_back("q" + std::to_string(i));
  auto share = [&](const std::vector<std::string>& names, const std::string& parent) {
    std::vector<double> parts(names.size());
    double sum = 0;
    for (double& x : parts) sum += (x = 0.2 + u(rng));
    const double budget = u(rng) < 0.3 ? 100 * (0.5 + u(rng) / 2) : 100;
    for (size_t i = 0; i < names.size(); ++i) {
      const double g = std::floor(budget * parts[i] / sum);
      QueueSpec q = Q(names[i], g, g + std::floor((100 - g) * u(rng)), parent);
      if (limits && u(rng) < 0.3) q.max_running_jobs = 1 + static_cast<uint32_t>(rng() % 3);
      if (limits && u(rng) < 0.3) q.user_limit = 30 + std::floor(70 * u(rng));
      if (u(rng) < 0.3) q.order = JobOrder::kFifo;
      queues.push_back(q);
    }
  };
  share(top, "root");
  if (nest) share({"q0", "q1"}, "p");
  return Tree(queues, "q" + std::to_string(leaves - 1));
}

struct Workload {
  uint32_t machines = 1;
  uint32_t slots = 16;
  uint32_t jobs = 150;
  uint32_t max_duration = 6;  // task durations are 1..max_duration seconds
  bool spread_replicas = false;
};

// Drives a core over a random workload in 1 s steps, checking the properties as it goes.
void RunProperties(PolicyKind kind, uint64_t seed, const Workload& w, bool limits,
                   bool check_guarantee) {
  std::mt19937_64 rng(seed);
  auto s = Make(RandomTree(rng, limits), kind, w.machines, w.slots, seed);
  QueueSharing& qs = *s->sharing();
  const QueueTree& tree = qs.tree();
  const std::vector<uint32_t> leaves(tree.leaves().begin(), tree.leaves().end());
  std::map<JobId, std::vector<int>> starts;  // live job -> starts per task position
  uint32_t submitted = 0, finished_jobs = 0;
  using End = std::pair<uint32_t, TaskId>;
  std::priority_queue<End, std::vector<End>, std::greater<>> ends;
  std::vector<uint32_t> deficit_since(tree.size(), UINT32_MAX);
  const uint32_t users[3] = {s->InternUser("u0"), s->InternUser("u1"), s->InternUser("u2")};
  const uint32_t tolerance = tree.size() - 1;  // rounding: one slot per queue below root
  for (uint32_t now = 0; finished_jobs < w.jobs; ++now) {
    REQUIRE(now < 100000);
    s->SetNow(now);
    while (!ends.empty() && ends.top().first <= now) {
      const TaskId t = ends.top().second;
      ends.pop();
      const JobId j = s->cluster().task(t).job;
      const Completion c = s->Finish(t);
      if (c.job_done) {
        for (int n : starts[j]) REQUIRE(n == 1);  // every task ran exactly once
        starts.erase(j);
        ++finished_jobs;
      }
    }
    // Bursty arrivals, above the cluster's capacity, into random leaves.
    const uint32_t arrivals = submitted < w.jobs && now % 3 == 0 ? 1 + rng() % 4 : 0;
    for (uint32_t i = 0; i < arrivals && submitted < w.jobs; ++i, ++submitted) {
      const uint32_t tasks = 1 + static_cast<uint32_t>(rng() % 12);
      std::vector<MachineId> replicas{static_cast<MachineId>(rng() % w.machines)};
      if (w.spread_replicas && w.machines > 1)
        replicas.push_back((replicas[0] + 1 + rng() % (w.machines - 1)) % w.machines);
      const JobId j = Submit(*s, leaves[rng() % leaves.size()], tasks, replicas, users[rng() % 3]);
      starts[j].assign(tasks, 0);
    }
    for (MachineId m = 0; m < w.machines; ++m) {
      while (std::optional<Assignment> a = s->Assign(m)) {
        const Task& task = s->cluster().task(a->task);
        ++starts[a->job][task.position];
        ends.emplace(now + 1 + static_cast<uint32_t>(rng() % w.max_duration), a->task);
        REQUIRE_FALSE(qs.Held(a->job));
        // No start takes a queue, or any ancestor, above its maximum.
        for (uint32_t q = s->cluster().job(a->job).queue; q != UINT32_MAX; q = tree.node(q).parent)
          REQUIRE(qs.Usage(q).running_tasks <= qs.MaxSlots(q));
      }
    }
    if (!check_guarantee) continue;
    // A leaf with demand below min(demand, guarantee) must close the gap within the
    // guarantee grace and then one turnover of the running tasks (the longest task), give
    // or take rounding.
    const uint32_t capacity = w.machines * w.slots;
    for (uint32_t q : leaves) {
      const QueueUsage u = qs.Usage(q);
      uint32_t held_pending = 0;
      for (const auto& [j, v] : starts)
        if (qs.Held(j) && s->cluster().job(j).queue == q)
          held_pending += s->cluster().job(j).queued;
      const uint32_t demand = u.running_tasks + u.pending_tasks - held_pending;
      const double target =
          std::min<double>(demand, std::floor(tree.node(q).guaranteed * capacity));
      if (u.running_tasks + tolerance >= target) {
        deficit_since[q] = UINT32_MAX;
        continue;
      }
      if (deficit_since[q] == UINT32_MAX) deficit_since[q] = now;
      INFO("queue " << tree.node(q).spec.name << " holds " << u.running_tasks << " of " << target
                    << " since " << deficit_since[q] << ", now " << now);
      REQUIRE(now - deficit_since[q] <= std::ceil(kGrace) + w.max_duration + 1);
    }
  }
  CHECK(starts.empty());
  CHECK(s->queued() == 0);
  CHECK(s->running() == 0);
  CHECK(qs.Usage(0).running_jobs == 0);
  CHECK(qs.Usage(0).held_jobs == 0);
}

const PolicyKind kAllPolicies[] = {PolicyKind::kLateBinding,
                                   PolicyKind::kDelay,
                                   PolicyKind::kFair,
                                   PolicyKind::kFifo,
                                   PolicyKind::kJsqMaxWeight,
                                   PolicyKind::kBalancedPandas,
                                   PolicyKind::kCapacityScheduler,
                                   PolicyKind::kFairScheduler};

TEST_CASE("queue sharing property: one machine, every policy: maximums, guarantees, no loss") {
  for (PolicyKind kind : kAllPolicies)
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      INFO(PolicyKindName(kind) << " seed " << seed);
      RunProperties(kind, seed, Workload{}, false, true);
    }
}

TEST_CASE("queue sharing property: limits hold jobs, and held jobs all run") {
  for (PolicyKind kind : kAllPolicies)
    for (uint64_t seed = 100; seed <= 108; ++seed) {
      INFO(PolicyKindName(kind) << " seed " << seed);
      RunProperties(kind, seed, Workload{}, true, true);
    }
}

TEST_CASE("queue sharing property: many machines, spread replicas: maximums and no loss") {
  Workload w;
  w.machines = 6;
  w.slots = 2;
  w.spread_replicas = true;
  for (PolicyKind kind : kAllPolicies)
    for (uint64_t seed = 200; seed <= 208; ++seed) {
      INFO(PolicyKindName(kind) << " seed " << seed);
      RunProperties(kind, seed, w, true, false);
    }
}

}  // namespace
}  // namespace locsched
