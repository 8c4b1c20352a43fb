#include "algorithms/core/wait_reason.h"

#include "algorithms/core/policy.h"

namespace locsched {

uint32_t FreeSlots(const Machine& m) {
  return m.up && !m.draining && m.slots > m.running ? m.slots - m.running : 0;
}

WaitFacts WaitFacts::Of(const Cluster& cluster, double now) {
  WaitFacts f;
  f.now = now;
  for (MachineId m = 0; m < cluster.num_machines() && f.free_machine == kNoId; ++m)
    if (FreeSlots(cluster.machine(m)) > 0) f.free_machine = m;
  return f;
}

HolderSlots HoldersOf(const Cluster& cluster, TaskId t) {
  HolderSlots h;
  for (MachineId m : cluster.task(t).replicas) {
    const Machine& machine = cluster.machine(m);
    if (!machine.up || machine.draining) continue;
    ++h.live;
    const uint32_t free = FreeSlots(machine);
    h.free += free;
    if (free > h.free_on_free_holder) {
      h.free_holder = m;
      h.free_on_free_holder = free;
    }
  }
  return h;
}

WaitInfo HolderWait(const Cluster& cluster, TaskId t) {
  const HolderSlots h = HoldersOf(cluster, t);
  WaitInfo info;
  info.reason = h.live == 0              ? WaitReason::kNoLiveHolder
                : h.free_holder != kNoId ? WaitReason::kNextHeartbeat
                                         : WaitReason::kHoldersBusy;
  info.machine = h.free_holder;
  return info;
}

WaitInfo Policy::Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const {
  (void)facts;
  return HolderWait(cluster, t);
}

WaitInfo ExplainWait(const Policy& policy, const Cluster& cluster, TaskId t,
                     const WaitFacts& facts) {
  const Task& task = cluster.task(t);
  WaitInfo info;
  if (task.state == TaskState::kBlocked) {
    info.reason = WaitReason::kBlockedByMaps;
    return info;
  }
  return policy.Explain(cluster, t, facts);
}

std::string_view WaitReasonName(WaitReason r) {
  switch (r) {
    case WaitReason::kBlockedByMaps:
      return "blocked_by_maps";
    case WaitReason::kNoLiveHolder:
      return "no_live_holder";
    case WaitReason::kHoldersBusy:
      return "holders_busy";
    case WaitReason::kRemoteRule:
      return "remote_rule";
    case WaitReason::kBehindJobs:
      return "behind_jobs";
    case WaitReason::kNextHeartbeat:
      return "next_heartbeat";
    case WaitReason::kNoFreeSlot:
      return "no_free_slot";
    case WaitReason::kQueueAtMaximum:
      return "queue_at_maximum";
    case WaitReason::kHeldByJobLimit:
      return "held_by_job_limit";
    case WaitReason::kHeldByUserLimit:
      return "held_by_user_limit";
    case WaitReason::kQueueTurn:
      return "queue_turn";
  }
  return "no_free_slot";
}

}  // namespace locsched
