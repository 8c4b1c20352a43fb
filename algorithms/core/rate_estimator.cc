#include "algorithms/core/rate_estimator.h"

#include <algorithm>
#include <cmath>

namespace locsched {

namespace {
// Durations below this are treated as this, so one instant task cannot make a rate infinite.
constexpr double kMinSeconds = 1e-6;
}  // namespace

RateEstimator::RateEstimator(double alpha, double gamma, uint64_t window, double beta) {
  Reset(alpha, gamma, window, beta);
}

void RateEstimator::Reset(double alpha, double gamma, uint64_t window, double beta) {
  local_ = Mean{alpha, 0, 0, 0};
  rack_ = Mean{beta > 0 ? beta : std::sqrt(alpha * gamma), 0, 0, 0};
  remote_ = Mean{gamma, 0, 0, 0};
  decay_ = 1.0 - 1.0 / static_cast<double>(std::max<uint64_t>(window, 1));
}

void RateEstimator::Observe(Locality level, double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return;
  Mean& m = level == Locality::kNode ? local_ : level == Locality::kRack ? rack_ : remote_;
  Add(m, std::max(seconds, kMinSeconds));
}

void RateEstimator::Add(Mean& m, double seconds) const {
  m.sum = m.sum * decay_ + seconds;
  m.weight = m.weight * decay_ + 1;
  ++m.samples;
}

// The mean duration is the prior's kPriorWeight pseudo-durations of 1/rate
// plus the decayed observations; the rate is its inverse.
double RateEstimator::Mean::Rate() const {
  const double mean = (kPriorWeight / prior_rate + sum) / (kPriorWeight + weight);
  return 1.0 / mean;
}

RateEstimator::Observed RateEstimator::observed() const {
  return Observed{local_.sum,      local_.weight, remote_.sum,  remote_.weight, local_.samples,
                  remote_.samples, rack_.sum,     rack_.weight, rack_.samples};
}

void RateEstimator::Restore(const Observed& o) {
  local_.sum = o.local_sum;
  local_.weight = o.local_weight;
  local_.samples = o.local_samples;
  remote_.sum = o.remote_sum;
  remote_.weight = o.remote_weight;
  remote_.samples = o.remote_samples;
  rack_.sum = o.rack_sum;
  rack_.weight = o.rack_weight;
  rack_.samples = o.rack_samples;
}

double RateEstimator::alpha() const {
  return local_.Rate();
}

// The rack-local and off-rack priors keep their configured ratio to the local prior,
// scaled to the learnt local rate: on a cluster whose tasks run 30× longer than
// configured, remote is still 4× slower (alpha 0.8, gamma 0.2) until remote samples say
// otherwise, rather than capped at the learnt alpha, which made remote look free.
double RateEstimator::ScaledRate(const Mean& m) const {
  Mean scaled = m;
  scaled.prior_rate = m.prior_rate * alpha() / local_.prior_rate;
  return scaled.Rate();
}

double RateEstimator::beta() const {
  return std::clamp(ScaledRate(rack_), gamma(), alpha());
}

double RateEstimator::gamma() const {
  return std::min(ScaledRate(remote_), alpha());
}

}  // namespace locsched
