// JobNames: the live jobs by name, which the Engine looks up on every task
// event. A flat open-addressing map from the name's 64-bit hash to the job id
// (one probe, no node to chase); the caller's records hold the names, and a
// hit is checked against them. A name whose hash another live name already
// holds goes to a small overflow map. Owned by the Engine; one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "algorithms/core/cluster.h"
#include "base/flat_map.h"

namespace locsched {

/// Live job names -> job ids; `name_of(j)` gives live job j's name.
class JobNames {
 public:
  /// A name's 64-bit hash (tests pass a poor one to force collisions).
  using HashFn = uint64_t (*)(std::string_view);
  /// An empty map hashing names with `hash`.
  explicit JobNames(HashFn hash = StdHash) : hash_(hash) {}

  /// The live job named `name`, if any.
  template <typename NameOf>
  std::optional<JobId> Find(std::string_view name, NameOf name_of) const {
    const uint64_t h = hash_(name);
    const uint32_t j = h == FlatMap64::kEmpty ? FlatMap64::kMissing : by_hash_.Find(h);
    if (j != FlatMap64::kMissing && name_of(j) == name) return j;
    if (overflow_.empty()) return std::nullopt;
    const auto it = overflow_.find(std::string(name));
    if (it == overflow_.end()) return std::nullopt;
    return it->second;
  }
  /// Adds live job j under `name` (not live yet).
  void Add(std::string_view name, JobId j) {
    const uint64_t h = hash_(name);
    // The flat map reserves kEmpty as a key: a name with that hash counts as taken.
    const uint32_t held = h == FlatMap64::kEmpty ? 0 : by_hash_.Find(h);
    if (held == FlatMap64::kMissing)
      by_hash_.Put(h, j);
    else
      overflow_.emplace(std::string(name), j);  // another live name has this hash
    ++size_;
  }
  /// Removes live job j, named `name`.
  void Erase(std::string_view name, JobId j) {
    const uint64_t h = hash_(name);
    if (h != FlatMap64::kEmpty && by_hash_.Find(h) == j)
      by_hash_.Erase(h);
    else
      overflow_.erase(std::string(name));
    --size_;
  }
  /// Live jobs.
  size_t size() const { return size_; }

 private:
  static uint64_t StdHash(std::string_view name) { return std::hash<std::string_view>{}(name); }

  HashFn hash_;
  FlatMap64 by_hash_;                                // hash -> the first live job with it
  std::unordered_map<std::string, JobId> overflow_;  // the rest (hash collisions)
  size_t size_ = 0;
};

}  // namespace locsched
