// Engine's preemption for tenant queues (preemption.timeout_s, kill_wait_s): a heartbeat
// plans a round with the core's PlanPreemption, keeps the free slots it names for the
// starved queues (each used at its machine's next heartbeat), requeues each victim at once
// (no retry used), and owes its machine a stop order; each machine's heartbeat reply
// carries the orders it is owed under "preempt", before its assignments, so the freed slot
// is handed over in that same reply.
// The journal records a heartbeat's victims with it and replay imposes them, so the orders
// owed are rebuilt exactly after a restart or a failover; snapshots keep them per machine.
// Event-loop thread only, like the rest of the Engine.
#include <algorithm>

#include "algorithms/core/preemption.h"
#include "daemon/engine.h"

namespace locsched {

namespace {

// Workload seconds between two plans: a plan reads every running task, so a busy daemon
// does not repeat it on every heartbeat.
constexpr double kPlanInterval = 1;

}  // namespace

// Plans and applies one round if preemption is on and the last round is kPlanInterval old.
void Engine::PreemptIfStarved(double now) {
  preempted_.clear();
  if (preemption_.timeout_s <= 0 || !tenancy() || now < next_plan_s_) return;
  next_plan_s_ = now + kPlanInterval;
  const PreemptionPlan plan =
      PlanPreemption(sched_, preemption_.timeout_s, preemption_.kill_wait_s);
  for (MachineId m : plan.keep) sched_.KeepSlot(m);  // taken at each machine's heartbeat
  for (TaskId t : plan.victims) Preempt(t, now);
  if (!plan.victims.empty())
    Note("preempted " + std::to_string(plan.victims.size()) +
         " running tasks for tenant queues below their guarantee past preemption.timeout_s");
}

// Stops running task t for a starved queue: requeued without using a retry, its machine
// owed a stop order, and a late report of that run known as stale.
void Engine::Preempt(TaskId t, double now) {
  const Task& task = sched_.cluster().task(t);
  const MachineId m = task.machine;
  if (stops_.size() <= m) stops_.resize(m + 1);
  stops_[m].push_back(StopOrder{std::string(JobName(task.job)), std::string(TaskName(t))});
  ++tasks_preempted_;
  preempted_task_s_ += std::max(0.0, now - task_started_[t]);
  taken_from_[t] = m;
  preempted_.push_back(t);
  sched_.Preempt(t);
}

uint64_t Engine::DeliverStops(MachineId m, JsonWriter& w) {
  delivered_ = 0;
  if (m >= stops_.size() || stops_[m].empty()) return 0;
  w.Key("preempt").BeginArray();
  for (const StopOrder& s : stops_[m])
    w.BeginObject().Field("job", s.job).Field("task", s.task).EndObject();
  w.EndArray();
  delivered_ = stops_[m].size();
  stops_[m].clear();
  return delivered_;
}

Status Engine::ReplayPreempt(std::string_view job, std::string_view task) {
  TaskId t;
  if (Status s = FindTask(std::string(job), std::string(task), &t); !s.ok()) return s;
  if (sched_.cluster().task(t).state != TaskState::kRunning)
    return Status::FailedPrecondition("task", "preempted task '" + std::string(task) +
                                                  "' of job '" + std::string(job) +
                                                  "' is not running");
  Preempt(t, clock_.Now());
  return Status::Ok();
}

// task_preempted: the machine confirms it stopped a run it was told to stop. The task was
// requeued when it was preempted, so this changes nothing but the count.
Status Engine::TaskPreempted(const Request& r, JsonWriter& w) {
  TaskId t;
  if (Status s = FindTask(r.job, r.task, &t); !s.ok()) {
    if (s.code() != Status::Code::kFailedPrecondition) return s;
    w.Field("stale", true);  // its job has ended since: nothing is left to requeue
    return Status::Ok();
  }
  const std::optional<uint32_t> m = machine_names_.Find(r.machine);
  const bool from = r.machine.empty() ? taken_from_[t] != kNoId : m && taken_from_[t] == *m;
  if (!from)
    return Status::FailedPrecondition(
        "task", "task '" + r.task + "' of job '" + r.job + "' was not preempted" +
                    (r.machine.empty() ? "" : " on '" + r.machine + "'"));
  ++preempt_reports_;
  w.Field("requeued", true);
  return Status::Ok();
}

}  // namespace locsched
