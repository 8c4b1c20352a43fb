// Tests ExplainWait (algorithms/core/wait_reason.h) on the Scheduler directly: every
// reason agrees with what the policy's next PickFor does, for late binding (the aging
// bound, srpt's order), and the holder-based default of a policy without its own rule.
#include "algorithms/core/wait_reason.h"

#include <catch2/catch.hpp>

#include <vector>

#include "algorithms/core/scheduler.h"

namespace locsched {
namespace {

JobId Submit(Scheduler& s, const std::vector<std::vector<MachineId>>& tasks) {
  std::vector<TaskSpec> specs(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) specs[i].replicas = tasks[i];
  return s.SubmitJob(1, specs);
}

WaitInfo Explain(const Scheduler& s, TaskId t) {
  return ExplainWait(s.policy(), s.cluster(), t, WaitFacts::Of(s.cluster(), s.now()));
}

TEST_CASE("ExplainWait: srpt serves the shorter job first on its holder", "[wait]") {
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.job_order = JobOrder::kSrpt;
  Scheduler s(p);
  s.AddMachine(Machine{});
  const JobId big = Submit(s, {{0}, {0}, {0}});
  const JobId small = Submit(s, {{0}});
  const WaitInfo w = Explain(s, s.cluster().job(big).tasks[0]);
  CHECK(w.reason == WaitReason::kBehindJobs);
  CHECK(w.jobs_ahead == 1);
  CHECK(Explain(s, s.cluster().job(small).tasks[0]).reason == WaitReason::kNextHeartbeat);
  const auto a = s.Assign(0);
  REQUIRE(a);
  CHECK(a->job == small);
}

TEST_CASE("ExplainWait: past the aging bound a job runs on any free machine", "[wait]") {
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.job_aging = 10;
  Scheduler s(p);
  s.AddMachine(Machine{});
  s.AddMachine(Machine{});
  Submit(s, {{0}});
  REQUIRE(s.Assign(0));
  const JobId j = Submit(s, {{0}});
  const TaskId t = s.cluster().job(j).tasks[0];
  CHECK(Explain(s, t).reason == WaitReason::kRemoteRule);
  s.SetNow(11);
  const WaitInfo w = Explain(s, t);
  CHECK(w.reason == WaitReason::kNextHeartbeat);
  CHECK(w.machine == 1);
  CHECK(w.remote);
  const auto a = s.Assign(1);
  REQUIRE(a);
  CHECK(a->task == t);
}

TEST_CASE("ExplainWait: a policy without its own rule answers from the holders", "[wait]") {
  PolicyParams p;
  p.kind = PolicyKind::kBalancedPandas;
  Scheduler s(p);
  s.AddMachine(Machine{});
  const JobId j = Submit(s, {{0}, {0}});
  CHECK(Explain(s, s.cluster().job(j).tasks[1]).reason == WaitReason::kNextHeartbeat);
  const auto a = s.Assign(0);
  REQUIRE(a);
  const TaskId t = s.cluster().job(j).tasks[a->task == s.cluster().job(j).tasks[0] ? 1 : 0];
  CHECK(Explain(s, t).reason == WaitReason::kHoldersBusy);
  s.MachineDown(0);
  CHECK(Explain(s, t).reason == WaitReason::kNoLiveHolder);
  CHECK(WaitReasonName(WaitReason::kNoLiveHolder) == "no_live_holder");
}

}  // namespace
}  // namespace locsched
