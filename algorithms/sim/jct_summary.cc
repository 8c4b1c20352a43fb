#include "algorithms/sim/jct_summary.h"

#include <iterator>

#include "algorithms/sim/jct_bound.h"
#include "base/stats.h"

namespace locsched {
namespace {

// Upper task counts of the buckets: 1, 2-10, 11-100, 101-1000, more.
constexpr uint32_t kBucketMax[] = {1, 10, 100, 1000, UINT32_MAX};

}  // namespace

void SummarizeJct(const TraceWorkload& w, const std::vector<double>& work,
                  const TraceClusterModel& c, TraceSimResult* r) {
  std::vector<double> done;
  std::vector<std::vector<double>> by_bucket(std::size(kBucketMax));
  r->weighted_jct_s = 0;
  for (size_t j = 0; j < w.jobs.size() && j < r->jct_s.size(); ++j) {
    const double jct = r->jct_s[j];
    if (jct < 0) continue;
    done.push_back(jct);
    r->weighted_jct_s += (w.weights.empty() ? 1 : w.weights[j]) * jct;
    size_t b = 0;
    while (w.jobs[j].tasks > kBucketMax[b]) ++b;
    by_bucket[b].push_back(jct);
  }
  r->mean_jct_s = MeanOf(done);
  r->p95_jct_s = Quantile(done, 0.95);
  r->buckets.clear();
  uint32_t lo = 1;
  for (size_t b = 0; b < by_bucket.size(); ++b) {
    r->buckets.push_back(JctBucket{lo, kBucketMax[b], by_bucket[b].size(), MeanOf(by_bucket[b]),
                                   Quantile(by_bucket[b], 0.95)});
    lo = kBucketMax[b] == UINT32_MAX ? lo : kBucketMax[b] + 1;
  }
  const JctBound bound = TraceJctBound(w, work, c, r->jct_s);
  r->lower_bound_mean_jct_s = bound.mean;
  r->lower_bound_critical_path_s = bound.critical_path_mean;
  r->lower_bound_srpt_s = bound.srpt_mean;
  r->lower_bound_weighted_jct_s = bound.weighted;
}

}  // namespace locsched
