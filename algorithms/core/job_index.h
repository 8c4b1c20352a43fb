// JobIndex: for late binding and the baseline policies, each job's queued tasks
// in arrival order, and for each (job, machine) the queued tasks local to that
// machine. Entries are deleted lazily: an entry is live only while its task's
// stamp (a dense array, bumped by Add and Remove) is the one it was indexed
// under, so the owner calls Remove when a task leaves the queue. A job's machine lists are
// built on the first FindLocal for it (policies ask only about the first jobs
// of their order); until then a task costs one append. Each list is a flat
// array read from a head index, so the stale entries a search passes lie side
// by side, and a full one drops its stale entries before it grows; a job finds
// its lists through a table by machine when that is smaller than a map of the
// machines it uses. Single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"
#include "base/flat_map.h"

namespace locsched {

/// Per-job "any task" and per-(job, machine) "local task" FIFO lists.
class JobIndex {
 public:
  explicit JobIndex(Cluster& cluster) : cluster_(cluster) {}

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
    const List& any = jobs_[j].any;
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
  // A FIFO: entries before `head` are taken; the read prefix goes once it outgrows the rest.
  struct List {
    std::vector<Entry> items;
    uint32_t head = 0;
  };
  // One job's lists: every queued task, and by machine those local to it.
  struct JobLists {
    List any;
    bool indexed = false;            // the machine lists hold every live task of `any`
    std::vector<uint32_t> table;     // machine -> index into lists_ (kNoId: none), or empty
    FlatMap64 by_machine;            // machine -> index into lists_ while `table` is empty
    std::vector<uint32_t> machines;  // the machines with a list, to free them
  };
  void Push(List& list, TaskId t, uint32_t stamp);
  void AddLocal(JobLists& job, TaskId t, uint32_t stamp);
  void Build(JobId j);
  void ReserveLists(JobLists& job);
  void Prune(List& list);
  uint32_t ListOf(const JobLists& job, MachineId m) const;
  uint32_t NewList(JobLists& job, MachineId m);
  void FreeList(List& list);
  TaskId FrontLive(List& list);
  bool Live(const Entry& e) const { return stamp_[e.task] == e.stamp; }

  Cluster& cluster_;
  std::vector<List> lists_;  // the machine lists of every indexed job, recycled
  std::vector<uint32_t> free_lists_;
  std::vector<JobLists> jobs_;  // by job id
  // By task id: 4 bytes a task instead of its 64-byte record, for the liveness checks.
  std::vector<uint32_t> stamp_;
  size_t entries_ = 0;
};

}  // namespace locsched
