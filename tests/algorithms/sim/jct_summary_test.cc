// Tests the JCT figures both trace simulators report (algorithms/sim/jct_summary.h)
// against a reference that sorts instead of selecting.
#include "algorithms/sim/jct_summary.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "base/rng.h"

namespace locsched {
namespace {

// The nearest-rank p95 by sorting: the smallest x with at least 95% of values <= x.
double SortedP95(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  for (size_t k = 0; k < v.size(); ++k)
    if (static_cast<double>(k + 1) >= 0.95 * static_cast<double>(v.size()) - 1e-9) return v[k];
  return v.back();
}

TraceWorkload RandomWorkload(Rng& rng, uint32_t jobs, bool weighted) {
  TraceWorkload w;
  for (uint32_t j = 0; j < jobs; ++j) {
    w.AddJob(j);
    const uint32_t sizes[] = {1, 2, 10, 11, 100, 101, 1000, 1001, 3000};
    const uint32_t tasks = sizes[rng.Below(static_cast<uint32_t>(std::size(sizes)))];
    for (uint32_t t = 0; t < tasks; ++t) w.AddTask(TaskKind::kMap, {0});
    if (weighted) w.weights.push_back(1 + static_cast<double>(rng.Below(4)));
  }
  return w;
}

TEST_CASE("JCT summary matches a sorting reference, per bucket and weighted", "[jct_summary]") {
  Rng rng(11);
  for (int round = 0; round < 30; ++round) {
    const TraceWorkload w = RandomWorkload(rng, 1 + rng.Below(60), round % 2 == 1);
    TraceSimResult r;
    for (size_t j = 0; j < w.jobs.size(); ++j)
      r.jct_s.push_back(rng.Below(5) == 0 ? -1 : static_cast<double>(rng.Below(1000)) / 7);
    const std::vector<double> work(w.num_tasks(), 1);
    SummarizeJct(w, work, TraceClusterModel{}, &r);
    std::vector<double> done;
    std::vector<std::vector<double>> bucket(5);
    double weighted = 0;
    for (size_t j = 0; j < w.jobs.size(); ++j) {
      if (r.jct_s[j] < 0) continue;
      done.push_back(r.jct_s[j]);
      weighted += (w.weights.empty() ? 1 : w.weights[j]) * r.jct_s[j];
      const uint32_t n = w.jobs[j].tasks;
      bucket[n <= 1 ? 0 : n <= 10 ? 1 : n <= 100 ? 2 : n <= 1000 ? 3 : 4].push_back(r.jct_s[j]);
    }
    const auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return v.empty() ? 0 : s / static_cast<double>(v.size());
    };
    REQUIRE(r.mean_jct_s == Approx(mean(done)));
    REQUIRE(r.p95_jct_s == SortedP95(done));
    REQUIRE(r.weighted_jct_s == Approx(weighted));
    REQUIRE(r.buckets.size() == 5);
    for (size_t b = 0; b < 5; ++b) {
      REQUIRE(r.buckets[b].jobs == bucket[b].size());
      REQUIRE(r.buckets[b].mean_jct_s == Approx(mean(bucket[b])));
      REQUIRE(r.buckets[b].p95_jct_s == SortedP95(bucket[b]));
    }
    REQUIRE(r.buckets[1].min_tasks == 2);
    REQUIRE(r.buckets[1].max_tasks == 10);
    REQUIRE(r.buckets[4].min_tasks == 1001);
  }
}

TEST_CASE("JCT summary of a run with no job done is all zero", "[jct_summary]") {
  TraceWorkload w;
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  TraceSimResult r;
  r.jct_s = {-1};
  SummarizeJct(w, {1}, TraceClusterModel{}, &r);
  REQUIRE(r.mean_jct_s == 0);
  REQUIRE(r.p95_jct_s == 0);
  REQUIRE(r.weighted_jct_s == 0);
  REQUIRE(r.buckets[0].jobs == 0);
  REQUIRE(r.lower_bound_mean_jct_s == 0);
  REQUIRE(r.lower_bound_weighted_jct_s == 0);
}

}  // namespace
}  // namespace locsched
