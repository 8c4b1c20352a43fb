#include "algorithms/core/yarn_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "algorithms/core/job_order.h"

namespace locsched {

YarnPolicy::YarnPolicy(const PolicyParams& params, Cluster& cluster)
    : cluster_(cluster),
      kind_(params.kind),
      node_delay_(params.node_locality_delay),
      rack_delay_(params.rack_locality_delay),
      threshold_node_(std::min(params.locality_threshold_node, 1.0)),
      threshold_rack_(std::min(params.locality_threshold_rack, 1.0)),
      index_(cluster),
      racks_(cluster),
      order_(MakeJobLess(params.job_order, cluster)) {
  assert(kind_ == PolicyKind::kCapacityScheduler || kind_ == PolicyKind::kFairScheduler);
}

void YarnPolicy::Enqueue(TaskId t) {
  index_.Add(t);
  racks_.Add(t, index_.Stamp(t));
  ++queued_;
}

void YarnPolicy::Withdraw(TaskId t) {
  index_.Remove(t);
  --queued_;
}

void YarnPolicy::Assigned(TaskId t, MachineId m) {
  Withdraw(t);
  const JobId j = cluster_.task(t).job;
  if (order_.Contains(j)) Started(j, LevelOf(t, m));
}

void YarnPolicy::OnJobChanged(JobId j) {
  const Job& job = cluster_.job(j);
  if (!job.alive) {
    index_.DropJob(j);
    racks_.DropJob(j);
  }
  if (!job.alive || job.queued == 0) {
    order_.Erase(j);
  } else if (order_.Contains(j)) {
    order_.Update(j);
  } else {  // it became runnable: its count starts at 0, at the node level
    if (jobs_.size() <= j) jobs_.resize(j + 1);
    jobs_[j] = JobLocality{0, CountLocations(j), Level::kNode};
    order_.Insert(j);
  }
}

// YARN's unique location asks of job j: the distinct machines and racks holding its queued
// tasks' input, and one for ANY.
uint32_t YarnPolicy::CountLocations(JobId j) const {
  std::vector<uint64_t> seen;  // machine ids, and rack ids tagged by the high bit
  for (TaskId t : cluster_.job(j).tasks) {
    if (cluster_.task(t).state != TaskState::kQueued) continue;
    for (MachineId r : cluster_.task(t).replicas) {
      seen.push_back(r);
      if (r < cluster_.num_machines()) seen.push_back(uint64_t{1} << 32 | cluster_.machine(r).rack);
    }
  }
  std::sort(seen.begin(), seen.end());
  return static_cast<uint32_t>(std::unique(seen.begin(), seen.end()) - seen.begin()) + 1;
}

uint32_t YarnPolicy::Missed(JobId j) const {
  return order_.Contains(j) ? jobs_[j].missed : 0;
}

// What job j's count allows (the file comment's rules), without moving fair-scheduler's level
// (Relax does).
YarnAllowance YarnPolicy::Allowed(JobId j) const {
  if (!order_.Contains(j)) return {};
  const JobLocality& s = jobs_[j];
  if (s.locations <= 1) return {true, true};  // ANY-only asks are not delayed
  const double machines = cluster_.num_machines();
  const double missed = s.missed;
  if (kind_ == PolicyKind::kFairScheduler) {
    if (threshold_node_ < 0 || threshold_rack_ < 0) return {true, true};
    Level level = s.level;
    if (level == Level::kNode && missed > threshold_node_ * machines) level = Level::kRack;
    if (level == Level::kRack && s.level == Level::kRack && missed > threshold_rack_ * machines)
      level = Level::kAny;
    return {level != Level::kNode, level == Level::kAny};
  }
  const double rack_after = std::min<double>(machines, node_delay_);
  double off_after = 0;
  if (rack_delay_ >= 0) {
    off_after = std::min(machines, static_cast<double>(node_delay_) + rack_delay_);
  } else {
    const double queued = cluster_.job(j).queued;
    off_after = std::min(machines, queued * std::min(1.0, s.locations / machines));
  }
  return {missed > rack_after, missed > off_after};
}

// fair-scheduler: job j's level moves one step when its count passes the threshold, and the
// count starts again (FSAppAttempt's getAllowedLocalityLevel).
void YarnPolicy::Relax(JobId j) {
  if (kind_ != PolicyKind::kFairScheduler) return;
  JobLocality& s = jobs_[j];
  const Level before = s.level;
  const YarnAllowance a = Allowed(j);
  s.level = a.any ? Level::kAny : a.rack ? Level::kRack : Level::kNode;
  if (s.level != before) s.missed = 0;
}

// A start of job j at locality `at`: capacity-scheduler resets the count unless the start
// was off-rack; fair-scheduler resets it always and brings the level back to `at` if closer.
void YarnPolicy::Started(JobId j, Level at) {
  JobLocality& s = jobs_[j];
  if (kind_ == PolicyKind::kCapacityScheduler) {
    if (at != Level::kAny) s.missed = 0;
    return;
  }
  s.missed = 0;
  s.level = std::min(s.level, at);
}

YarnPolicy::Level YarnPolicy::LevelOf(TaskId t, MachineId m) const {
  const Task& task = cluster_.task(t);
  if (task.IsLocalTo(m)) return Level::kNode;
  const uint32_t rack = cluster_.machine(m).rack;
  for (MachineId r : task.replicas)
    if (r < cluster_.num_machines() && cluster_.machine(r).rack == rack) return Level::kRack;
  return Level::kAny;
}

// Job j's task for a slot of m, by locality and what its count allows; kNoId if it declines.
TaskId YarnPolicy::Find(JobId j, MachineId m) {
  if (const TaskId t = index_.FindLocal(j, m); t != kNoId) return t;
  Relax(j);
  const YarnAllowance a = Allowed(j);
  if (a.rack)
    if (const TaskId t = racks_.Find(j, cluster_.machine(m).rack, index_.stamps()); t != kNoId)
      return t;
  return a.any ? index_.FindAny(j) : kNoId;
}

Pick YarnPolicy::Take(TaskId t, JobId j, MachineId m) {
  Started(j, LevelOf(t, m));
  Withdraw(t);
  return Pick{t, j};
}

// Jobs in the leaf's order; each reached counts one opportunity (YARN counts it before it
// looks at the slot), runs a task if its count allows one here, else passes the slot on.
Pick YarnPolicy::PickFor(MachineId m) {
  Pick pick;
  order_.ForEachInOrder([&](JobId j) {
    ++jobs_[j].missed;
    const TaskId t = Find(j, m);
    if (t == kNoId) return true;
    pick = Take(t, j, m);
    return false;
  });
  return pick;
}

Pick YarnPolicy::PickAnyFor(MachineId m) {
  if (const Pick p = PickFor(m); p.task != kNoId || queued_ == 0) return p;
  const JobId j = order_.Top();
  const TaskId t = j == kNoId ? kNoId : index_.FindAny(j);
  return t == kNoId ? Pick{} : Take(t, j, m);
}

uint32_t YarnPolicy::JobsAhead(JobId j, uint32_t cap) const {
  return order_.CountBefore(j, cap);
}

// A free holder runs t in its job's turn; another free machine only once the job's count
// allows a run there (the rule is a count, not a timer: no time left to report).
WaitInfo YarnPolicy::Explain(const Cluster&, TaskId t, const WaitFacts& facts) const {
  const JobId j = cluster_.task(t).job;
  if (facts.memo.job != j) facts.memo = {j, JobsAhead(j, kMaxJobsAhead), kNoId};
  WaitInfo info;
  info.jobs_ahead = facts.memo.jobs_ahead;
  const HolderSlots h = HoldersOf(cluster_, t);
  MachineId m = h.free_holder;
  if (m == kNoId) {
    info.reason = h.live == 0 ? WaitReason::kNoLiveHolder : WaitReason::kHoldersBusy;
    if (facts.free_machine == kNoId) return info;
    const YarnAllowance a = Allowed(j);
    if (!a.rack && !a.any) {
      if (h.live > 0) info.reason = WaitReason::kRemoteRule;
      return info;
    }
    m = facts.free_machine;
  }
  info.reason = info.jobs_ahead > 0 ? WaitReason::kBehindJobs : WaitReason::kNextHeartbeat;
  if (info.reason == WaitReason::kNextHeartbeat) {
    info.machine = m;
    info.remote = m != h.free_holder;
  }
  return info;
}

}  // namespace locsched
