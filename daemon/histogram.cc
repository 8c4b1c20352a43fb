#include "daemon/histogram.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "io/wire/json_writer.h"

namespace locsched {

namespace {

// A bucket bound in plain decimals ("0.00001", "86400"), as Prometheus clients print them.
void AppendBound(double bound, std::string* out) {
  std::array<char, 64> buf{};
  const auto r =
      std::to_chars(buf.data(), buf.data() + buf.size(), bound, std::chars_format::fixed);
  out->append(buf.data(), r.ptr);
}

}  // namespace

Histogram::Histogram(std::initializer_list<double> bounds)
    : bounds_(bounds), buckets_(bounds.size() + 1, 0) {}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++buckets_[static_cast<size_t>(it - bounds_.begin())];
  ++count_;
  sum_ += value;
}

void Histogram::AppendMetrics(std::string_view name, std::string_view help,
                              std::string* out) const {
  out->append("# HELP ").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE ").append(name).append(" histogram\n");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += buckets_[i];
    out->append(name).append("_bucket{le=\"");
    if (i == bounds_.size())
      out->append("+Inf");
    else
      AppendBound(bounds_[i], out);
    out->append("\"} ").append(std::to_string(cumulative)).append("\n");
  }
  out->append(name).append("_sum ");
  JsonWriter(out).Double(sum_);
  out->append("\n").append(name).append("_count ").append(std::to_string(count_)).append("\n");
}

Histogram LatencyHistogram() {
  return Histogram{1e-5, 2.5e-5, 5e-5,   1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3,
                   5e-3, 1e-2,   2.5e-2, 5e-2, 0.1,    0.25, 0.5,  1};
}

Histogram DurationHistogram() {
  return Histogram{1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400};
}

}  // namespace locsched
