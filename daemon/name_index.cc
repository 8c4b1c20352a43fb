#include "daemon/name_index.h"

#include <bit>
#include <functional>

namespace locsched {

void NameIndex::Reserve(size_t n) {
  arena_.reserve(arena_.size() + n * 8);
  ends_.reserve(n);
  const size_t want = std::bit_ceil(std::max<size_t>(2 * n, 8));
  if (slots_.size() >= want) return;
  slots_.assign(want, 0);
  for (uint32_t i = 0; i < size(); ++i) slots_[Slot(Name(i))] = i + 1;
}

std::string_view NameIndex::Name(uint32_t pos) const {
  const uint32_t begin = pos == 0 ? 0 : ends_[pos - 1];
  return std::string_view(arena_).substr(begin, ends_[pos] - begin);
}

// Linear probing from the name's hash; the table is never more than half full.
size_t NameIndex::Slot(std::string_view name) const {
  const size_t mask = slots_.size() - 1;
  size_t i = std::hash<std::string_view>{}(name)&mask;
  while (slots_[i] != 0 && Name(slots_[i] - 1) != name) i = (i + 1) & mask;
  return i;
}

void NameIndex::Grow() {
  Reserve(std::max<size_t>(size() + 1, 2 * size()));
}

bool NameIndex::Add(std::string_view name) {
  if (2 * (size() + 1) > slots_.size()) Grow();
  const size_t slot = Slot(name);
  if (slots_[slot] != 0) return false;
  arena_.append(name);
  ends_.push_back(static_cast<uint32_t>(arena_.size()));
  slots_[slot] = size();
  return true;
}

std::optional<uint32_t> NameIndex::Find(std::string_view name) const {
  if (slots_.empty()) return std::nullopt;
  const uint32_t v = slots_[Slot(name)];
  if (v == 0) return std::nullopt;
  return v - 1;
}

size_t NameIndex::heap_bytes() const {
  return arena_.capacity() + 4 * (ends_.capacity() + slots_.capacity());
}

}  // namespace locsched
