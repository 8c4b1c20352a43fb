// ReplicaList: the machines holding a task's input. Up to kInline ids live
// inside the Task record itself (the common case, 3 replicas), so reading a
// task's local set costs no extra memory access; more spill to the heap.
// A plain value type; single-threaded like its owner.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>

namespace locsched {

/// A small list of machine ids with inline storage for kInline of them.
class ReplicaList {
 public:
  static constexpr uint32_t kInline = 3;

  ReplicaList() = default;
  ReplicaList(const ReplicaList& o) { Assign(o.view()); }
  ReplicaList& operator=(const ReplicaList& o) {
    if (this != &o) Assign(o.view());
    return *this;
  }
  ReplicaList(ReplicaList&& o) noexcept = default;
  ReplicaList& operator=(ReplicaList&& o) noexcept = default;

  /// Replaces the contents with `ids`.
  void Assign(std::span<const uint32_t> ids) {
    size_ = static_cast<uint32_t>(ids.size());
    if (size_ > kInline) {
      heap_ = std::make_unique<uint32_t[]>(size_);  // rare: > 3 replicas
      std::copy(ids.begin(), ids.end(), heap_.get());
      return;
    }
    // A fixed-bound loop the compiler unrolls, instead of a memcpy call per task.
    for (uint32_t i = 0; i < kInline; ++i)
      if (i < size_) inline_[i] = ids[i];
  }
  /// Empties the list.
  void clear() { size_ = 0; }
  /// Number of replicas.
  size_t size() const { return size_; }
  /// True if there are none.
  bool empty() const { return size_ == 0; }
  const uint32_t* begin() const { return data(); }
  const uint32_t* end() const { return data() + size_; }
  uint32_t operator[](size_t i) const { return data()[i]; }
  /// The ids as a span.
  std::span<const uint32_t> view() const { return {data(), size_}; }

 private:
  uint32_t* data() { return size_ > kInline ? heap_.get() : inline_; }
  const uint32_t* data() const { return size_ > kInline ? heap_.get() : inline_; }

  uint32_t inline_[kInline] = {};
  uint32_t size_ = 0;
  std::unique_ptr<uint32_t[]> heap_;  // holds the ids when size_ > kInline
};

}  // namespace locsched
