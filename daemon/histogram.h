// Histogram: a Prometheus histogram with fixed upper bounds (cumulative buckets,
// a sum and a count), and its text exposition. The Engine keeps the job
// completion times in one, the Dispatcher the heartbeat latencies; the metrics
// text reads them. Not thread-safe: event-loop thread only.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace locsched {

/// Observations counted into buckets `le` (upper bounds, ascending) plus +Inf.
class Histogram {
 public:
  /// A histogram with the given ascending upper bounds (+Inf is implied).
  explicit Histogram(std::initializer_list<double> bounds);

  /// Counts one observation.
  void Observe(double value);
  /// Observations counted.
  uint64_t count() const { return count_; }
  /// Sum of the observations.
  double sum() const { return sum_; }
  /// Observations <= bounds()[i] (not cumulative: bucket i alone; the last is +Inf).
  const std::vector<uint64_t>& buckets() const { return buckets_; }
  /// The upper bounds, without +Inf.
  const std::vector<double>& bounds() const { return bounds_; }

  /// Appends "# HELP", "# TYPE ... histogram", the cumulative _bucket lines, _sum and
  /// _count of the family `name`.
  void AppendMetrics(std::string_view name, std::string_view help, std::string* out) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> buckets_;  // bounds_.size() + 1: the last is +Inf
  uint64_t count_ = 0;
  double sum_ = 0;
};

/// Bounds for latencies in seconds: 10 us to 1 s.
Histogram LatencyHistogram();
/// Bounds for job completion times in seconds: 1 s to 1 day.
Histogram DurationHistogram();

}  // namespace locsched
