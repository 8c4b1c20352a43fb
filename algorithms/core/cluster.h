// Cluster: the plain data model every scheduling policy reads. It owns the
// machines, jobs and tasks under dense integer ids (names are mapped to ids at
// the edge, by the daemon or the simulator) and recycles ids of finished jobs.
// Owned by one Scheduler; single-threaded, no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/replica_list.h"

namespace locsched {

using MachineId = uint32_t;
using JobId = uint32_t;
using TaskId = uint32_t;
/// "No id": an empty link, an unset machine.
inline constexpr uint32_t kNoId = UINT32_MAX;

enum class TaskKind : uint8_t { kMap, kReduce };

/// Where a task is in its life.
enum class TaskState : uint8_t {
  kBlocked,  ///< a reduce waiting for its job's maps
  kQueued,   ///< runnable, held by the policy's queues
  kRunning,  ///< assigned to a machine slot
  kDone,     ///< finished successfully
};

// Touched twice per task (the free-slot check, the running count), so it stays
// 16 bytes: names live at the edge (the daemon's name index), not here.
struct Machine {
  uint32_t rack = 0;      ///< rack index, for rack-aware extensions
  uint32_t slots = 1;     ///< concurrent tasks it runs, >= 1
  uint32_t running = 0;   ///< tasks running on it now
  bool up = true;         ///< false once reported down
  bool draining = false;  ///< takes no new local tasks, finishes what it runs
};

// One cache line: the queue links, ids, state and inline replicas that every
// routing and serving decision touches. Unaligned, a record straddles two lines
// and a pop that reads the links and then the replicas misses twice.
struct alignas(64) Task {
  JobId job = kNoId;
  // Queue links, owned by the policy that holds the task (intrusive lists).
  uint32_t queue = kNoId;             ///< the queue holding it (policy-defined)
  TaskId prev = kNoId, next = kNoId;  ///< neighbours inside that subqueue
  uint32_t generation = 0;            ///< bumped whenever it (re)enters or leaves a queue
  MachineId machine = kNoId;          ///< where it runs; once done, where it ran
  uint32_t attempts = 0;              ///< times it was started
  TaskKind kind = TaskKind::kMap;
  TaskState state = TaskState::kBlocked;
  bool ran_local = false;  ///< valid while running or done
  float size = 0;          ///< optional input size (bytes), 0 if unknown
  float duration = 0;      ///< optional expected duration, 0 if unknown
  ReplicaList replicas;    ///< machines holding its input (its local set)
  uint32_t position = 0;   ///< its index in its job's task list (the daemon names it by this)
  uint32_t tag = 0;        ///< the submitter's own value (TaskSpec::tag); the core never reads it

  /// True if machine m holds a replica of its input.
  bool IsLocalTo(MachineId m) const { return replicas.Contains(m); }
};

static_assert(sizeof(Task) == 64, "Task should stay one cache line");
static_assert(sizeof(Machine) == 16, "Machine should stay 16 bytes");

struct Job {
  double weight = 1;          ///< weight in weighted completion time
  uint64_t seq = 0;           ///< arrival order (FIFO key), unique, increasing
  uint32_t running = 0;       ///< tasks running now (the fair-share key)
  uint32_t running_off = 0;   ///< of those, tasks running off their replica holders
  uint32_t queued = 0;        ///< tasks runnable and waiting
  uint32_t maps_left = 0;     ///< maps not yet done (reduces wait for 0)
  uint32_t done = 0;          ///< tasks finished
  double wait_since = 0;      ///< delay scheduling: when it last ran local or became runnable
  uint32_t blocked = 0;       ///< reduces waiting for maps_left to reach 0
  uint32_t queue = 1;         ///< its leaf in the queue tree (tenancy off: the default leaf, 1)
  uint32_t user = kNoId;      ///< its user (Scheduler::InternUser), kNoId if none
  bool alive = false;         ///< false once finished or removed (id may be reused)
  std::vector<TaskId> tasks;  ///< all its tasks, in the order submitted (task positions)

  /// True once every task finished.
  bool Finished() const { return done == tasks.size(); }
};

/// The id-indexed tables of machines, jobs and tasks, with recycled job and task ids.
class Cluster {
 public:
  /// Appends a machine and returns its id (machine ids are never recycled).
  MachineId AddMachine(Machine machine);
  /// Allocates a job id and resets its record, with `tasks` positions (kNoId) for
  /// NewTaskAt; the caller fills in the rest.
  JobId NewJob(double weight, uint32_t tasks = 0);
  /// Allocates a task id for `job`, appended to job.tasks.
  TaskId NewTask(JobId job, TaskKind kind);
  /// Allocates a task id for `job` at position pos (< job.tasks.size(), still kNoId).
  TaskId NewTaskAt(JobId job, uint32_t pos, TaskKind kind);
  /// Frees a finished or cancelled job and its tasks, making their ids reusable.
  void FreeJob(JobId job);

  /// Machine m (must exist).
  Machine& machine(MachineId m) { return machines_[m]; }
  /// Machine m (must exist), read-only.
  const Machine& machine(MachineId m) const { return machines_[m]; }
  /// Job j's record (live or free; check alive).
  Job& job(JobId j) { return jobs_[j]; }
  /// Job j's record, read-only.
  const Job& job(JobId j) const { return jobs_[j]; }
  /// Task t's record (a free one has job == kNoId).
  Task& task(TaskId t) { return tasks_[t]; }
  /// Task t's record, read-only.
  const Task& task(TaskId t) const { return tasks_[t]; }

  /// Number of machine ids ever handed out.
  uint32_t num_machines() const { return static_cast<uint32_t>(machines_.size()); }
  /// Size of the job table (live and free ids).
  uint32_t job_capacity() const { return static_cast<uint32_t>(jobs_.size()); }
  /// Size of the task table (live and free ids).
  uint32_t task_capacity() const { return static_cast<uint32_t>(tasks_.size()); }
  /// Jobs alive now.
  uint32_t live_jobs() const { return live_jobs_; }

 private:
  std::vector<Machine> machines_;
  std::vector<Job> jobs_;
  std::vector<Task> tasks_;
  std::vector<JobId> free_jobs_;
  std::vector<TaskId> free_tasks_;
  uint64_t next_seq_ = 0;
  uint32_t live_jobs_ = 0;
};

}  // namespace locsched
