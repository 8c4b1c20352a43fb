// OrderFront: late binding's job order, split into its first kFront jobs (the
// front, a sorted array) and the rest (a heap), so that a free slot finds the
// first front job with a task local to its machine without a look-up per job
// passed over. A front job holds one of kSlots slots, and each machine a
// bitmask of the slots whose job may have a queued task local to it: a bit is
// set when such a task is queued (or its job takes the slot) and cleared when
// a look-up finds the job has none there any more, so a clear bit is exact and
// a set one costs at most one look-up before it clears; a job that leaves the
// order clears its slot's bits on every machine. A job that drops out
// of the front keeps its slot, and its bits, until a job entering the front
// needs a slot and none is free (the one kept longest goes): a job that moves
// in and out of the front, as under `fair` when its tasks start and end, is
// not indexed anew each time. Job keys are read live, so the owner calls
// Update after a job's key changes. Owned by LateBinding; single-threaded.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/core/job_heap.h"
#include "algorithms/core/job_index.h"

namespace locsched {

/// A job order whose first kFront jobs are indexed by the machines they have tasks on.
class OrderFront {
 public:
  /// Jobs in the front: a free slot finds the first of them with a task local to it.
  static constexpr uint32_t kFront = 64;
  /// Slots: the front's, and those jobs that left it keep.
  static constexpr uint32_t kSlots = 128;

  /// `less(a, b)`: job a goes first. `index` holds the queued tasks (the owner adds and
  /// removes them) and, like `cluster`, must outlive this.
  OrderFront(const Cluster& cluster, const JobHeap::Less& less, JobIndex& index);

  /// Makes room for machine m.
  void AddMachine(MachineId m);
  /// Job j joins the order (must be absent).
  void Insert(JobId j);
  /// Job j leaves the order, if present.
  void Erase(JobId j);
  /// Restores the order after job j's key changed.
  void Update(JobId j);
  /// Queued task t was added to the index: its holders' masks learn of it.
  void Enqueued(TaskId t);
  /// The oldest queued task local to m of the first front job with one, or kNoId.
  TaskId FirstLocal(MachineId m);

  bool Contains(JobId j) const { return InFront(j) || rest_.Contains(j); }
  bool InFront(JobId j) const { return SlotOf(j) != kNoId && Has(front_slots_, SlotOf(j)); }
  bool Before(JobId a, JobId b) const { return rest_.Before(a, b); }
  size_t size() const { return front_.size() + rest_.size(); }
  /// The front's jobs, in order.
  const std::vector<JobId>& front() const { return front_; }
  /// Jobs before j in the order, at most `cap` (all jobs, at most cap, if j is absent).
  uint32_t JobsAhead(JobId j, uint32_t cap) const;

 private:
  static constexpr uint32_t kWords = kSlots / 64;
  using Bits = std::array<uint64_t, kWords>;
  static bool Has(const Bits& b, uint32_t s) { return (b[s / 64] >> (s % 64)) & 1; }
  static void Set(Bits& b, uint32_t s) { b[s / 64] |= uint64_t{1} << (s % 64); }
  static void Clear(Bits& b, uint32_t s) { b[s / 64] &= ~(uint64_t{1} << (s % 64)); }
  static uint32_t Lowest(uint64_t bits) { return static_cast<uint32_t>(__builtin_ctzll(bits)); }
  uint32_t SlotOf(JobId j) const { return j < slot_.size() ? slot_[j] : kNoId; }
  void Admit(JobId j);
  uint32_t TakeSlot(JobId j);
  void Place(JobId j);
  void Unplace(JobId j);
  void Release(JobId j);
  void Renumber(size_t from);
  void Move(size_t at);
  void Swap(size_t a, size_t b);
  void Balance();
  uint32_t FirstCandidate(const Bits& candidates) const;

  const Cluster& cluster_;
  JobIndex& index_;
  std::vector<JobId> front_;                   // the front, in order
  JobHeap rest_;                               // every other job, the first on top
  std::vector<uint32_t> slot_;                 // by job: the slot it holds, else kNoId
  std::array<JobId, kSlots> owner_{};          // by slot: the job holding it
  std::array<uint32_t, kSlots> rank_{};        // by front slot: its job's place in front_
  std::array<uint64_t, kSlots> kept_since_{};  // by kept slot: when its job left the front
  uint64_t clock_ = 0;
  Bits front_slots_{};       // slots of front jobs
  Bits held_{};              // slots held by any job
  std::vector<Bits> masks_;  // by machine: slots whose job may have a task local to it
};

}  // namespace locsched
