#include "daemon/dedupe.h"

#include <utility>

namespace locsched {

const DedupeWindow::Entry* DedupeWindow::Find(std::string_view id) const {
  if (entries_.empty()) return nullptr;
  const auto it = entries_.find(std::string(id));
  return it == entries_.end() ? nullptr : &it->second;
}

void DedupeWindow::Remember(std::string id, uint64_t hash, std::string body) {
  if (capacity_ == 0) return;
  const auto [it, inserted] = entries_.try_emplace(id, Entry{hash, std::move(body)});
  if (!inserted) return;
  order_.push_back(std::move(id));
  Trim();
}

void DedupeWindow::SetCapacity(uint64_t capacity) {
  capacity_ = capacity;
  Trim();
}

void DedupeWindow::Trim() {
  while (order_.size() > capacity_) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
}

}  // namespace locsched
