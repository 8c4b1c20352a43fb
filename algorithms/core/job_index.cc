#include "algorithms/core/job_index.h"

#include <algorithm>

#include "base/slot_pool.h"

namespace locsched {

void JobIndex::Add(TaskId t) {
  const Task& task = cluster_.task(t);
  if (jobs_.size() <= task.job) jobs_.resize(task.job + 1);
  JobLists& job = jobs_[task.job];
  if (stamp_.size() <= t) stamp_.resize(std::max<size_t>(t + 1, 2 * stamp_.size()), 0);
  const uint32_t stamp = ++stamp_[t];
  Append(job.any, t, stamp);
  if (job.indexed) AddLocal(job, t, stamp);
}

void JobIndex::AddLocal(JobLists& job, TaskId t, uint32_t stamp) {
  for (MachineId m : cluster_.task(t).replicas) {
    uint32_t l = job.by_machine.Find(m);
    if (l == FlatMap64::kMissing) {
      l = TakeSlot(lists_, free_lists_);
      lists_[l] = List{};
      job.by_machine.Put(m, l);
      job.machines.push_back(m);
    }
    Append(lists_[l], t, stamp);
  }
}

// Indexes job j's live tasks under their machines, in the order of its `any` list (the
// order Add saw them), dropping the stale entries of that list on the way: the lists
// are what Add would have built, so FindLocal answers the same.
void JobIndex::Build(JobId j) {
  JobLists& job = jobs_[j];
  job.indexed = true;
  size_t replicas = 0;
  for (uint32_t n = job.any.head; n != kNoId; n = nodes_[n].next)
    if (Live(nodes_[n])) replicas += cluster_.task(nodes_[n].task).replicas.size();
  job.by_machine.Reset(std::min<size_t>(replicas, cluster_.num_machines()));
  uint32_t prev = kNoId;
  for (uint32_t n = job.any.head; n != kNoId;) {
    const uint32_t next = nodes_[n].next;
    if (Live(nodes_[n])) {
      AddLocal(job, nodes_[n].task, nodes_[n].stamp);
      prev = n;
    } else {
      (prev == kNoId ? job.any.head : nodes_[prev].next) = next;
      free_nodes_.push_back(n);
    }
    n = next;
  }
  job.any.tail = prev;
}

void JobIndex::Append(List& list, TaskId t, uint32_t stamp) {
  const uint32_t n = TakeSlot(nodes_, free_nodes_);
  nodes_[n] = Node{t, stamp, kNoId};
  if (list.tail != kNoId)
    nodes_[list.tail].next = n;
  else
    list.head = n;
  list.tail = n;
}

TaskId JobIndex::FrontLive(List& list) {
  // Pop stale entries off the front until a live one (or nothing) remains.
  while (list.head != kNoId && !Live(nodes_[list.head])) {
    const uint32_t dead = list.head;
    list.head = nodes_[dead].next;
    free_nodes_.push_back(dead);
  }
  if (list.head == kNoId) list.tail = kNoId;
  return list.head == kNoId ? kNoId : nodes_[list.head].task;
}

TaskId JobIndex::FindLocal(JobId j, MachineId m) {
  if (j >= jobs_.size()) return kNoId;
  if (!jobs_[j].indexed) Build(j);
  const uint32_t l = jobs_[j].by_machine.Find(m);
  return l == FlatMap64::kMissing ? kNoId : FrontLive(lists_[l]);
}

TaskId JobIndex::FindAny(JobId j) {
  return j < jobs_.size() ? FrontLive(jobs_[j].any) : kNoId;
}

void JobIndex::DropJob(JobId j) {
  if (j >= jobs_.size()) return;
  JobLists& job = jobs_[j];
  auto free_list = [&](const List& list) {
    for (uint32_t n = list.head; n != kNoId; n = nodes_[n].next) free_nodes_.push_back(n);
  };
  free_list(job.any);
  for (uint32_t m : job.machines) {
    const uint32_t l = job.by_machine.Find(m);
    free_list(lists_[l]);
    free_lists_.push_back(l);
  }
  // The map is sized anew when a recycled id is indexed; until then it stays unread.
  job.any = List{};
  job.indexed = false;
  job.machines.clear();
}

}  // namespace locsched
