// DedupeWindow: the most recent event ids with the reply each one got, so a
// sender that retries (the tailer after a crash, an agent after a timeout)
// gets the same answer and the event is applied once. Owned by the
// Dispatcher; event-loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace locsched {

/// A bounded FIFO of ids and their reply bodies.
class DedupeWindow {
 public:
  /// Remembers at most `capacity` ids (0 disables deduplication).
  explicit DedupeWindow(uint64_t capacity) : capacity_(capacity) {}

  /// The reply body recorded for id, or nullptr if the id is not remembered.
  const std::string* Find(std::string_view id) const;
  /// Records id with its reply body, forgetting the oldest id when full.
  void Remember(std::string id, std::string body);
  /// Changes the capacity, forgetting the oldest ids if it shrank.
  void SetCapacity(uint64_t capacity);
  /// Calls f(id, body) for each remembered id, oldest first.
  template <typename F>
  void ForEach(F f) const {
    for (const std::string& id : order_) f(id, bodies_.at(id));
  }
  /// Ids remembered now.
  uint64_t size() const { return order_.size(); }

 private:
  void Trim();
  uint64_t capacity_;
  std::unordered_map<std::string, std::string> bodies_;
  std::deque<std::string> order_;
};

}  // namespace locsched
