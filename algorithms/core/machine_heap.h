// MachineHeap: an indexed binary min-heap of machine ids keyed by a double
// (Balanced-PANDAS's weighted workload), with O(log n) insert, erase and
// re-key and O(1) minimum. Owned by one policy; single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"

namespace locsched {

/// Min-heap of machine ids by key; ties go to the smaller id.
class MachineHeap {
 public:
  /// True if m is in the heap.
  bool Contains(MachineId m) const { return m < pos_.size() && pos_[m] != kNoId; }
  /// Inserts m with `key`, or re-keys it if present.
  void Set(MachineId m, double key);
  /// Removes m if present.
  void Erase(MachineId m);
  /// The machine with the least key, or kNoId when empty.
  MachineId Top() const { return heap_.empty() ? kNoId : heap_[0]; }
  /// m's key (m must be present).
  double Key(MachineId m) const { return key_[m]; }
  /// Machines in the heap.
  size_t size() const { return heap_.size(); }

 private:
  bool Less(MachineId a, MachineId b) const {
    return key_[a] != key_[b] ? key_[a] < key_[b] : a < b;
  }
  void Place(size_t i, MachineId m);
  void SiftUp(size_t i);
  void SiftDown(size_t i);

  std::vector<MachineId> heap_;
  std::vector<uint32_t> pos_;  // by machine; kNoId if absent
  std::vector<double> key_;    // by machine
};

}  // namespace locsched
