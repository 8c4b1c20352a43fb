// Tests YarnPolicy (algorithms/core/yarn_policy.h), the leaf policy of capacity-scheduler and
// fair-scheduler, through the Scheduler: jobs pass their missed opportunities, then run
// rack-local, then off-rack, by each model's count; FIFO and fair order inside a leaf; and,
// through QueueSharing, each model's queue order (used / guaranteed; usage / fair share
// among the active queues).
#include "algorithms/core/yarn_policy.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/queue_sharing.h"
#include "algorithms/core/scheduler.h"
#include "tests/algorithms/core/queue_fixtures.h"

namespace locsched {
namespace {

// Two racks of two one-slot machines: 0 and 1 in rack 0, 2 and 3 in rack 1.
constexpr uint32_t kMachines = 4;

std::unique_ptr<Scheduler> Make(const PolicyParams& p, std::optional<QueueTree> tree = {}) {
  auto s = std::make_unique<Scheduler>(p, std::move(tree));
  for (uint32_t m = 0; m < kMachines; ++m) {
    Machine machine;
    machine.rack = m / 2;
    s->AddMachine(machine);
  }
  return s;
}

PolicyParams Capacity(uint32_t node_delay, int32_t rack_delay) {
  PolicyParams p;
  p.kind = PolicyKind::kCapacityScheduler;
  p.job_order = DefaultJobOrder(p.kind);
  p.node_locality_delay = node_delay;
  p.rack_locality_delay = rack_delay;
  return p;
}

PolicyParams Fair(double threshold_node, double threshold_rack) {
  PolicyParams p;
  p.kind = PolicyKind::kFairScheduler;
  p.job_order = DefaultJobOrder(p.kind);
  p.locality_threshold_node = threshold_node;
  p.locality_threshold_rack = threshold_rack;
  return p;
}

JobId Submit(Scheduler& s, uint32_t tasks, std::vector<MachineId> replicas,
             uint32_t queue = kNoId) {
  std::vector<TaskSpec> specs(tasks);
  for (TaskSpec& t : specs) t.replicas = replicas;
  return s.SubmitJob(1, specs, JobTenancy{queue, kNoId});
}

// Offers machine m's free slot until a task starts there; returns the offers it took
// (the declined ones, then the start), or 0 if none started within `limit`.
uint32_t OffersUntilStart(Scheduler& s, MachineId m, uint32_t limit = 1000) {
  for (uint32_t offer = 1; offer <= limit; ++offer)
    if (s.Assign(m)) return offer;
  return 0;
}

const YarnPolicy& Yarn(const Scheduler& s) {
  return dynamic_cast<const YarnPolicy&>(s.policy());
}

TEST_CASE("capacity-scheduler: node-locality-delay opportunities, then rack-local") {
  const uint32_t delay = GENERATE(0u, 1u, 3u);
  auto s = Make(Capacity(delay, 2));
  const JobId j = Submit(*s, 2, {0});
  // Machine 1 shares machine 0's rack: the job declines `delay` offers, then runs there.
  CHECK(OffersUntilStart(*s, 1) == delay + 1);
  CHECK(s->cluster().task(s->cluster().job(j).tasks[0]).machine == 1);
  CHECK(Yarn(*s).Missed(j) == 0);  // a rack-local start resets the count
}

TEST_CASE("capacity-scheduler: rack-locality-additional-delay further, then off-rack") {
  const uint32_t node = GENERATE(0u, 2u);
  const int32_t rack = GENERATE(0, 1);
  auto s = Make(Capacity(node, rack));
  const JobId j = Submit(*s, 2, {0});
  // Machine 2 is in the other rack: node + rack declined offers, then off-rack.
  CHECK(OffersUntilStart(*s, 2) == node + static_cast<uint32_t>(rack) + 1);
  // An off-rack start keeps the count (YARN resets it only for node- and rack-local ones).
  CHECK(Yarn(*s).Missed(j) == node + static_cast<uint32_t>(rack) + 1);
  // A local start resets it.
  REQUIRE(s->Assign(0));
  CHECK(Yarn(*s).Missed(j) == 0);
}

TEST_CASE("capacity-scheduler: the delays are capped at the cluster's machines") {
  auto s = Make(Capacity(40, 40));
  Submit(*s, 1, {0});
  CHECK(OffersUntilStart(*s, 1) == kMachines + 1);
}

TEST_CASE("capacity-scheduler: rack-locality-additional-delay -1 derives YARN's off-rack delay") {
  // Off-rack once missed > min(machines, queued x min(1, locations / machines)); a replica on
  // machine 0 is 3 locations: the machine, its rack and ANY. A job of few tasks goes
  // off-rack before node-locality-delay would let it run rack-local, as in YARN.
  const uint32_t tasks = GENERATE(1u, 2u, 4u, 8u);
  auto s = Make(Capacity(100, -1));
  Submit(*s, tasks, {0});
  const double after = std::min<double>(kMachines, tasks * 3.0 / kMachines);
  CHECK(OffersUntilStart(*s, 2) == static_cast<uint32_t>(std::floor(after)) + 1);
}

TEST_CASE("capacity-scheduler: FIFO inside a leaf, and a job that declines passes the slot on") {
  auto s = Make(Capacity(5, 5));
  const JobId old_job = Submit(*s, 1, {0});
  const JobId new_job = Submit(*s, 1, {1});
  const std::optional<Assignment> a = s->Assign(1);
  REQUIRE(a);
  CHECK(a->job == new_job);              // the older job declined machine 1 ...
  CHECK(Yarn(*s).Missed(old_job) == 1);  // ... and counted the opportunity
  const JobId third = Submit(*s, 1, {0});
  CHECK(s->Assign(0)->job == old_job);  // both local to machine 0: the older first
  CHECK(Yarn(*s).Missed(third) == 0);   // the walk stopped before it
}

TEST_CASE("capacity-scheduler: a job of tasks without a location runs anywhere at once") {
  auto s = Make(Capacity(40, 40));
  Submit(*s, 1, {});
  CHECK(OffersUntilStart(*s, 3) == 1);
}

TEST_CASE("fair-scheduler: thresholds as fractions of the machines, each level counted afresh") {
  const double node = GENERATE(0.0, 0.25, 0.5);
  const double rack = GENERATE(0.0, 0.5);
  const auto n1 = static_cast<uint32_t>(std::floor(node * kMachines));
  const auto n2 = static_cast<uint32_t>(std::floor(rack * kMachines));
  {
    auto s = Make(Fair(node, rack));
    Submit(*s, 2, {0});
    CHECK(OffersUntilStart(*s, 1) == n1 + 1);  // rack-local once past the node threshold
  }
  auto s = Make(Fair(node, rack));
  const JobId j = Submit(*s, 2, {0});
  // Off-rack: the level moves to rack on offer n1 + 1 (count reset), to off-rack n2 + 1 later.
  CHECK(OffersUntilStart(*s, 2) == n1 + 1 + n2 + 1);
  CHECK(Yarn(*s).Missed(j) == 0);  // fair-scheduler resets the count on every start
  CHECK(Yarn(*s).Allowed(j).any);  // and stays off-rack after an off-rack start
}

TEST_CASE("fair-scheduler: a negative threshold turns delay scheduling off") {
  const double node = GENERATE(-1.0, 0.5);
  const double rack = node < 0 ? 0.5 : -1.0;
  auto s = Make(Fair(node, rack));
  Submit(*s, 1, {0});
  CHECK(OffersUntilStart(*s, 2) == 1);
}

TEST_CASE("fair-scheduler: fewest running first inside a leaf") {
  auto s = Make(Fair(-1, -1));
  const JobId a = Submit(*s, 3, {0});
  const JobId b = Submit(*s, 3, {1});
  CHECK(s->Assign(2)->job == a);  // both at 0 running: the older
  CHECK(s->Assign(3)->job == b);  // a runs 1, b 0
}

using test::Q;
using test::Tree;

// One machine of `slots` slots holding every task's input, filled at time 0.
std::vector<uint32_t> FillOneMachine(const PolicyParams& p, QueueTree tree,
                                     const std::vector<std::string>& busy, uint32_t slots,
                                     std::unique_ptr<Scheduler>* out) {
  auto s = std::make_unique<Scheduler>(p, std::move(tree));
  Machine machine;
  machine.slots = slots;
  s->AddMachine(machine);
  for (const std::string& q : busy) Submit(*s, 2 * slots, {0}, *s->sharing()->tree().Find(q));
  s->SetNow(0);
  std::vector<uint32_t> running(s->sharing()->tree().size(), 0);
  while (const std::optional<Assignment> a = s->Assign(0))
    ++running[s->cluster().job(a->job).queue];
  *out = std::move(s);
  return running;
}

TEST_CASE("capacity-scheduler: slots go to the lowest used / guaranteed, with no grace") {
  const uint32_t slots = GENERATE(4u, 8u, 20u);
  std::unique_ptr<Scheduler> s;
  const std::vector<uint32_t> running =
      FillOneMachine(Capacity(0, 0), Tree({Q("a", 75), Q("b", 25)}), {"a", "b"}, slots, &s);
  const QueueTree& t = s->sharing()->tree();
  for (const char* name : {"a", "b"}) {
    const uint32_t q = *t.Find(name);
    INFO(name << " with " << slots << " slots");
    // At time 0 (the default order would still be in its guarantee grace), each queue holds
    // its guarantee to within a slot.
    CHECK(std::fabs(running[q] - t.node(q).guaranteed * slots) < 1);
  }
}

TEST_CASE("fair-scheduler: the fair share is divided among the active queues by weight") {
  const uint32_t slots = GENERATE(8u, 16u);
  std::unique_ptr<Scheduler> s;
  const std::vector<uint32_t> running = FillOneMachine(
      Fair(-1, -1), Tree({Q("a", 50), Q("b", 30), Q("c", 20)}), {"a", "b"}, slots, &s);
  const QueueTree& t = s->sharing()->tree();
  const uint32_t a = *t.Find("a"), b = *t.Find("b"), c = *t.Find("c");
  CHECK(s->sharing()->FairShare(c) == 0);  // no work: not active
  const double weights = t.node(a).guaranteed + t.node(b).guaranteed;
  CHECK(s->sharing()->FairShare(a) == Approx(slots * t.node(a).guaranteed / weights));
  for (uint32_t q : {a, b}) CHECK(std::fabs(running[q] - s->sharing()->FairShare(q)) < 1);
  // c becomes active: the shares are divided three ways.
  Submit(*s, 1, {0}, c);
  CHECK(s->sharing()->FairShare(c) == Approx(slots * t.node(c).guaranteed));
  CHECK(s->sharing()->FairShare(a) == Approx(slots * t.node(a).guaranteed));
}

TEST_CASE("capacity-scheduler: a slot preemption frees goes to the starved queue, off-holder") {
  // a runs both slots; b's one task is held only by machine 0. Preempting a's task on machine
  // 1 keeps that slot for b (QueueSharing::KeepSlot): b runs there at once, though its count
  // would have it decline the offer (both delays 40, capped at the 2 machines).
  PolicyParams p = Capacity(40, 40);
  Scheduler s(p, Tree({Q("a", 50), Q("b", 50)}));
  for (int m = 0; m < 2; ++m) s.AddMachine(Machine{});
  const uint32_t a = *s.sharing()->tree().Find("a"), b = *s.sharing()->tree().Find("b");
  s.SetNow(0);
  Submit(s, 2, {0, 1}, a);
  REQUIRE(s.Assign(0));
  const std::optional<Assignment> on1 = s.Assign(1);
  REQUIRE(on1);
  const JobId starved = Submit(s, 1, {0}, b);
  s.SetNow(10);  // past the guarantee grace: b is owed
  REQUIRE(s.sharing()->Owed(b));
  s.Preempt(on1->task);
  const std::optional<Assignment> next = s.Assign(1);
  REQUIRE(next);
  CHECK(next->job == starved);
  CHECK_FALSE(next->local);
  // Without the kept slot b declines machine 1 and a takes it back, local.
  Scheduler t(p, Tree({Q("a", 50), Q("b", 50)}));
  for (int m = 0; m < 2; ++m) t.AddMachine(Machine{});
  t.SetNow(0);
  Submit(t, 2, {0, 1}, a);
  REQUIRE(t.Assign(0));
  const std::optional<Assignment> again = t.Assign(1);
  REQUIRE(again);
  Submit(t, 1, {0}, b);
  t.SetNow(10);
  t.Requeue(again->task);  // a failure, not a preemption: no slot kept
  const std::optional<Assignment> back = t.Assign(1);
  REQUIRE(back);
  CHECK(back->job == again->job);
}

}  // namespace
}  // namespace locsched
