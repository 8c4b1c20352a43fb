// JobIndex: for the baseline policies, each job's queued tasks in arrival
// order, and for each (job, machine) the queued tasks local to that machine.
// Entries are deleted lazily: an entry is live only while its task is queued
// with the generation it was indexed under. Each job has its own small map of
// machines, so the jobs a policy asks about on every decision (the first of its
// order) keep their maps in cache. Single-threaded.
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
  /// Oldest live queued task of job j local to machine m, or kNoId; it stays queued.
  TaskId FindLocal(JobId j, MachineId m);
  /// Oldest live queued task of job j, or kNoId; it stays queued.
  TaskId FindAny(JobId j);
  /// Frees every list of job j (call when the job leaves).
  void DropJob(JobId j);
  /// Index entries held, live or stale (for tests and memory figures).
  size_t entries() const { return nodes_.size() - free_nodes_.size(); }

 private:
  struct Node {
    TaskId task;
    uint32_t generation;
    uint32_t next;
  };
  struct List {
    uint32_t head = kNoId, tail = kNoId;
  };
  // One job's lists: every queued task, and by machine those local to it.
  struct JobLists {
    List any;
    FlatMap64 by_machine;            // machine -> index into lists_
    std::vector<uint32_t> machines;  // the keys of by_machine, to free them
  };
  void Append(List& list, TaskId t, uint32_t generation);
  TaskId FrontLive(List& list, JobId j);
  bool Live(const Node& n, JobId j) const;

  Cluster& cluster_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  std::vector<List> lists_;
  std::vector<uint32_t> free_lists_;
  std::vector<JobLists> jobs_;  // by job id
};

}  // namespace locsched
