// ReplicaList: the machines holding a task's input. Up to kInline ids live
// inside the Task record itself (the common case, 3 replicas), so reading a
// task's local set costs no extra memory access; more spill to the heap, and
// the inline words then hold the pointer (16 bytes either way).
// A plain value type; single-threaded like its owner.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

namespace locsched {

/// A small list of machine ids with inline storage for kInline of them.
class ReplicaList {
 public:
  static constexpr uint32_t kInline = 3;

  ReplicaList() = default;
  ~ReplicaList() { FreeHeap(); }
  ReplicaList(const ReplicaList& o) { Assign(o.view()); }
  ReplicaList& operator=(const ReplicaList& o) {
    if (this != &o) Assign(o.view());
    return *this;
  }
  ReplicaList(ReplicaList&& o) noexcept { Take(o); }
  ReplicaList& operator=(ReplicaList&& o) noexcept {
    if (this != &o) {
      FreeHeap();
      Take(o);
    }
    return *this;
  }

  /// Replaces the contents with `ids` (which may view this list itself).
  void Assign(std::span<const uint32_t> ids) {
    if (size_ > kInline || ids.size() > kInline) return AssignHeap(ids);  // rare
    size_ = static_cast<uint32_t>(ids.size());
    // A fixed-bound loop the compiler unrolls, instead of a memcpy call per task.
    for (uint32_t i = 0; i < kInline; ++i)
      if (i < size_) words_[i] = ids[i];
  }
  /// Empties the list.
  void clear() { FreeHeap(); }
  /// Number of replicas.
  size_t size() const { return size_; }
  /// True if there are none.
  bool empty() const { return size_ == 0; }
  const uint32_t* begin() const { return data(); }
  const uint32_t* end() const { return data() + size_; }
  uint32_t operator[](size_t i) const { return data()[i]; }
  /// The ids as a span.
  std::span<const uint32_t> view() const { return {data(), size_}; }
  /// True if `id` is in the list. No early exit: which replica matches is
  /// data-dependent, and a mispredicted exit costs more than the compares it saves.
  bool Contains(uint32_t id) const {
    bool found = false;
    if (size_ > kInline) [[unlikely]] {
      for (uint32_t r : view()) found |= r == id;
      return found;
    }
    // A fixed-bound loop over the inline words (unrolled, no loop left); words past
    // size_ hold stale ids and are masked off.
    for (uint32_t i = 0; i < kInline; ++i) found |= (i < size_) & (words_[i] == id);
    return found;
  }

 private:
  // More than kInline ids live on the heap, and the first two words hold the
  // pointer (copied bytewise: the words are only 4-byte aligned). That keeps the
  // list at 16 bytes instead of 24 with a separate pointer member.
  uint32_t* Heap() const {
    uint32_t* heap;
    std::memcpy(&heap, words_, sizeof heap);
    return heap;
  }
  const uint32_t* data() const { return size_ > kInline ? Heap() : words_; }
  // Frees the heap block, if any, and empties the list.
  void FreeHeap() {
    if (size_ > kInline) delete[] Heap();
    size_ = 0;
  }
  // Assign when the old or the new contents are on the heap: copies ids out
  // before the old block (which they may view) is freed.
  void AssignHeap(std::span<const uint32_t> ids) {
    const auto n = static_cast<uint32_t>(ids.size());
    if (n > kInline) {
      uint32_t* heap = new uint32_t[n];
      std::copy(ids.begin(), ids.end(), heap);
      FreeHeap();
      size_ = n;
      std::memcpy(words_, &heap, sizeof heap);
      return;
    }
    uint32_t copy[kInline] = {};
    for (uint32_t i = 0; i < kInline; ++i)
      if (i < n) copy[i] = ids[i];
    FreeHeap();
    size_ = n;
    for (uint32_t i = 0; i < kInline; ++i) words_[i] = copy[i];
  }
  void Take(ReplicaList& o) {
    std::memcpy(words_, o.words_, sizeof words_);
    size_ = o.size_;
    o.size_ = 0;  // o no longer owns a heap block
  }

  uint32_t words_[kInline] = {};
  uint32_t size_ = 0;
};

static_assert(sizeof(ReplicaList) == 16, "ReplicaList should stay 16 bytes");
static_assert(sizeof(uint32_t*) <= 2 * sizeof(uint32_t), "the heap pointer fits two words");

}  // namespace locsched
