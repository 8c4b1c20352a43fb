// NameIndex: the task names of one job, packed for the daemon's memory budget:
// one string arena, end offsets, and an open-addressing table from a name to
// its position. About 12 bytes plus the name's characters per task, against
// ~80 for an unordered_map<std::string, id>. Owned by the Engine; one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locsched {

/// Names at positions 0..size()-1, findable by name.
class NameIndex {
 public:
  /// Prepares room for n names (the table is sized once, for at most half load).
  void Reserve(size_t n);
  /// Appends a name at position size(); false (and nothing added) if it is already present.
  bool Add(std::string_view name);
  /// The position of name, if present.
  std::optional<uint32_t> Find(std::string_view name) const;
  /// The name at position pos (< size()).
  std::string_view Name(uint32_t pos) const;
  /// Names held.
  uint32_t size() const { return static_cast<uint32_t>(ends_.size()); }
  /// Bytes of heap this index holds (for memory reports).
  size_t heap_bytes() const;

 private:
  size_t Slot(std::string_view name) const;  // the slot holding name, or the empty one it hashes to
  void Grow();

  std::string arena_;            // every name, back to back
  std::vector<uint32_t> ends_;   // ends_[i]: end of name i in arena_
  std::vector<uint32_t> slots_;  // position + 1, or 0 for empty; size is a power of two
};

}  // namespace locsched
