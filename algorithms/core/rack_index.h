// RackIndex: late binding's rack level. For each (job, rack) it lists the job's
// queued tasks with a replica in that rack, in arrival order, so a free slot with
// no local task finds the oldest waiting job's task in its own rack in O(1)
// amortised. Entries are dropped lazily: one is live while its stamp matches the
// caller's stamp for the task. Owned by LateBinding; single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"
#include "base/flat_map.h"

namespace locsched {

/// Per-(job, rack) FIFO lists of queued tasks, with lazy deletion by stamp.
class RackIndex {
 public:
  explicit RackIndex(const Cluster& cluster) : cluster_(cluster) {}

  /// Lists task t (stamped `stamp`) under its job and each distinct rack of its replicas.
  void Add(TaskId t, uint32_t stamp);
  /// The oldest task of job j with a replica in `rack` whose stamp still equals
  /// stamps[task] (kNoId if none); it stays listed.
  TaskId Find(JobId j, uint32_t rack, const std::vector<uint32_t>& stamps);
  /// Frees every list of job j (call when the job leaves).
  void DropJob(JobId j);
  /// Entries held, live or stale (for tests).
  size_t entries() const { return entries_; }

 private:
  struct Entry {
    TaskId task;
    uint32_t stamp;
  };
  // A FIFO as a vector and a read position, compacted once half of it is read.
  struct List {
    std::vector<Entry> items;
    size_t head = 0;
  };
  static uint64_t Key(JobId j, uint32_t rack) { return uint64_t{j} << 32 | rack; }

  const Cluster& cluster_;
  FlatMap64 lists_by_key_;   // (job, rack) -> index into lists_
  std::vector<List> lists_;  // recycled through free_lists_
  std::vector<uint32_t> free_lists_;
  std::vector<std::vector<uint32_t>> racks_of_;  // by job: the racks it has lists in
  size_t entries_ = 0;
};

}  // namespace locsched
