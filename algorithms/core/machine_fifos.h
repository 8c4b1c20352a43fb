// MachineFifos: late binding's per-machine lists of queued local tasks in arrival
// order, and each machine's count of them. Routing a task appends one entry to
// an arrival log; the log is dealt out to its holders' lists when a list is
// read (Front), or by routing once it holds a few entries a machine, so routing
// writes one sequential entry instead of one in each holder's list and no read
// deals a whole backlog. Entries are dropped lazily: one is live while its stamp
// equals the caller's stamp array's entry for the task (JobIndex's rule). A
// task's replicas must not change while it is queued. Owned by LateBinding;
// single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"

namespace locsched {

/// Per-machine FIFOs of queued local tasks, filled lazily from an arrival log.
class MachineFifos {
 public:
  /// `cluster` and `stamps` (by task id) must outlive this; an entry is live while its
  /// stamp matches.
  MachineFifos(const Cluster& cluster, const std::vector<uint32_t>& stamps)
      : cluster_(cluster), stamps_(stamps) {}

  /// Makes room for machine m.
  void AddMachine(MachineId m);
  /// Lists queued task t (stamped `stamp`) under each of its replica holders.
  void Add(TaskId t, uint32_t stamp, const ReplicaList& replicas);
  /// Task t (with these replicas) left the queue: its holders' counts drop. Its entries
  /// turn stale once the caller bumps its stamp.
  void Remove(const ReplicaList& replicas);
  /// Machine m's oldest live listed task, or kNoId; it stays listed.
  TaskId Front(MachineId m);
  /// Live entries listed under machine m.
  uint32_t count(MachineId m) const { return count_[m].live; }
  /// Tasks ever listed under machine m (each Add, requeues included): with the time since
  /// m joined, the rate at which tasks local to it arrive.
  uint64_t listed(MachineId m) const { return count_[m].listed; }
  /// Entries held, live or stale: the log's (one a task) and the lists' (for tests).
  size_t entries() const;
  /// Entries in the arrival log, not yet dealt to the lists (for tests).
  size_t logged() const { return log_.size(); }

 private:
  struct Entry {
    TaskId task;
    uint32_t stamp;
  };
  // A machine's entries: those before `head` are taken, stale ones after it are left
  // lazily. A flat array rather than a deque keeps the machines' records small.
  struct Fifo {
    std::vector<Entry> entries;
    uint32_t head = 0;
  };
  // The log's size, in entries a machine, at which routing deals it: a Front deals at
  // most this many a machine (at 10,000 machines, 2.2 ms at worst: docs/benchmarks.md).
  static constexpr size_t kLogLimit = 4;
  bool Live(const Entry& e) const { return stamps_[e.task] == e.stamp; }
  void Deal();
  void Push(MachineId m, Entry e);
  void Compact(Fifo& fifo);
  void CompactLog();

  const Cluster& cluster_;
  const std::vector<uint32_t>& stamps_;
  std::vector<Entry> log_;   // tasks routed since the last Deal, in arrival order
  std::vector<Fifo> fifos_;  // by machine
  // A machine's counts, side by side: Add touches both.
  struct Counts {
    uint32_t live = 0;    // live entries
    uint64_t listed = 0;  // tasks ever listed
  };
  std::vector<Counts> count_;  // by machine
  size_t queued_ = 0;          // tasks added and not removed
};

}  // namespace locsched
