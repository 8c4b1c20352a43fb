// Tests late binding's rack level: RackIndex (algorithms/core/rack_index.h) on its own,
// and LateBinding through the Scheduler preferring a task with a replica in the free
// machine's rack, under the rack-level wait 1/beta - 1/alpha.
#include "algorithms/core/rack_index.h"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "algorithms/core/late_binding.h"
#include "algorithms/core/locality.h"
#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

TEST_CASE("RackIndex lists a task once per rack of its replicas, oldest first", "[racks]") {
  Cluster c;
  for (const uint32_t rack : {0u, 0u, 1u, 1u}) c.AddMachine(Machine{rack});
  const JobId j = c.NewJob(1);
  const TaskId a = c.NewTask(j, TaskKind::kMap);
  const TaskId b = c.NewTask(j, TaskKind::kMap);
  const MachineId ra[] = {0, 2, 3};  // racks 0 and 1: listed twice, not three times
  const MachineId rb[] = {1};
  c.task(a).replicas.Assign(ra);
  c.task(b).replicas.Assign(rb);
  std::vector<uint32_t> stamps(c.task_capacity(), 1);
  RackIndex index(c);
  index.Add(a, 1);
  index.Add(b, 1);
  CHECK(index.entries() == 3);
  CHECK(index.Find(j, 0, stamps) == a);
  CHECK(index.Find(j, 1, stamps) == a);
  stamps[a] = 2;  // a left the queues: its entries are stale
  CHECK(index.Find(j, 0, stamps) == b);
  CHECK(index.Find(j, 1, stamps) == kNoId);
  CHECK(index.Find(j + 1, 0, stamps) == kNoId);
  index.DropJob(j);
  CHECK(index.entries() == 0);
  CHECK(index.Find(j, 0, stamps) == kNoId);
}

// Late binding over machines in `racks` (one slot each), alpha 0.8, beta 0.4, gamma 0.2:
// the remote wait is 1/0.2 - 1/0.8 = 3.75, the rack wait 1/0.4 - 1/0.8 = 1.25.
std::unique_ptr<Scheduler> MakeRacked(const std::vector<uint32_t>& racks) {
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.alpha = 0.8;
  p.beta = 0.4;
  p.gamma = 0.2;
  auto s = std::make_unique<Scheduler>(p);
  for (const uint32_t rack : racks) s->AddMachine(Machine{rack});
  return s;
}

JobId Submit(Scheduler& s, const std::vector<std::vector<MachineId>>& tasks) {
  std::vector<TaskSpec> specs(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) specs[i].replicas = tasks[i];
  return s.SubmitJob(1, specs);
}

TEST_CASE("Late binding runs in a holder's rack once the rack-level wait is exceeded",
          "[late][racks]") {
  const bool racks = GENERATE(false, true);
  CAPTURE(racks);
  auto owner = MakeRacked(racks ? std::vector<uint32_t>{0, 0, 1, 1} : std::vector<uint32_t>(4));
  Scheduler& s = *owner;
  auto& policy = dynamic_cast<LateBinding&>(s.policy());
  CHECK(policy.racks_in_use() == racks);
  CHECK(policy.rack_wait() == Approx(1 / 0.4 - 1 / 0.8));
  Submit(s, {{0}});
  REQUIRE(s.Assign(0));  // machine 0 busy
  // Two single-task jobs held by machine 0 only: the later, last in the order, waits
  // 2 / 0.8 = 2.5 s, past the rack wait (1.25) but short of the remote one (3.75).
  const JobId first = Submit(s, {{0}});
  const JobId j = Submit(s, {{0}});
  CHECK(policy.ExpectedLocalWait(s.cluster().job(j).tasks[0]) == Approx(2.5));
  CHECK_FALSE(s.Assign(2));    // another rack (or, without racks, anywhere): waiting is sooner
  const auto a = s.Assign(1);  // machine 0's rack
  if (!racks) {
    CHECK_FALSE(a);
    return;
  }
  REQUIRE(a);
  CHECK(a->job == j);
  CHECK_FALSE(a->local);
  CHECK(LocalityOf(s.cluster(), a->task, 1, true) == Locality::kRack);
  // The one left waits 1 / 0.8 = 1.25: off-rack (3.75) does not pay.
  CHECK(policy.ExpectedLocalWait(s.cluster().job(first).tasks[0]) == Approx(1.25));
  CHECK_FALSE(s.Assign(3));
}

TEST_CASE("Late binding prefers its longest-waiting job's rack-local task to an off-rack one",
          "[late][racks]") {
  auto owner = MakeRacked({0, 0, 1, 1});
  Scheduler& s = *owner;
  Submit(s, {{0}});
  Submit(s, {{3}});
  REQUIRE(s.Assign(0));
  REQUIRE(s.Assign(3));  // machines 0 and 3 busy
  // Five single-task jobs on machine 3 (rack 1) come first, then two on machine 0 (rack 0).
  std::vector<JobId> on3, on0;
  for (int i = 0; i < 5; ++i) on3.push_back(Submit(s, {{3}}));
  for (int i = 0; i < 2; ++i) on0.push_back(Submit(s, {{0}}));
  // The last job waits 2 / 0.8 = 2.5 for machine 0: past the rack wait, and machine 1 is in
  // machine 0's rack.
  const auto a = s.Assign(1);
  REQUIRE(a);
  CHECK(a->job == on0[1]);
  CHECK(LocalityOf(s.cluster(), a->task, 1, true) == Locality::kRack);
  // Machine 2 (rack 1): the last job now is machine 0's other one, whose 1.25 s wait does not
  // pay off-rack; the job waiting longest, the first on machine 3, runs in machine 3's rack.
  const auto b = s.Assign(2);
  REQUIRE(b);
  CHECK(b->job == on3[0]);
  CHECK(LocalityOf(s.cluster(), b->task, 2, true) == Locality::kRack);
}

}  // namespace
}  // namespace locsched
