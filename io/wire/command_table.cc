#include "io/wire/command_table.h"

#include "base/suggest.h"

#include <array>
#include <vector>

namespace locsched {
namespace {

using F = FieldSpec;
using T = FieldType;

constexpr F kMachineUp[] = {
    {"machine", T::kName, true, "machine name"},
    {"rack", T::kString, false, "rack name (default: none)"},
    {"slots", T::kPositive, false, "concurrent task slots (default 1)"},
};
constexpr F kMachine[] = {{"machine", T::kName, true, "machine name"}};
constexpr F kDrain[] = {
    {"machine", T::kName, true, "machine name"},
    {"drain", T::kBool, false, "true to drain (default), false to undrain"},
};
constexpr F kJobSubmit[] = {
    {"job", T::kName, true, "job name, unique among live jobs"},
    {"weight", T::kNumber, false, "weight in weighted completion time (default 1)"},
    {"tasks", T::kTasks, true, "the job's tasks (at least one)"},
    {"tasks_total", T::kPositive, false,
     "the job's task count when more follow by task_add; it is scheduled once all arrived"},
    {"queue", T::kString, false,
     "the tenant queue asked for (placement rule explicit; default: the rules choose)"},
    {"user", T::kString, false,
     "the user the job runs for, trusted as stated (queue ACLs and placement rules)"},
};
constexpr F kTask[] = {
    {"task", T::kName, true, "task name, unique within the job"},
    {"replicas", T::kNames, true, "machines holding the task's input"},
    {"kind", T::kKind, false, "map (default) or reduce; reduces wait for all maps"},
    {"size", T::kNumber, false, "input bytes"},
    {"duration", T::kNumber, false, "expected duration in seconds"},
};
constexpr F kHeartbeat[] = {
    {"machine", T::kName, true, "machine name"},
    {"free_slots", T::kCount, true, "slots free now; the reply assigns up to this many tasks"},
};
constexpr F kTaskEvent[] = {
    {"job", T::kName, true, "job name"},
    {"task", T::kName, true, "task name"},
    {"machine", T::kName, false, "machine that ran it (checked if given)"},
};
constexpr F kTaskFailed[] = {
    {"job", T::kName, true, "job name"},
    {"task", T::kName, true, "task name"},
    {"machine", T::kName, false, "machine that ran it (checked if given)"},
    {"reason", T::kString, false, "free text, logged"},
};
constexpr F kTaskAdd[] = {
    {"job", T::kName, true, "a job submitted with tasks_total and still short of it"},
    {"tasks", T::kTasks, true, "more of the job's tasks (at least one)"},
};
constexpr F kJob[] = {{"job", T::kName, true, "job name"}};
constexpr F kMachineQueues[] = {
    {"top", T::kCount, false, "how many machines' local queues to list (default 10)"}};
constexpr F kJobs[] = {
    {"state", T::kString, false,
     "only jobs in this state: live queued, running or blocked (a task in it); finished done, "
     "failed or cancelled"},
    {"sort", T::kString, false,
     "field to sort by, -field for descending: live job, age, weight, tasks, queued, running, "
     "done; finished job, seconds, tasks, locality, ended (default: arrival; finished: newest)"},
    {"limit", T::kCount, false, "most jobs listed (default: all, up to 10000)"},
    {"finished", T::kBool, false, "list the last finished jobs (history.finished_jobs)"},
};
constexpr F kMachines[] = {
    {"state", T::kString, false, "only machines in this state: up, draining or down"},
    {"sort", T::kString, false,
     "field to sort by, -field for descending: machine, slots, running, free, local_queue "
     "(default: as they joined)"},
    {"limit", T::kCount, false, "most machines listed (default: all)"},
};
constexpr F kQueue[] = {{"queue", T::kString, false, "one queue by name (default: all)"}};
constexpr F kHelp[] = {{"command", T::kString, false, "a command to describe (default: all)"}};
constexpr std::span<const F> kNone;

constexpr uint32_t kEvent = kEventSocket | kMutating;
constexpr uint32_t kBoth = kEventSocket | kControlSocket;
constexpr uint32_t kControl = kControlSocket;
constexpr Access kAnyone = Access::kRead;
constexpr Access kAgent = Access::kEvent;
constexpr Access kAdmin = Access::kAdmin;

constexpr std::array<CommandSpec, kOpCount> kTable{{
    {"machine_up", Op::kMachineUp, kEvent, kAgent, kMachineUp, "a machine joins or comes back"},
    {"machine_down", Op::kMachineDown, kEvent | kControlSocket, kAdmin, kMachine,
     "a machine is gone; its running tasks are requeued"},
    {"machine_drain", Op::kMachineDrain, kEvent | kControlSocket, kAdmin, kDrain,
     "stop giving a machine new tasks (or resume)"},
    {"job_submit", Op::kJobSubmit, kEvent, kAgent, kJobSubmit, "a job arrives with its tasks"},
    {"heartbeat", Op::kHeartbeat, kEvent, kAgent, kHeartbeat,
     "a machine reports free slots and gets assignments"},
    {"task_started", Op::kTaskStarted, kEvent, kAgent, kTaskEvent, "the cluster confirms a start"},
    {"task_done", Op::kTaskDone, kEvent, kAgent, kTaskEvent, "a task finished successfully"},
    {"task_failed", Op::kTaskFailed, kEvent, kAgent, kTaskFailed,
     "a task failed; it is retried up to a limit"},
    {"job_cancel", Op::kJobCancel, kEvent | kControlSocket, kAdmin, kJob,
     "remove a job and its queued tasks"},
    {"status", Op::kStatus, kBoth, kAnyone, kNone,
     "uptime, machines, queued and running tasks, rates"},
    {"machine_queues", Op::kMachineQueues, kBoth, kAnyone, kMachineQueues,
     "the policy's machine queues: remote queue, longest local queues, histogram"},
    {"jobs", Op::kJobs, kBoth, kAnyone, kJobs,
     "live jobs with their counts, or the finished ones; filter and sort"},
    {"job", Op::kJob, kBoth, kAnyone, kJob,
     "one job in detail: each waiting task's holders and why it waits"},
    {"machines", Op::kMachines, kBoth, kAnyone, kMachines,
     "machines with their state and queues; filter and sort"},
    {"help", Op::kHelp, kBoth, kAnyone, kHelp, "the commands and their fields"},
    {"metrics", Op::kMetrics, kBoth, kAnyone, kNone, "Prometheus text exposition"},
    {"reload", Op::kReload, kControl, kAdmin, kNone, "re-read the configuration file"},
    {"snapshot", Op::kSnapshot, kControl, kAdmin, kNone,
     "write a snapshot now and start a new journal after it"},
    {"rebalance", Op::kRebalance, kControl, kAdmin, kNone,
     "rebalance the queued backlog now (max-cover + bal-assign; jsq-maxweight)"},
    {"resolve_lp", Op::kResolveLp, kControl, kAdmin, kNone,
     "re-solve the backlog LP now (job order of the priority policy, headroom)"},
    {"task_add", Op::kTaskAdd, kEvent, kAgent, kTaskAdd,
     "more tasks of a job submitted with tasks_total (jobs too big for one line)"},
    {"machine_lost", Op::kMachineLost, kEvent | kControlSocket, kAdmin, kMachine,
     "a machine went silent (the daemon sends it past machines.expiry_s); its running "
     "tasks are requeued; its next heartbeat or machine_up brings it back"},
    {"queue", Op::kQueue, kBoth, kAnyone, kQueue,
     "tenant queues: guarantee, maximum, share in use, pending tasks, jobs, users, state"},
    {"task_preempted", Op::kTaskPreempted, kEvent, kAgent, kTaskEvent,
     "a machine stopped a task its heartbeat reply listed under preempt (already requeued)"},
}};

constexpr bool InOpOrder() {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<size_t>(kTable[i].op) != i) return false;
  return true;
}
static_assert(InOpOrder(), "kTable rows must follow the Op enum order");

}  // namespace

std::string_view AccessName(Access a) {
  switch (a) {
    case Access::kRead:
      return "read";
    case Access::kEvent:
      return "event";
    case Access::kAdmin:
      return "admin";
  }
  return "admin";
}

std::span<const CommandSpec> CommandTable() {
  return kTable;
}

const CommandSpec* FindCommand(std::string_view name) {
  for (const CommandSpec& c : kTable)
    if (c.name == name) return &c;
  // The one earlier spelling, still accepted: every op is snake_case now.
  if (name == "resolve-lp") return &SpecOf(Op::kResolveLp);
  return nullptr;
}

const CommandSpec& SpecOf(Op op) {
  return kTable[static_cast<size_t>(op)];
}

std::string_view SuggestCommand(std::string_view name) {
  std::vector<std::string_view> names;
  for (const CommandSpec& c : kTable) names.push_back(c.name);
  return SuggestName(name, names);
}

std::span<const FieldSpec> TaskFields() {
  return kTask;
}

const FieldSpec* FindField(std::span<const FieldSpec> fields, std::string_view name) {
  for (const FieldSpec& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace locsched
