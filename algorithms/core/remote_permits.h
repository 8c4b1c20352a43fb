// RemotePermits: queued tasks a rebalance plan (algorithms/hta/remote_plan.h) sends off
// their replica holders. A free slot with no local task takes the oldest live permit
// before late binding's own remote rule, unless that rule's remote run is quick; a holder
// may still take the task first, leaving the permit stale (dropped lazily). Owned by
// LateBinding; single-threaded.
#pragma once

#include <cstdint>
#include <deque>

#include "algorithms/core/cluster.h"

namespace locsched {

/// A first-come list of (task, generation) permits; O(1) amortised per take.
class RemotePermits {
 public:
  /// Drops every permit (a new plan replaces the last one).
  void Clear() { list_.clear(); }
  /// Lets queued task t run off its holders, while it stays in the queue it is in now.
  void Grant(const Cluster& c, TaskId t) { list_.push_back(Entry{t, c.task(t).generation}); }
  /// The oldest permit whose task still waits in the same queue entry, removed from the
  /// list (kNoId if none); stale permits ahead of it are dropped.
  TaskId Take(const Cluster& c);
  /// Permits listed, live or stale.
  size_t size() const { return list_.size(); }
  /// Permits taken so far (a task started through its permit).
  uint64_t taken() const { return taken_; }

 private:
  struct Entry {
    TaskId task;
    uint32_t generation;  ///< the task's generation when granted: a start or requeue bumps it
  };
  std::deque<Entry> list_;
  uint64_t taken_ = 0;
};

}  // namespace locsched
