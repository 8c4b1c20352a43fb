// NameIndex: the task names of one job (and the machine names), packed for the
// daemon's memory budget: one string arena, end offsets, and an open-addressing
// table from a name to its position whose slots carry 8 bits of the name's hash,
// so a probe past another name rarely touches the arena. About 12 bytes plus the
// name's characters per task, against ~80 for an unordered_map<std::string, id>.
// Owned by the Engine; one thread.
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
  /// Most names one index holds (positions fit the slots' low 24 bits).
  static constexpr uint32_t kMaxNames = (uint32_t{1} << 24) - 1;
  /// Appends a name at position size(); false (and nothing added) if it is already
  /// present. The caller keeps size() below kMaxNames.
  bool Add(std::string_view name);
  /// The position of name, if present.
  std::optional<uint32_t> Find(std::string_view name) const;
  /// The name at position pos (< size()).
  std::string_view Name(uint32_t pos) const;
  /// Names held.
  uint32_t size() const { return static_cast<uint32_t>(ends_.size()); }

 private:
  // The slot holding name, or the empty one it hashes to; *tag gets the tag bits.
  size_t Slot(std::string_view name, uint32_t* tag) const;
  void Grow();

  std::string arena_;            // every name, back to back
  std::vector<uint32_t> ends_;   // ends_[i]: end of name i in arena_
  std::vector<uint32_t> slots_;  // 0 for empty, else hash tag << 24 | (position + 1); size 2^k
};

}  // namespace locsched
