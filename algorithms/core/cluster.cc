#include "algorithms/core/cluster.h"

#include <cassert>
#include <utility>

#include "base/slot_pool.h"

namespace locsched {

MachineId Cluster::AddMachine(Machine machine) {
  assert(machine.slots >= 1);
  machines_.push_back(std::move(machine));
  return static_cast<MachineId>(machines_.size() - 1);
}

JobId Cluster::NewJob(double weight, uint32_t tasks) {
  const JobId id = TakeSlot(jobs_, free_jobs_);
  Job& j = jobs_[id];
  std::vector<TaskId> keep = std::move(j.tasks);  // reuse the vector's capacity
  keep.assign(tasks, kNoId);
  j = Job{};
  j.tasks = std::move(keep);
  j.weight = weight;
  j.seq = next_seq_++;
  j.alive = true;
  ++live_jobs_;
  return id;
}

TaskId Cluster::NewTask(JobId job, TaskKind kind) {
  jobs_[job].tasks.push_back(kNoId);
  return NewTaskAt(job, static_cast<uint32_t>(jobs_[job].tasks.size() - 1), kind);
}

TaskId Cluster::NewTaskAt(JobId job, uint32_t pos, TaskKind kind) {
  assert(pos < jobs_[job].tasks.size() && jobs_[job].tasks[pos] == kNoId);
  const TaskId id = TakeSlot(tasks_, free_tasks_);
  Task& t = tasks_[id];
  t.state = TaskState::kBlocked;
  t.ran_local = false;
  t.machine = kNoId;
  t.replicas.clear();  // keeps its capacity: no allocation per recycled task
  t.size = t.duration = 0;
  t.attempts = 0;
  t.queue = t.prev = t.next = kNoId;
  ++t.generation;  // stale references to the old task never match
  t.job = job;
  t.kind = kind;
  t.position = pos;
  t.tag = 0;
  jobs_[job].tasks[pos] = id;
  if (kind == TaskKind::kMap) ++jobs_[job].maps_left;
  return id;
}

void Cluster::FreeJob(JobId job) {
  Job& j = jobs_[job];
  assert(j.alive);
  for (TaskId t : j.tasks) {
    tasks_[t].job = kNoId;
    ++tasks_[t].generation;
    free_tasks_.push_back(t);
  }
  j.tasks.clear();
  j.alive = false;
  --live_jobs_;
  free_jobs_.push_back(job);
}

}  // namespace locsched
