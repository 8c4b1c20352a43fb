#include "algorithms/core/baseline_policy.h"

#include <cassert>

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

Pick BaselinePolicy::PickDelay(MachineId m) {
  // Walk jobs in fair order. A job with a local task runs it (and its wait starts
  // again); a job that has waited delay_wait since then, or since it became
  // runnable, runs any task; any other job passes. If every job passes, the slot idles.
  Pick pick;
  order_.ForEachInOrder([&](JobId j) {
    Job& job = cluster_.job(j);
    if (const TaskId t = index_.FindLocal(j, m); t != kNoId) {
      job.wait_since = now_;
      pick = Pick{t, j};
    } else if (now_ - job.wait_since >= delay_wait_) {
      pick = Pick{index_.FindAny(j), j};
    } else {
      return true;
    }
    return false;
  });
  if (pick.task != kNoId) {
    index_.Remove(pick.task);
    --queued_;
  }
  return pick;
}

Pick BaselinePolicy::PickFor(MachineId m) {
  if (kind_ == PolicyKind::kDelay) return PickDelay(m);
  const JobId j = order_.Top();
  return j == kNoId ? Pick{} : PickFromJob(j, m);
}

}  // namespace locsched
