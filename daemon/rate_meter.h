// RateMeter: events per second over the last ten whole seconds, for `status`
// and `metrics`. Ten one-second buckets indexed by the clock's second; the
// caller supplies the time. RequestCounters owns one; event-loop thread only.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace locsched {

/// A sliding count of events in one-second buckets.
class RateMeter {
 public:
  /// Counts one event at time `now` (seconds).
  void Add(double now) {
    Bucket& b = Slot(now);
    ++b.count;
  }
  /// Mean events per second over the ten seconds before `now` (the current second excluded).
  double PerSecond(double now) const {
    const auto second = static_cast<int64_t>(std::floor(now));
    uint64_t sum = 0;
    for (const Bucket& b : buckets_)
      if (b.second < second && b.second >= second - kSeconds) sum += b.count;
    return static_cast<double>(sum) / kSeconds;
  }

  /// Seconds averaged over.
  static constexpr int64_t kSeconds = 10;

 private:
  struct Bucket {
    int64_t second = INT64_MIN;
    uint64_t count = 0;
  };
  Bucket& Slot(double now) {
    const auto second = static_cast<int64_t>(std::floor(now));
    Bucket& b =
        buckets_[static_cast<size_t>(((second % (kSeconds + 1)) + kSeconds + 1) % (kSeconds + 1))];
    if (b.second != second) b = Bucket{second, 0};
    return b;
  }
  std::array<Bucket, kSeconds + 1> buckets_{};
};

}  // namespace locsched
