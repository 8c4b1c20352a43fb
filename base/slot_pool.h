// TakeSlot: hands out the index of a reusable record in a vector-backed pool,
// reusing a freed index first and growing the vector otherwise. Used by the
// Cluster's id tables and the baselines' JobIndex. Single-threaded.
#pragma once

#include <cstdint>
#include <vector>

namespace locsched {

/// An index into `items`: the last freed one if any, else a new default-constructed record.
/// The record at a reused index keeps its old contents; the caller resets what it needs.
template <typename T>
uint32_t TakeSlot(std::vector<T>& items, std::vector<uint32_t>& freed) {
  if (!freed.empty()) {
    const uint32_t i = freed.back();
    freed.pop_back();
    return i;
  }
  items.emplace_back();
  return static_cast<uint32_t>(items.size() - 1);
}

}  // namespace locsched
