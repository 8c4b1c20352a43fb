#include "algorithms/core/job_index.h"

#include "base/slot_pool.h"

namespace locsched {

void JobIndex::Add(TaskId t) {
  const Task& task = cluster_.task(t);
  if (jobs_.size() <= task.job) jobs_.resize(task.job + 1);
  JobLists& job = jobs_[task.job];
  Append(job.any, t, task.generation);
  for (MachineId m : task.replicas) {
    uint32_t l = job.by_machine.Find(m);
    if (l == FlatMap64::kMissing) {
      l = TakeSlot(lists_, free_lists_);
      lists_[l] = List{};
      job.by_machine.Put(m, l);
      job.machines.push_back(m);
    }
    Append(lists_[l], t, task.generation);
  }
}

void JobIndex::Append(List& list, TaskId t, uint32_t generation) {
  const uint32_t n = TakeSlot(nodes_, free_nodes_);
  nodes_[n] = Node{t, generation, kNoId};
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

TaskId JobIndex::FrontLive(List& list, JobId j) {
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
  if (j >= jobs_.size()) return kNoId;
  const uint32_t l = jobs_[j].by_machine.Find(m);
  return l == FlatMap64::kMissing ? kNoId : FrontLive(lists_[l], j);
}

TaskId JobIndex::FindAny(JobId j) {
  return j < jobs_.size() ? FrontLive(jobs_[j].any, j) : kNoId;
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
  job = JobLists{};  // a recycled id starts with a small map again
}

}  // namespace locsched
