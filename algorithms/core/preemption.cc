#include "algorithms/core/preemption.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "algorithms/core/queue_sharing.h"
#include "algorithms/core/scheduler.h"
#include "algorithms/core/wait_reason.h"

namespace locsched {
namespace {

// Queue q's guarantee in usable slots (fractional).
double GuaranteeSlots(const QueueSharing& qs, uint32_t q) {
  return qs.tree().node(q).guaranteed * static_cast<double>(qs.Usage(q).slots);
}

// Queue q's guarantee in whole slots: floor(guaranteed x usable slots). The leaves' add up
// to at most the cluster, so preemption can always bring a starved leaf to its own.
uint32_t WholeSlots(const QueueSharing& qs, uint32_t q) {
  return static_cast<uint32_t>(std::floor(GuaranteeSlots(qs, q) + 1e-9));
}

// Per queue: how many running tasks it can lose and keep its guarantee in whole slots (0
// for root, whose guarantee is the whole cluster and which no preemption shrinks).
std::vector<uint32_t> Headroom(const QueueSharing& qs) {
  std::vector<uint32_t> room(qs.tree().size(), 0);
  for (uint32_t q = 1; q < room.size(); ++q) {
    const double floor_slots = WholeSlots(qs, q);
    const double running = qs.Usage(q).running_tasks;
    room[q] = running > floor_slots ? static_cast<uint32_t>(running - floor_slots) : 0;
  }
  return room;
}

// The free slots to keep for the starved queues, up to `deficit`; *covered: how many free
// slots count against it, those kept earlier (already on their way) and these.
std::vector<MachineId> KeepFree(const QueueSharing& qs, const Cluster& cluster, uint64_t deficit,
                                uint64_t* covered) {
  *covered = 0;
  for (MachineId m = 0; m < cluster.num_machines(); ++m)
    *covered += std::min(FreeSlots(cluster.machine(m)), qs.Kept(m));
  std::vector<MachineId> keep;
  for (MachineId m = 0; m < cluster.num_machines() && *covered < deficit; ++m) {
    const uint32_t free = FreeSlots(cluster.machine(m));
    for (uint32_t n = qs.Kept(m); n < free && *covered < deficit; ++n, ++*covered)
      keep.push_back(m);
  }
  return keep;
}

// The running tasks of jobs in leaves with headroom, as (start time, task id), latest
// start first, ties by lower task id.
std::vector<std::pair<double, TaskId>> Candidates(const Scheduler& s,
                                                  const std::vector<uint32_t>& room) {
  const Cluster& cluster = s.cluster();
  std::vector<std::pair<double, TaskId>> out;
  for (JobId j = 0; j < cluster.job_capacity(); ++j) {
    const Job& job = cluster.job(j);
    if (!job.alive || job.running == 0 || job.queue >= room.size() || room[job.queue] == 0)
      continue;
    for (TaskId t : job.tasks)
      if (cluster.task(t).state == TaskState::kRunning) out.emplace_back(s.started_s(t), t);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  return out;
}

// True if taking one task from leaf q leaves q and every ancestor below root at or above
// its guarantee; if so, counts it.
bool Take(const QueueSharing& qs, uint32_t q, std::vector<uint32_t>& room) {
  const QueueTree& tree = qs.tree();
  for (uint32_t at = q; at != 0 && at != UINT32_MAX; at = tree.node(at).parent)
    if (room[at] == 0) return false;
  for (uint32_t at = q; at != 0 && at != UINT32_MAX; at = tree.node(at).parent) --room[at];
  return true;
}

}  // namespace

std::vector<StarvedQueue> StarvedQueues(const QueueSharing& qs, double now, double timeout_s) {
  std::vector<StarvedQueue> out;
  for (uint32_t q : qs.tree().leaves()) {
    const double since = qs.BelowSince(q);
    if (since == QueueSharing::kNotBelow || now - since < timeout_s || !qs.Owed(q)) continue;
    const QueueUsage u = qs.Usage(q);
    const uint32_t demand = u.running_tasks + u.pending_tasks - u.held_tasks;
    const uint32_t target = std::min(demand, WholeSlots(qs, q));
    if (target > u.running_tasks) out.push_back(StarvedQueue{q, target - u.running_tasks});
  }
  return out;
}

PreemptionPlan PlanPreemption(const Scheduler& s, double timeout_s, double kill_wait_s) {
  const QueueSharing* qs = s.sharing();
  if (qs == nullptr) return {};
  // The starved leaves' deficits together, and those of the leaves starved kill_wait_s
  // longer (StarvedQueues at timeout_s + kill_wait_s, from the same pass).
  uint64_t deficit = 0, late = 0;
  for (const StarvedQueue& q : StarvedQueues(*qs, s.now(), timeout_s)) {
    deficit += q.deficit;
    if (s.now() - qs->BelowSince(q.queue) >= timeout_s + kill_wait_s) late += q.deficit;
  }
  if (deficit == 0) return {};
  PreemptionPlan plan;
  uint64_t covered = 0;
  plan.keep = KeepFree(*qs, s.cluster(), deficit, &covered);
  const uint64_t budget = late > covered ? late - covered : 0;
  std::vector<uint32_t> room = Headroom(*qs);
  for (const auto& [started, t] : Candidates(s, room)) {
    if (plan.victims.size() >= budget) break;
    if (Take(*qs, s.cluster().job(s.cluster().task(t).job).queue, room)) plan.victims.push_back(t);
  }
  return plan;
}

}  // namespace locsched
