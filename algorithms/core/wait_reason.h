// WaitReason: why a task that is not running waits, as the policy that holds it
// sees it. ExplainWait answers for any task; for a queued one it asks the
// policy (Policy::Explain), which reads the same state and the same rules its
// PickFor decides by, so the answer cannot drift from the decision. Read by the
// daemon's `job` view; pure and single-threaded, like the rest of the core.
#pragma once

#include <cstdint>
#include <string_view>

#include "algorithms/core/cluster.h"

namespace locsched {

class Policy;

/// Why a task waits, in the order ExplainWait considers them.
enum class WaitReason : uint8_t {
  kBlockedByMaps,  ///< a reduce: its job's maps are not all done
  kNoLiveHolder,   ///< no holder is up and undrained; only a run off its holders can start it
  kHoldersBusy,    ///< every live holder's slots are busy (and no other machine may take it now)
  kRemoteRule,     ///< holders busy, a machine free, but the locality rule keeps it for its holders
  kBehindJobs,  ///< machines that may start it have free slots; the job order serves others first
  kNextHeartbeat,    ///< a machine that starts it has a free slot: it starts on that machine's
                     ///< heartbeat
  kNoFreeSlot,       ///< every slot of every usable machine is busy
  kQueueAtMaximum,   ///< its tenant queue, or a parent of it, runs at its maximum share
  kHeldByJobLimit,   ///< its job waits for its queue's running-job limit (max_running_jobs)
  kHeldByUserLimit,  ///< its job waits while its user holds the queue's per-user limit
  kQueueTurn,        ///< a free slot goes to other tenant queues first (lower used / guaranteed)
};

/// What ExplainWait found. Fields that do not apply keep their defaults.
struct WaitInfo {
  WaitReason reason = WaitReason::kNoFreeSlot;
  /// kNextHeartbeat: the machine; it holds a replica unless `remote`.
  MachineId machine = kNoId;
  bool remote = false;  ///< kNextHeartbeat: the start is off the task's holders
  /// Runnable jobs before the task's job in the policy's order (capped at kMaxJobsAhead).
  uint32_t jobs_ahead = 0;
  /// A timed locality rule (delay scheduling): seconds until the job may run off its
  /// holders; < 0 when the rule is not a timer or does not hold the task back.
  double remote_in_s = -1;
  /// The locality threshold, seconds (delay: the wait W; late binding: 1/gamma - 1/alpha); < 0
  /// if the policy has none.
  double remote_wait_s = -1;
  /// Late binding: the expected wait for a holder's slot, seconds (the rule compares it with
  /// remote_wait_s); < 0 if not estimated.
  double expected_wait_s = -1;
  /// Late binding: its job is one the rule offers a run off its holders (the order's last,
  /// or the job waiting longest).
  bool offered_off = false;
  /// Tenant queues: the queue the reason names (its leaf, or the parent at its maximum);
  /// kNoId without tenancy.
  uint32_t queue = kNoId;
};

/// Most jobs counted in WaitInfo::jobs_ahead.
inline constexpr uint32_t kMaxJobsAhead = 1000;

/// A task's replica holders as a free slot would find them.
struct HolderSlots {
  uint32_t live = 0;                 ///< holders up and not draining
  uint32_t free = 0;                 ///< free slots on live holders
  MachineId free_holder = kNoId;     ///< the live holder with the most free slots (kNoId: none)
  uint32_t free_on_free_holder = 0;  ///< its free slots
};

/// Facts every task of a view shares, gathered once (ExplainWait reads them).
struct WaitFacts {
  MachineId free_machine = kNoId;  ///< a machine up, undrained, with a free slot (kNoId: none)
  double now = 0;                  ///< the driver's clock now (Policy::SetNow's unit)
  /// What a policy found of one job, kept while it explains that job's tasks (a view lists
  /// one job's tasks together, so each costs O(replicas) rather than a walk of the order).
  struct JobMemo {
    JobId job = kNoId;        ///< the job these answers are for (kNoId: none yet)
    uint32_t jobs_ahead = 0;  ///< Policy::JobsAhead(job, kMaxJobsAhead)
    JobId oldest = kNoId;     ///< late binding: the job waiting longest
  };
  mutable JobMemo memo;  ///< scratch of Policy::Explain; the facts themselves never change
  /// Gathers the facts of `cluster` at time `now`.
  static WaitFacts Of(const Cluster& cluster, double now);
};

/// Free slots of machine m for new work (0 when down or draining).
uint32_t FreeSlots(const Machine& m);
/// Task t's holders' slots.
HolderSlots HoldersOf(const Cluster& cluster, TaskId t);
/// A task that waits for its holders: a live one with a free slot starts it on its next
/// heartbeat; none live, or all busy, is the reason (Policy::Explain's default).
WaitInfo HolderWait(const Cluster& cluster, TaskId t);
/// Why task t (blocked or queued) waits; `policy` must hold cluster's queued tasks.
WaitInfo ExplainWait(const Policy& policy, const Cluster& cluster, TaskId t,
                     const WaitFacts& facts);
/// The wire name of a reason ("holders_busy").
std::string_view WaitReasonName(WaitReason r);

}  // namespace locsched
