#include "algorithms/core/job_index.h"

#include "base/slot_pool.h"

namespace locsched {

void JobIndex::Add(TaskId t) {
  const Task& task = cluster_.task(t);
  Append(task.job, kAny, t);
  for (MachineId m : task.replicas) Append(task.job, m, t);
}

void JobIndex::Append(JobId j, uint32_t m, TaskId t) {
  uint32_t l = index_.Find(Key(j, m));
  if (l == FlatMap64::kMissing) {
    l = TakeSlot(lists_, free_lists_);
    lists_[l] = List{};
    index_.Put(Key(j, m), l);
    if (job_keys_.size() <= j) job_keys_.resize(j + 1);
    job_keys_[j].push_back(m);
  }
  const uint32_t n = TakeSlot(nodes_, free_nodes_);
  nodes_[n] = Node{t, cluster_.task(t).generation, kNoId};
  List& list = lists_[l];
  if (list.tail != kNoId)
    nodes_[list.tail].next = n;
  else
    list.head = n;
  list.tail = n;
}

bool JobIndex::Live(const Node& n, JobId j) const {
  const Task& task = cluster_.task(n.task);
  return task.generation == n.generation && task.job == j && task.state == TaskState::kQueued;
}

TaskId JobIndex::FrontLive(JobId j, uint32_t m) {
  const uint32_t l = index_.Find(Key(j, m));
  if (l == FlatMap64::kMissing) return kNoId;
  List& list = lists_[l];
  // Pop stale entries off the front until a live one (or nothing) remains.
  while (list.head != kNoId && !Live(nodes_[list.head], j)) {
    const uint32_t dead = list.head;
    list.head = nodes_[dead].next;
    free_nodes_.push_back(dead);
  }
  if (list.head == kNoId) list.tail = kNoId;
  return list.head == kNoId ? kNoId : nodes_[list.head].task;
}

TaskId JobIndex::FindLocal(JobId j, MachineId m) {
  return FrontLive(j, m);
}

TaskId JobIndex::FindAny(JobId j) {
  return FrontLive(j, kAny);
}

void JobIndex::DropJob(JobId j) {
  if (j >= job_keys_.size()) return;
  for (uint32_t m : job_keys_[j]) {
    const uint32_t l = index_.Find(Key(j, m));
    for (uint32_t n = lists_[l].head; n != kNoId; n = nodes_[n].next) free_nodes_.push_back(n);
    index_.Erase(Key(j, m));
    free_lists_.push_back(l);
  }
  job_keys_[j].clear();
}

}  // namespace locsched
