#include "algorithms/core/task_time.h"

#include <algorithm>
#include <array>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>

namespace locsched {

namespace {

// Within this of 0 the time is taken as fixed, and within this of 1 as exponential: both
// have closed forms, and near 0 the gamma shape 1/cv^2 is too large for gamma_q.
constexpr double kFixedCv = 1e-3;

// H(0..31), so that the common case reads a table.
constexpr std::array<double, 32> kHarmonic = [] {
  std::array<double, 32> h{};
  for (uint32_t k = 1; k < h.size(); ++k) h[k] = h[k - 1] + 1.0 / k;
  return h;
}();

// The harmonic number H(n) = 1 + 1/2 + ... + 1/n (asymptotic past 31 terms).
double Harmonic(uint32_t n) {
  if (n < kHarmonic.size()) return kHarmonic[n];
  const double x = n;
  return std::log(x) + 0.5772156649015329 + 0.5 / x - 1 / (12 * x * x);
}

}  // namespace

double ExpectedExcess(double mean, double cv, double y) {
  if (y <= 0) return mean - y;
  if (cv < kFixedCv) return std::max(0.0, mean - y);
  if (std::abs(cv - 1) < kFixedCv) return mean * std::exp(-y / mean);
  // Gamma(k, theta) with k = 1/cv^2, theta = mean/k:
  // E[(X - y)^+] = mean * Q(k + 1, y/theta) - y * Q(k, y/theta).
  const double k = 1 / (cv * cv), z = y * k / mean;
  return std::max(0.0, mean * boost::math::gamma_q(k + 1, z) - y * boost::math::gamma_q(k, z));
}

double ExpectedLargest(uint32_t n, double mean, double cv) {
  return n == 0 ? 0 : mean * (1 + cv * (Harmonic(n) - 1));
}

double OffHolderCost(double off_mean, double wait, double local_mean, double cv,
                     double others_end) {
  return ExpectedExcess(off_mean, cv, others_end) -
         ExpectedExcess(local_mean, cv, others_end - wait);
}

}  // namespace locsched
