// JobHeap: an indexed binary min-heap of job ids under a caller-supplied order
// (fewest running tasks, or arrival). Keys are read live from the Cluster, so
// the owner calls Update(j) after it changes a job's key. Used by the baseline
// policies; single-threaded.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "algorithms/core/cluster.h"

namespace locsched {

/// Min-heap of jobs with O(log n) insert, erase and re-key, and ordered iteration.
class JobHeap {
 public:
  /// `less(a, b)` says job a goes before job b.
  using Less = std::function<bool(JobId, JobId)>;
  explicit JobHeap(Less less) : less_(std::move(less)) {}

  /// True if job j is in the heap.
  bool Contains(JobId j) const { return j < pos_.size() && pos_[j] != kNoId; }
  /// Inserts j (must not be present).
  void Insert(JobId j);
  /// Removes j if present.
  void Erase(JobId j);
  /// Restores order after j's key changed.
  void Update(JobId j);
  /// True if job a goes before job b in the order.
  bool Before(JobId a, JobId b) const { return less_(a, b); }
  /// The first job, or kNoId when empty.
  JobId Top() const { return heap_.empty() ? kNoId : heap_[0]; }
  /// Jobs in the heap.
  size_t size() const { return heap_.size(); }
  /// How many jobs come before j in the order (every job if j is absent), counting up to
  /// cap: policies' JobsAhead.
  uint32_t CountBefore(JobId j, uint32_t cap) const {
    uint32_t ahead = 0;
    ForEachInOrder([&](JobId k) { return k != j && ++ahead < cap; });
    return ahead;
  }
  /// Visits jobs in order until `visit` returns false; O(k log k) for k visited, without
  /// allocating once the scratch has grown. `visit` must not iterate this heap itself.
  template <typename Visit>
  void ForEachInOrder(Visit&& visit) const {
    // A frontier of heap positions, itself a min-heap by job order: pop the
    // smallest, visit it, then admit its two children.
    if (heap_.empty()) return;
    auto later = [this](uint32_t a, uint32_t b) { return less_(heap_[b], heap_[a]); };
    frontier_.assign(1, 0);
    while (!frontier_.empty()) {
      std::pop_heap(frontier_.begin(), frontier_.end(), later);
      const uint32_t i = frontier_.back();
      frontier_.pop_back();
      if (!visit(heap_[i])) return;
      for (uint32_t c : {2 * i + 1, 2 * i + 2}) {
        if (c >= heap_.size()) continue;
        frontier_.push_back(c);
        std::push_heap(frontier_.begin(), frontier_.end(), later);
      }
    }
  }
  /// Writes the first min(k, size) jobs, in order, into `out` (cleared first); O(k log k)
  /// without allocating once `out` and the heap's scratch have grown.
  void Smallest(size_t k, std::vector<JobId>& out) const;

 private:
  void Place(size_t i, JobId j);
  void SiftUp(size_t i);
  void SiftDown(size_t i);

  Less less_;
  std::vector<JobId> heap_;
  std::vector<uint32_t> pos_;               // by job id; kNoId if absent
  mutable std::vector<uint32_t> frontier_;  // ForEachInOrder's and Smallest's scratch
};

}  // namespace locsched
