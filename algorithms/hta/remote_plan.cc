#include "algorithms/hta/remote_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/core/late_binding.h"
#include "algorithms/hta/bal_assign.h"
#include "algorithms/hta/max_cover.h"

namespace locsched {
namespace {

bool Usable(const Machine& m) {
  return m.up && !m.draining;
}

// Per machine: the work ahead of a job's tasks there (`own`: its queued tasks per holder), in local
// tasks per slot (rounded up).
std::vector<int> BaseLoads(const Scheduler& sched, const std::vector<uint32_t>& own,
                           double replication) {
  const Cluster& c = sched.cluster();
  std::vector<int> base(c.num_machines(), 0);
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    const Machine& machine = c.machine(m);
    if (!Usable(machine)) continue;
    const double others =
        static_cast<double>(sched.policy().LocalQueueLength(m)) - static_cast<double>(own[m]);
    const double work = machine.running + std::max(0.0, others) / replication;
    base[m] = static_cast<int>(std::ceil(work / machine.slots));
  }
  return base;
}

}  // namespace

RemotePlan PlanRemoteRuns(const Scheduler& sched, JobId j, const HtaCosts& costs) {
  const Cluster& c = sched.cluster();
  RemotePlan plan;
  std::vector<TaskId> tasks;
  std::vector<uint32_t> own(c.num_machines(), 0);
  double replicas = 0;
  for (const TaskId t : c.job(j).tasks) {
    if (t == kNoId || c.task(t).state != TaskState::kQueued) continue;
    tasks.push_back(t);
    for (const MachineId m : c.task(t).replicas) ++own[m];
    replicas += c.task(t).replicas.size();
  }
  plan.tasks = tasks.size();
  if (tasks.empty()) return plan;
  const std::vector<int> base =
      BaseLoads(sched, own, std::max(1.0, replicas / static_cast<double>(tasks.size())));
  MaxCover cover(static_cast<int>(c.num_machines()), 1);
  // Holders' bases: below the least no task is covered (every tau gives the same
  // assignment), below the largest raising tau may add no flow.
  int least = std::numeric_limits<int>::max(), top = 0;
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    cover.SetServerUp(static_cast<int>(m), Usable(c.machine(m)));
    cover.SetBase(static_cast<int>(m), base[m]);
    if (own[m] == 0 || !Usable(c.machine(m))) continue;
    least = std::min(least, base[m]);
    top = std::max(top, base[m]);
  }
  std::vector<int> replica_ids;
  for (const TaskId t : tasks) {
    replica_ids.assign(c.task(t).replicas.begin(), c.task(t).replicas.end());
    cover.AddTask(replica_ids);
  }
  // Algorithm 2 from the least holder's base (or 1), except that a tau adding no flow
  // ends the walk only above every holder's base (below, the next may open a loaded one).
  BalResult best;
  best.max_load = std::numeric_limits<double>::infinity();
  const int first = least == std::numeric_limits<int>::max() ? 1 : std::max(1, least);
  for (int tau = first; tau * costs.w_loc < best.max_load; ++tau) {
    cover.SetTau(tau);
    const int added = cover.Augment();
    if (tau > top + 1 && added == 0) break;
    BalResult b = BalAssign(cover, costs);
    if (b.max_load < best.max_load) {
      best = std::move(b);
      plan.tau = tau;
    }
  }
  plan.max_load = best.max_load;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const int s = best.server[i];
    if (s == MaxCover::kNone) continue;
    if (c.task(tasks[i]).IsLocalTo(static_cast<MachineId>(s)))
      ++plan.local;
    else
      plan.remote.push_back(tasks[i]);
  }
  return plan;
}

PermitRun GrantRemotePermits(Scheduler& sched, uint64_t min_tasks, const HtaCosts& costs) {
  auto& policy = static_cast<LateBinding&>(sched.policy());
  policy.permits().Clear();
  const Cluster& c = sched.cluster();
  PermitRun run;
  for (JobId j = 0; j < c.job_capacity(); ++j) {
    const Job& job = c.job(j);
    if (!job.alive || job.queued == 0 || job.tasks.size() < min_tasks) continue;
    const RemotePlan plan = PlanRemoteRuns(sched, j, costs);
    ++run.jobs;
    run.tasks += plan.tasks;
    for (const TaskId t : plan.remote) {
      policy.permits().Grant(c, t);
      ++run.granted;
    }
  }
  return run;
}

}  // namespace locsched
