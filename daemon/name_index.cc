#include "daemon/name_index.h"

#include <bit>
#include <cassert>
#include <functional>

namespace locsched {

namespace {

constexpr uint32_t kPositionBits = 24;
constexpr uint32_t kPositionMask = (uint32_t{1} << kPositionBits) - 1;

}  // namespace

void NameIndex::Reserve(size_t n) {
  arena_.reserve(arena_.size() + n * 8);
  ends_.reserve(n);
  const size_t want = std::bit_ceil(std::max<size_t>(2 * n, 8));
  if (slots_.size() >= want) return;
  slots_.assign(want, 0);
  for (uint32_t i = 0; i < size(); ++i) {
    uint32_t tag = 0;
    const size_t slot = Slot(Name(i), &tag);
    slots_[slot] = tag | (i + 1);
  }
}

std::string_view NameIndex::Name(uint32_t pos) const {
  const uint32_t begin = pos == 0 ? 0 : ends_[pos - 1];
  return std::string_view(arena_).substr(begin, ends_[pos] - begin);
}

// Linear probing from the name's hash; the table is never more than half full.
// The low bits of the hash pick the first slot, the top 8 bits are the tag: a
// slot whose tag differs cannot hold the name, so its arena is not read.
size_t NameIndex::Slot(std::string_view name, uint32_t* tag) const {
  const size_t mask = slots_.size() - 1;
  const size_t h = std::hash<std::string_view>{}(name);
  *tag = static_cast<uint32_t>(h >> (8 * sizeof(size_t) - 8)) << kPositionBits;
  size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    const uint32_t v = slots_[i];
    if (v == 0) return i;
    if ((v & ~kPositionMask) == *tag && Name((v & kPositionMask) - 1) == name) return i;
  }
}

void NameIndex::Grow() {
  Reserve(std::max<size_t>(size() + 1, 2 * size()));
}

bool NameIndex::Add(std::string_view name) {
  assert(size() < kMaxNames);
  if (2 * (size() + 1) > slots_.size()) Grow();
  uint32_t tag = 0;
  const size_t slot = Slot(name, &tag);
  if (slots_[slot] != 0) return false;
  arena_.append(name);
  ends_.push_back(static_cast<uint32_t>(arena_.size()));
  slots_[slot] = tag | size();
  return true;
}

std::optional<uint32_t> NameIndex::Find(std::string_view name) const {
  if (slots_.empty()) return std::nullopt;
  uint32_t tag = 0;
  const uint32_t v = slots_[Slot(name, &tag)];
  if (v == 0) return std::nullopt;
  return (v & kPositionMask) - 1;
}

}  // namespace locsched
