// ArrivalWindow: task arrivals per locality type (replica set) over a sliding
// window, for the capacity headroom of the LP planner. Memory and the cost of
// Rates() are bounded by a cap on distinct exact types (the rest are counted
// folded into their first replica), so a stream of unique replica sets stays
// cheap. Event-loop thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/lp/capacity_lp.h"

namespace locsched {

/// Task arrivals per locality type in one-second buckets over a window.
class ArrivalWindow {
 public:
  /// A window of `seconds`, keeping at most `max_types` (capped at 65,535) distinct types
  /// exact.
  explicit ArrivalWindow(double seconds, size_t max_types = 4096)
      : window_(seconds), max_types_(std::min<size_t>(max_types, UINT16_MAX)) {}
  /// Changes the window's length.
  void SetWindow(double seconds) { window_ = seconds; }
  /// Counts the tasks of one submitted job at time `now`.
  void Add(double now, std::span<const TaskSpec> tasks);
  /// Arrival rates per type over the window: the `exact_types` most frequent types as
  /// they are, the rest folded into their first replica's single-machine type (this
  /// understates capacity, never overstates it), so at most exact_types + machines + 1.
  /// A type that arrived while `max_types` others were held is counted folded only.
  std::vector<ArrivalType> Rates(double now, size_t exact_types);

 private:
  using Type = std::vector<uint32_t>;  // sorted replica ids; empty = no local machine
  struct Held {                        // an exact type, keyed by its hash
    Type type;
    uint64_t count;
  };
  struct Bucket {
    int64_t second;
    std::unordered_map<uint64_t, uint64_t> exact;  // by type hash
    std::vector<uint32_t> folded;                  // by first replica (dense: the hot path)
    uint64_t remote;                               // tasks without replicas
  };
  void Count(std::span<const uint32_t> sorted);
  void Evict(double now);

  double window_;
  size_t max_types_;
  std::optional<double> first_;  // the first arrival ever seen
  std::deque<Bucket> buckets_;
  std::unordered_map<uint64_t, Held> exact_;  // the window's totals of the buckets' counts
  // exact_ keys per HintOf (at most max_types_ <= 65,535, so 16-bit counters hold any count)
  std::vector<uint16_t> held_hint_ = std::vector<uint16_t>(65536);
  std::vector<uint64_t> folded_;
  uint64_t remote_ = 0;
};

}  // namespace locsched
