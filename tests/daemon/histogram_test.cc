#include "daemon/histogram.h"

#include <catch2/catch.hpp>
#include <string>

namespace locsched {
namespace {

TEST_CASE("a histogram counts each value into the first bound at or above it") {
  Histogram h{1, 2, 5};
  for (double v : {0.5, 1.0, 1.5, 5.0, 7.0}) h.Observe(v);
  CHECK(h.buckets() == std::vector<uint64_t>{2, 1, 1, 1});
  CHECK(h.count() == 5);
  CHECK(h.sum() == Approx(15.0));
}

TEST_CASE("a histogram's text has cumulative buckets, +Inf, sum and count") {
  Histogram h{0.00001, 0.5};
  h.Observe(0.25);
  h.Observe(3);
  std::string text;
  h.AppendMetrics("x_seconds", "Help.", &text);
  CHECK(text ==
        "# HELP x_seconds Help.\n"
        "# TYPE x_seconds histogram\n"
        "x_seconds_bucket{le=\"0.00001\"} 0\n"
        "x_seconds_bucket{le=\"0.5\"} 1\n"
        "x_seconds_bucket{le=\"+Inf\"} 2\n"
        "x_seconds_sum 3.25\n"
        "x_seconds_count 2\n");
}

TEST_CASE("NaN is not counted") {
  Histogram h = LatencyHistogram();
  h.Observe(std::numeric_limits<double>::quiet_NaN());
  CHECK(h.count() == 0);
}

TEST_CASE("the shipped bounds ascend") {
  for (const Histogram& h : {LatencyHistogram(), DurationHistogram()})
    for (size_t i = 1; i < h.bounds().size(); ++i) CHECK(h.bounds()[i - 1] < h.bounds()[i]);
}

}  // namespace
}  // namespace locsched
