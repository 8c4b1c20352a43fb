// DedupeWindow: the most recent event ids with the reply each one got and a
// hash of the request it answered, so a sender that retries (the tailer after
// a crash, an agent after a timeout) gets the same answer and the event is
// applied once, while a different request reusing an id is told apart.
// Owned by the Dispatcher; event-loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace locsched {

/// A bounded FIFO of ids, each with its request's hash and its reply body.
class DedupeWindow {
 public:
  /// What is remembered of one id.
  struct Entry {
    uint64_t hash = 0;  ///< RequestHash of the request (0: unknown, from an older snapshot)
    std::string body;   ///< the reply body it got
  };

  /// Remembers at most `capacity` ids (0 disables deduplication).
  explicit DedupeWindow(uint64_t capacity) : capacity_(capacity) {}

  /// The entry recorded for id, or nullptr if the id is not remembered.
  const Entry* Find(std::string_view id) const;
  /// Records id with its request hash and reply body, forgetting the oldest id when full.
  void Remember(std::string id, uint64_t hash, std::string body);
  /// Changes the capacity, forgetting the oldest ids if it shrank.
  void SetCapacity(uint64_t capacity);
  /// Calls f(id, entry) for each remembered id, oldest first.
  template <typename F>
  void ForEach(F f) const {
    for (const std::string& id : order_) f(id, entries_.at(id));
  }
  /// Ids remembered now.
  uint64_t size() const { return order_.size(); }

 private:
  void Trim();
  uint64_t capacity_;
  std::unordered_map<std::string, Entry> entries_;
  std::deque<std::string> order_;
};

}  // namespace locsched
