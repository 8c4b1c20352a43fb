#include "algorithms/core/scheduler.h"

#include <cassert>
#include <utility>

namespace locsched {

namespace {

std::unique_ptr<Policy> MakeCorePolicy(const PolicyParams& params, Cluster& cluster,
                                       std::optional<QueueTree>& tree) {
  if (!tree) return MakePolicy(params, cluster);
  return std::make_unique<QueueSharing>(params, cluster, std::move(*tree));
}

}  // namespace

Scheduler::Scheduler(const PolicyParams& params, std::optional<QueueTree> tree)
    : params_(params),
      policy_(MakeCorePolicy(params, cluster_, tree)),
      sharing_(tree ? static_cast<QueueSharing*>(policy_.get()) : nullptr) {}

uint32_t Scheduler::InternUser(std::string_view name) {
  if (name.empty()) return kNoId;
  auto [it, added] =
      user_ids_.emplace(std::string(name), static_cast<uint32_t>(user_names_.size()));
  if (added) user_names_.emplace_back(name);
  return it->second;
}

std::string_view Scheduler::UserName(uint32_t user) const {
  return user < user_names_.size() ? std::string_view(user_names_[user]) : std::string_view();
}

MachineId Scheduler::AddMachine(Machine machine) {
  const MachineId m = cluster_.AddMachine(std::move(machine));
  policy_->AddMachine(m);
  if (observer_) observer_->OnMachineUsable(m, true);
  return m;
}

JobId Scheduler::SubmitJob(double weight, std::span<const TaskSpec> tasks, JobTenancy tenancy) {
  assert(unsettled_ == 0);
  if (tasks.empty()) return kNoId;
  // One pass, so each task record is written and queued while it is in cache. job.tasks
  // has its full length from the start: a priority queue's placement reads it.
  const JobId j = cluster_.NewJob(weight, static_cast<uint32_t>(tasks.size()));
  Job& job = cluster_.job(j);  // stays put: only the task table grows below
  job.user = tenancy.user;
  if (sharing_ != nullptr) {
    const QueueTree& tree = sharing_->tree();
    const bool leaf =
        tenancy.queue < tree.size() && tree.node(tenancy.queue).leaf() && tenancy.queue != 0;
    job.queue = leaf ? tenancy.queue : tree.default_leaf();
  }
  for (uint32_t i = 0; i < tasks.size(); ++i) {
    const TaskSpec& spec = tasks[i];
    const TaskId t = cluster_.NewTaskAt(j, i, spec.kind);
    Task& task = cluster_.task(t);
    task.replicas.Assign(spec.replicas);
    task.size = static_cast<float>(spec.size);
    task.duration = static_cast<float>(spec.duration);
    task.tag = spec.tag;
    if (spec.kind == TaskKind::kMap) {
      Enqueue(t, spec.queue);
    } else {
      ++blocked_;
      ++job.blocked;
    }
  }
  if (job.maps_left == 0) ReleaseReduces(job);
  if (started_s_.size() < cluster_.task_capacity()) started_s_.resize(cluster_.task_capacity());
  policy_->OnJobChanged(j);  // once for the whole job, not once per task
  return j;
}

void Scheduler::Enqueue(TaskId t, uint32_t queue) {
  Task& task = cluster_.task(t);
  task.state = TaskState::kQueued;
  ++task.generation;
  ++cluster_.job(task.job).queued;
  ++queued_;
  if (queue == kNoId)
    policy_->Enqueue(t);
  else
    policy_->EnqueueTo(t, queue);
  if (observer_) observer_->OnQueued(t);
}

void Scheduler::MakeRunnable(TaskId t) {
  Enqueue(t, kNoId);
  policy_->OnJobChanged(cluster_.task(t).job);
}

// The caller tells the policy that the job changed (SubmitJob and Finish both do).
void Scheduler::ReleaseReduces(Job& job) {
  // Without reduces (the common case) this skips a pass over every task record.
  if (job.blocked == 0) return;
  job.blocked = 0;
  for (TaskId t : job.tasks) {
    if (cluster_.task(t).state != TaskState::kBlocked) continue;
    --blocked_;
    Enqueue(t, kNoId);
  }
}

std::optional<Assignment> Scheduler::Assign(MachineId m) {
  const Claim c = ClaimSlot(m);
  if (c.task == kNoId) return std::nullopt;
  return Settle(c);
}

Claim Scheduler::ClaimSlot(MachineId m) {
  Machine& machine = cluster_.machine(m);
  if (!machine.up || machine.draining || machine.running >= machine.slots) return Claim{};
  const Pick pick = policy_->PickFor(m);
  if (pick.task == kNoId) return Claim{};
  return Begin(pick.task, pick.job, m);
}

Assignment Scheduler::AssignTask(TaskId t, MachineId m) {
  assert(unsettled_ == 0);
  assert(cluster_.task(t).state == TaskState::kQueued);
  policy_->Assigned(t, m);
  return Settle(Begin(t, cluster_.task(t).job, m));
}

// Counts task t of job j as running on m, with stores only to its record: the state
// and machine it needs before the policy picks again (the baselines' index reads the
// state). Settle reads the record, by when the stores have brought it into cache.
Claim Scheduler::Begin(TaskId t, JobId j, MachineId m) {
  assert(cluster_.task(t).state == TaskState::kQueued && cluster_.task(t).job == j);
  Task& task = cluster_.task(t);
  task.state = TaskState::kRunning;
  task.machine = m;
  Job& job = cluster_.job(j);
  --job.queued;
  ++job.running;
  ++cluster_.machine(m).running;
  --queued_;
  ++running_;
  ++unsettled_;
  policy_->OnJobChanged(j);
  return Claim{t, j, m};
}

Assignment Scheduler::Settle(const Claim& c) {
  assert(unsettled_ > 0 && c.task != kNoId);
  --unsettled_;
  Task& task = cluster_.task(c.task);
  const bool local = task.IsLocalTo(c.machine);
  ++task.generation;
  task.ran_local = local;
  if (!local) ++cluster_.job(c.job).running_off;
  ++task.attempts;
  started_s_[c.task] = now_;
  if (observer_) observer_->OnUnqueued(c.task);
  return Assignment{c.task, c.job, c.machine, local};
}

void Scheduler::StopRunning(Task& task) {
  assert(task.state == TaskState::kRunning);
  --cluster_.machine(task.machine).running;
  Job& job = cluster_.job(task.job);
  --job.running;
  if (!task.ran_local) --job.running_off;
  --running_;
}

Completion Scheduler::Finish(TaskId t) {
  assert(unsettled_ == 0);
  Task& task = cluster_.task(t);
  const JobId j = task.job;
  Job& job = cluster_.job(j);
  StopRunning(task);
  task.state = TaskState::kDone;
  ++job.done;
  if (task.kind == TaskKind::kMap && --job.maps_left == 0) ReleaseReduces(job);
  if (!job.Finished()) {
    policy_->OnJobChanged(j);
    return Completion{j, false};
  }
  cluster_.FreeJob(j);
  policy_->OnJobChanged(j);
  return Completion{j, true};
}

void Scheduler::Requeue(TaskId t) {
  assert(unsettled_ == 0);
  Task& task = cluster_.task(t);
  StopRunning(task);
  task.machine = kNoId;
  MakeRunnable(t);
}

void Scheduler::Preempt(TaskId t) {
  const MachineId m = cluster_.task(t).machine;
  Requeue(t);
  if (sharing_ != nullptr) sharing_->KeepSlot(m);  // for the queue it was freed for
  --cluster_.task(t).attempts;  // Settle counted the start; the scheduler ended it
  ++preempted_;
}

void Scheduler::CancelJob(JobId j) {
  assert(unsettled_ == 0);
  Job& job = cluster_.job(j);
  for (TaskId t : job.tasks) {
    Task& task = cluster_.task(t);
    if (task.state == TaskState::kQueued) {
      policy_->Withdraw(t);
      --queued_;
      if (observer_) observer_->OnUnqueued(t);
    } else if (task.state == TaskState::kRunning) {
      StopRunning(task);
    } else if (task.state == TaskState::kBlocked) {
      --blocked_;
    }
    task.state = TaskState::kDone;
  }
  job.queued = job.blocked = 0;
  cluster_.FreeJob(j);
  policy_->OnJobChanged(j);
}

std::vector<TaskId> Scheduler::MachineDown(MachineId m) {
  assert(unsettled_ == 0);
  cluster_.machine(m).up = false;
  policy_->OnMachineUnavailable(m);
  if (observer_) observer_->OnMachineUsable(m, false);
  // Rare event: a scan of the task table finds what ran on m.
  std::vector<TaskId> lost;
  for (TaskId t = 0; t < cluster_.task_capacity(); ++t) {
    const Task& task = cluster_.task(t);
    if (task.job != kNoId && task.state == TaskState::kRunning && task.machine == m)
      lost.push_back(t);
  }
  for (TaskId t : lost) {
    Requeue(t);
    --cluster_.task(t).attempts;  // Settle counted the start; it ended with the machine
  }
  return lost;
}

void Scheduler::MachineUp(MachineId m) {
  cluster_.machine(m).up = true;
  cluster_.machine(m).draining = false;
  policy_->OnMachineAvailable(m);
  if (observer_) observer_->OnMachineUsable(m, true);
}

void Scheduler::UpdateMachine(MachineId m, uint32_t slots, uint32_t rack) {
  Machine& machine = cluster_.machine(m);
  machine.slots = slots;
  machine.rack = rack;
  if (sharing_ != nullptr) sharing_->OnSlotsChanged();
}

void Scheduler::SetDraining(MachineId m, bool draining) {
  Machine& machine = cluster_.machine(m);
  const bool was = machine.draining;
  machine.draining = draining;
  if (draining && !was) policy_->OnMachineUnavailable(m);
  if (!draining && was && machine.up) policy_->OnMachineAvailable(m);
  if (observer_ && draining != was) observer_->OnMachineUsable(m, machine.up && !draining);
}

bool Scheduler::SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) {
  return policy_->SetPriorityOrder(std::move(ranks), std::move(seqs));
}

}  // namespace locsched
