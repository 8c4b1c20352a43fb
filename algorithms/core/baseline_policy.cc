#include "algorithms/core/baseline_policy.h"

#include <algorithm>
#include <cassert>
#include <functional>

#include "algorithms/core/job_order.h"

namespace locsched {
namespace {

JobHeap::Less OrderFor(const PolicyParams& params, const Cluster& cluster) {
  if (params.kind == PolicyKind::kFifo) {
    return [&cluster](JobId a, JobId b) { return cluster.job(a).seq < cluster.job(b).seq; };
  }
  return MakeJobLess(params.job_order, cluster);
}

}  // namespace

BaselinePolicy::BaselinePolicy(const PolicyParams& params, Cluster& cluster)
    : cluster_(cluster),
      kind_(params.kind),
      delay_wait_(params.delay_wait),
      index_(cluster),
      order_(OrderFor(params, cluster)) {
  assert(kind_ != PolicyKind::kJsqMaxWeight);
}

void BaselinePolicy::Enqueue(TaskId t) {
  index_.Add(t);
  ++queued_;
  CountHolders(t, +1);
}

void BaselinePolicy::Withdraw(TaskId t) {
  index_.Remove(t);
  --queued_;
  CountHolders(t, -1);
}

void BaselinePolicy::Assigned(TaskId t, MachineId m) {
  Withdraw(t);
  if (kind_ == PolicyKind::kDelay && cluster_.task(t).IsLocalTo(m))
    RestartWait(cluster_.task(t).job);
}

void BaselinePolicy::CountHolders(TaskId t, int delta) {
  if (kind_ != PolicyKind::kDelay) return;
  for (MachineId r : cluster_.task(t).replicas) {
    if (r >= holders_.size()) holders_.resize(r + 1, 0);
    holders_[r] += delta;
  }
}

bool BaselinePolicy::WaitIsLive(const WaitEntry& e) const {
  return order_.Contains(e.second) && cluster_.job(e.second).wait_since == e.first;
}

void BaselinePolicy::NoteWaitSince(JobId j) {
  if (kind_ != PolicyKind::kDelay) return;
  // Entries go stale when a job's wait restarts or it leaves the order; drop them
  // once they outnumber the live ones, so memory stays O(jobs).
  if (waits_.size() > 4 * order_.size() + 64) {
    std::erase_if(waits_, [this](const WaitEntry& e) { return !WaitIsLive(e); });
    std::make_heap(waits_.begin(), waits_.end(), std::greater<>());
  }
  waits_.emplace_back(cluster_.job(j).wait_since, j);
  std::push_heap(waits_.begin(), waits_.end(), std::greater<>());
}

bool BaselinePolicy::NoJobHasWaited() {
  while (!waits_.empty()) {
    if (WaitIsLive(waits_.front())) return now_ - waits_.front().first < delay_wait_;
    std::pop_heap(waits_.begin(), waits_.end(), std::greater<>());
    waits_.pop_back();
  }
  return true;
}

void BaselinePolicy::OnJobChanged(JobId j) {
  Job& job = cluster_.job(j);
  if (!job.alive) index_.DropJob(j);
  if (!job.alive || job.queued == 0) {
    order_.Erase(j);
  } else if (order_.Contains(j)) {
    order_.Update(j);
  } else {
    job.wait_since = now_;  // it became runnable: delay scheduling's wait starts
    order_.Insert(j);
    NoteWaitSince(j);
  }
}

Pick BaselinePolicy::PickFromJob(JobId j, MachineId m) {
  TaskId t = index_.FindLocal(j, m);
  if (t == kNoId) t = index_.FindAny(j);
  assert(t != kNoId);
  index_.Remove(t);
  --queued_;
  return Pick{t, j};
}

// Job j ran a task local: its delay scheduling wait starts again now.
void BaselinePolicy::RestartWait(JobId j) {
  Job& job = cluster_.job(j);
  if (job.wait_since == now_) return;
  job.wait_since = now_;
  NoteWaitSince(j);
}

Pick BaselinePolicy::PickDelay(MachineId m) {
  // Walk jobs in fair order. A job with a local task runs it (and its wait starts
  // again); a job that has waited delay_wait since then, or since it became
  // runnable, runs any task; any other job passes. If every job passes, the slot idles.
  Pick pick;
  if ((m >= holders_.size() || holders_[m] == 0) && NoJobHasWaited()) return pick;
  order_.ForEachInOrder([&](JobId j) {
    Job& job = cluster_.job(j);
    if (const TaskId t = index_.FindLocal(j, m); t != kNoId) {
      RestartWait(j);
      pick = Pick{t, j};
    } else if (RemoteIn(job, now_) <= 0) {
      pick = Pick{index_.FindAny(j), j};
    } else {
      return true;
    }
    return false;
  });
  if (pick.task != kNoId) {
    index_.Remove(pick.task);
    --queued_;
    CountHolders(pick.task, -1);
  }
  return pick;
}

uint32_t BaselinePolicy::JobsAhead(JobId j, uint32_t cap) const {
  return order_.CountBefore(j, cap);
}

WaitInfo BaselinePolicy::Explain(const Cluster&, TaskId t, const WaitFacts& facts) const {
  const JobId j = cluster_.task(t).job;
  if (facts.memo.job != j) facts.memo = {j, JobsAhead(j, kMaxJobsAhead), kNoId};
  WaitInfo info;
  info.jobs_ahead = facts.memo.jobs_ahead;
  if (kind_ == PolicyKind::kDelay) return ExplainDelay(t, facts, info);
  // Fair and fifo: every free slot serves the first job of the order, local task first.
  const HolderSlots h = HoldersOf(cluster_, t);
  const MachineId m = h.free_holder != kNoId ? h.free_holder : facts.free_machine;
  info.reason = m == kNoId            ? WaitReason::kNoFreeSlot
                : info.jobs_ahead > 0 ? WaitReason::kBehindJobs
                                      : WaitReason::kNextHeartbeat;
  if (info.reason == WaitReason::kNextHeartbeat) {
    info.machine = m;
    info.remote = m != h.free_holder;
  }
  return info;
}

// Delay scheduling: jobs in fair order; a holder's free slot runs the job's local task, any
// other free slot runs it only once RemoteIn reaches 0.
WaitInfo BaselinePolicy::ExplainDelay(TaskId t, const WaitFacts& facts, WaitInfo info) const {
  const HolderSlots h = HoldersOf(cluster_, t);
  const double left = RemoteIn(cluster_.job(cluster_.task(t).job), facts.now);
  info.remote_wait_s = delay_wait_;
  info.remote_in_s = left > 0 ? left : 0;
  MachineId m = h.free_holder;
  if (m == kNoId) {
    info.reason = h.live == 0 ? WaitReason::kNoLiveHolder : WaitReason::kHoldersBusy;
    if (facts.free_machine == kNoId) return info;
    if (left > 0) {
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

Pick BaselinePolicy::PickFor(MachineId m) {
  if (kind_ == PolicyKind::kDelay) return PickDelay(m);
  const JobId j = order_.Top();
  return j == kNoId ? Pick{} : PickFromJob(j, m);
}

Pick BaselinePolicy::PickAnyFor(MachineId m) {
  if (kind_ != PolicyKind::kDelay) return PickFor(m);
  if (const Pick p = PickDelay(m); p.task != kNoId || queued_ == 0) return p;
  const Pick p = PickFromJob(order_.Top(), m);
  CountHolders(p.task, -1);
  return p;
}

}  // namespace locsched
