// JobIndex: for late binding and the baseline policies, each job's queued tasks in
// arrival order, and for each (job, machine) the queued tasks local to that machine.
// Entries are deleted lazily: an entry is live only while its task's stamp (a dense
// array, bumped by Add and Remove) is the one it was indexed under, so the owner calls
// Remove when a task leaves the queue. A job's machine lists are built on the first
// FindLocal for it (policies ask only about the first jobs of their order); until then a
// task costs one append. A caller that asks only where a local task is likely
// (SmallJobs::kScan: late binding) leaves a job of few entries without lists: FindLocal
// reads its `any` list, whose entries carry their tasks' holders, so its tasks cost no
// entry per holder (docs/benchmarks.md §16). Each list is a flat array read from a head
// index, so the stale entries a search passes lie side by side, and a full one drops its
// stale entries before it grows; a job finds its lists through a table by machine when
// that is smaller than a map of the machines it uses. Single-threaded.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/core/replica_list.h"
#include "base/flat_map.h"

namespace locsched {

/// Per-job "any task" and per-(job, machine) "local task" FIFO lists.
class JobIndex {
 public:
  /// How FindLocal searches a job whose `any` list is short (kScanLimit entries or fewer).
  enum class SmallJobs {
    /// Build its machine lists on the first FindLocal: for callers that ask about jobs
    /// that may hold nothing local to the machine (a walk down the job order).
    kBuildLists,
    /// Read its `any` list: for callers that ask only where a local task is likely
    /// (OrderFront's masks); the job then costs no list per machine.
    kScan,
  };

  explicit JobIndex(Cluster& cluster, SmallJobs small = SmallJobs::kBuildLists)
      : cluster_(cluster), small_(small) {}

  /// Indexes queued task t under its job and each of its replicas.
  void Add(TaskId t);
  /// Task t left the queue (picked or withdrawn): its entries are stale from now.
  void Remove(TaskId t) { ++stamp_[t]; }
  /// Task t's stamp: an entry made since its last Add is live while this stays equal.
  uint32_t Stamp(TaskId t) const { return stamp_[t]; }
  /// Every task's stamp, by task id (for indexes that share this liveness rule).
  const std::vector<uint32_t>& stamps() const { return stamp_; }
  /// Oldest live queued task of job j local to machine m, or kNoId; it stays queued.
  TaskId FindLocal(JobId j, MachineId m);
  /// Oldest live queued task of job j, or kNoId; it stays queued.
  TaskId FindAny(JobId j);
  /// Visits job j's live queued tasks, oldest first; `visit` must not change this index.
  template <typename Visit>
  void ForEachQueued(JobId j, Visit&& visit) const {
    if (j >= jobs_.size()) return;
    const Fifo<Queued>& any = jobs_[j].any;
    for (size_t i = any.head; i < any.items.size(); ++i)
      if (Live(any.items[i])) visit(any.items[i].task);
  }
  /// Frees every list of job j (call when the job leaves).
  void DropJob(JobId j);
  /// Index entries held, live or stale (for tests and memory figures).
  size_t entries() const { return entries_; }
  /// True once job j's machine lists exist (for tests).
  bool Indexed(JobId j) const { return j < jobs_.size() && jobs_[j].indexed; }

 private:
  struct Entry {
    TaskId task;
    uint32_t stamp;
  };
  // An entry of a job's `any` list, with its task's holders, so that a job with few
  // entries finds a local task by reading its own list (ScanLocal), not the task records.
  // A task with more than kHeld holders is marked kMany and read from its record.
  static constexpr uint32_t kHeld = ReplicaList::kInline;
  static constexpr MachineId kMany = kNoId - 1;
  struct Queued {
    TaskId task;
    uint32_t stamp;
    std::array<MachineId, kHeld> holders;
  };
  // A FIFO: entries before `head` are taken; the read prefix goes once it outgrows the rest.
  template <typename E>
  struct Fifo {
    std::vector<E> items;
    uint32_t head = 0;
  };
  using List = Fifo<Entry>;
  // One job's lists: every queued task, and by machine those local to it.
  struct JobLists {
    Fifo<Queued> any;
    bool indexed = false;            // the machine lists hold every live task of `any`
    std::vector<uint32_t> table;     // machine -> index into lists_ (kNoId: none), or empty
    FlatMap64 by_machine;            // machine -> index into lists_ while `table` is empty
    std::vector<uint32_t> machines;  // the machines with a list, to free them
  };
  // A job whose `any` list holds at most this many entries, live or stale, is searched
  // by reading that list; its machine lists are built once it holds more.
  static constexpr size_t kScanLimit = 256;
  template <typename E>
  void Push(Fifo<E>& list, E e);
  void AddLocal(JobLists& job, const Queued& q);
  void Build(JobId j);
  void ReserveLists(JobLists& job);
  template <typename E>
  void Prune(Fifo<E>& list);
  uint32_t ListOf(const JobLists& job, MachineId m) const;
  uint32_t NewList(JobLists& job, MachineId m);
  template <typename E>
  void FreeList(Fifo<E>& list);
  template <typename E>
  TaskId FrontLive(Fifo<E>& list);
  TaskId ScanLocal(const Fifo<Queued>& any, MachineId m) const;
  bool Holds(const Queued& q, MachineId m) const;
  // Calls visit(m) for each holder of q's task, from q itself unless it has kMany.
  template <typename Visit>
  void ForEachHolder(const Queued& q, Visit&& visit) const {
    if (q.holders[0] == kMany) [[unlikely]] {
      for (const MachineId m : cluster_.task(q.task).replicas) visit(m);
      return;
    }
    for (const MachineId m : q.holders)
      if (m != kNoId) visit(m);
  }
  Queued MakeQueued(TaskId t, uint32_t stamp) const;
  template <typename E>
  bool Live(const E& e) const {
    return stamp_[e.task] == e.stamp;
  }

  Cluster& cluster_;
  SmallJobs small_;
  std::vector<List> lists_;  // the machine lists of every indexed job, recycled
  std::vector<uint32_t> free_lists_;
  std::vector<JobLists> jobs_;  // by job id
  // By task id: 4 bytes a task instead of its 64-byte record, for the liveness checks.
  std::vector<uint32_t> stamp_;
  size_t entries_ = 0;
};

}  // namespace locsched
