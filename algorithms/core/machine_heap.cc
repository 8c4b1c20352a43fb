#include "algorithms/core/machine_heap.h"

namespace locsched {

void MachineHeap::Place(size_t i, MachineId m) {
  heap_[i] = m;
  pos_[m] = static_cast<uint32_t>(i);
}

void MachineHeap::Set(MachineId m, double key) {
  if (pos_.size() <= m) {
    pos_.resize(m + 1, kNoId);
    key_.resize(m + 1, 0);
  }
  key_[m] = key;
  if (pos_[m] == kNoId) {
    heap_.push_back(m);
    Place(heap_.size() - 1, m);
  }
  SiftUp(pos_[m]);
  SiftDown(pos_[m]);
}

void MachineHeap::Erase(MachineId m) {
  if (!Contains(m)) return;
  const size_t i = pos_[m];
  const MachineId last = heap_.back();
  heap_.pop_back();
  pos_[m] = kNoId;
  if (i == heap_.size()) return;
  Place(i, last);
  SiftDown(i);
  SiftUp(pos_[last]);
}

void MachineHeap::SiftUp(size_t i) {
  const MachineId m = heap_[i];
  while (i > 0 && Less(m, heap_[(i - 1) / 2])) {
    Place(i, heap_[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  Place(i, m);
}

void MachineHeap::SiftDown(size_t i) {
  const MachineId m = heap_[i];
  const size_t n = heap_.size();
  for (size_t child = 2 * i + 1; child < n; child = 2 * i + 1) {
    if (child + 1 < n && Less(heap_[child + 1], heap_[child])) ++child;
    if (!Less(heap_[child], m)) break;
    Place(i, heap_[child]);
    i = child;
  }
  Place(i, m);
}

}  // namespace locsched
