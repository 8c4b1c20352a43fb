// FlatMap64: an open-addressing hash map from uint64 keys to uint32 values,
// used by the queue structures to find a (queue, job) subqueue without a heap
// allocation per insert. Linear probing, backward-shift deletion. Single-threaded.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace locsched {

/// uint64 -> uint32 map; the key UINT64_MAX is reserved as "empty".
class FlatMap64 {
 public:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  static constexpr uint32_t kMissing = UINT32_MAX;

  FlatMap64() { Rehash(16); }

  /// Value stored for key, or kMissing.
  uint32_t Find(uint64_t key) const {
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == kEmpty) return kMissing;
    }
  }

  /// Inserts or overwrites key -> value.
  void Put(uint64_t key, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);  // load <= 1/2: short probes
    size_t i = Slot(key);
    while (slots_[i].key != kEmpty && slots_[i].key != key) i = (i + 1) & mask_;
    if (slots_[i].key == kEmpty) ++size_;
    slots_[i] = {key, value};
  }

  /// Removes key if present; later entries of its probe run shift back.
  void Erase(uint64_t key) {
    size_t i = Slot(key);
    while (slots_[i].key != key) {
      if (slots_[i].key == kEmpty) return;
      i = (i + 1) & mask_;
    }
    // Backward shift: pull each following entry into the hole if its home allows it.
    for (size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      const size_t home = Slot(slots_[j].key);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].key = kEmpty;
    --size_;
  }

  /// Removes every key and sizes the table for `expected_keys` without a rehash.
  void Reset(size_t expected_keys) {
    slots_.clear();
    Rehash(std::max<size_t>(16, std::bit_ceil(2 * expected_keys + 2)));
  }

  /// Number of keys stored.
  size_t size() const { return size_; }

 private:
  struct Entry {
    uint64_t key;
    uint32_t value;
  };
  size_t Slot(uint64_t key) const { return (key * 0x9e3779b97f4a7c15ULL) >> shift_; }
  void Rehash(size_t capacity) {
    std::vector<Entry> old = std::move(slots_);
    slots_.assign(capacity, Entry{kEmpty, 0});
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    size_ = 0;
    for (const Entry& e : old)
      if (e.key != kEmpty) Put(e.key, e.value);
  }
  std::vector<Entry> slots_;
  size_t mask_ = 0;
  int shift_ = 60;
  size_t size_ = 0;
};

}  // namespace locsched
