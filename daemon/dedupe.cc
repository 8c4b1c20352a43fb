#include "daemon/dedupe.h"

#include <utility>

namespace locsched {

const std::string* DedupeWindow::Find(std::string_view id) const {
  if (bodies_.empty()) return nullptr;
  const auto it = bodies_.find(std::string(id));
  return it == bodies_.end() ? nullptr : &it->second;
}

void DedupeWindow::Remember(std::string id, std::string body) {
  if (capacity_ == 0) return;
  const auto [it, inserted] = bodies_.try_emplace(id, std::move(body));
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
    bodies_.erase(order_.front());
    order_.pop_front();
  }
}

}  // namespace locsched
