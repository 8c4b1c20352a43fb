#include "algorithms/core/job_heap.h"

#include <algorithm>
#include <cassert>

namespace locsched {

void JobHeap::Place(size_t i, JobId j) {
  heap_[i] = j;
  pos_[j] = static_cast<uint32_t>(i);
}

void JobHeap::Insert(JobId j) {
  if (pos_.size() <= j) pos_.resize(j + 1, kNoId);
  assert(pos_[j] == kNoId);
  heap_.push_back(j);
  Place(heap_.size() - 1, j);
  SiftUp(heap_.size() - 1);
}

void JobHeap::Erase(JobId j) {
  if (!Contains(j)) return;
  const size_t i = pos_[j];
  const JobId last = heap_.back();
  heap_.pop_back();
  pos_[j] = kNoId;
  if (i == heap_.size()) return;
  Place(i, last);
  SiftDown(i);
  SiftUp(pos_[last]);
}

void JobHeap::Update(JobId j) {
  if (!Contains(j)) return;
  SiftUp(pos_[j]);
  SiftDown(pos_[j]);
}

void JobHeap::SiftUp(size_t i) {
  const JobId j = heap_[i];
  while (i > 0 && less_(j, heap_[(i - 1) / 2])) {
    Place(i, heap_[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  Place(i, j);
}

void JobHeap::SiftDown(size_t i) {
  const JobId j = heap_[i];
  const size_t n = heap_.size();
  for (size_t child = 2 * i + 1; child < n; child = 2 * i + 1) {
    if (child + 1 < n && less_(heap_[child + 1], heap_[child])) ++child;
    if (!less_(heap_[child], j)) break;
    Place(i, heap_[child]);
    i = child;
  }
  Place(i, j);
}

void JobHeap::Smallest(size_t k, std::vector<JobId>& out) const {
  out.clear();
  if (heap_.empty() || k == 0) return;
  auto later = [this](uint32_t a, uint32_t b) { return less_(heap_[b], heap_[a]); };
  frontier_.assign(1, 0);
  while (!frontier_.empty() && out.size() < k) {
    std::pop_heap(frontier_.begin(), frontier_.end(), later);
    const uint32_t i = frontier_.back();
    frontier_.pop_back();
    out.push_back(heap_[i]);
    for (uint32_t c : {2 * i + 1, 2 * i + 2}) {
      if (c >= heap_.size()) continue;
      frontier_.push_back(c);
      std::push_heap(frontier_.begin(), frontier_.end(), later);
    }
  }
}

}  // namespace locsched
