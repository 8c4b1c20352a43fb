// RateEstimator: starts at the prior, converges to observed rates, keeps gamma <= alpha.
#include "algorithms/core/rate_estimator.h"

#include <catch2/catch.hpp>
#include <limits>

namespace locsched {
namespace {

TEST_CASE("rates start at the prior") {
  RateEstimator r(0.8, 0.2, 100);
  CHECK(r.alpha() == Approx(0.8));
  CHECK(r.gamma() == Approx(0.2));
}

TEST_CASE("rates converge to the inverse of the observed mean durations") {
  RateEstimator r(0.8, 0.2, 1000);
  for (int i = 0; i < 20000; ++i) {
    r.Observe(true, 2.0);   // local tasks take 2 s -> 0.5/s
    r.Observe(false, 8.0);  // remote tasks take 8 s -> 0.125/s
  }
  CHECK(r.alpha() == Approx(0.5).epsilon(0.01));
  CHECK(r.gamma() == Approx(0.125).epsilon(0.01));
  CHECK(r.local_samples() == 20000);
}

TEST_CASE("the rack-local rate is learnt on its own and stays between gamma and alpha") {
  RateEstimator r(0.8, 0.2, 1000);
  CHECK(r.beta() == Approx(0.4));  // the prior: sqrt(alpha * gamma)
  CHECK(RateEstimator(0.8, 0.2, 1000, 0.5).beta() == Approx(0.5));
  for (int i = 0; i < 20000; ++i) {
    r.Observe(Locality::kNode, 2.0);
    r.Observe(Locality::kRack, 4.0);     // -> 0.25/s
    r.Observe(Locality::kOffRack, 8.0);  // -> 0.125/s
  }
  CHECK(r.alpha() == Approx(0.5).epsilon(0.01));
  CHECK(r.beta() == Approx(0.25).epsilon(0.01));
  CHECK(r.gamma() == Approx(0.125).epsilon(0.01));
  CHECK(r.rack_samples() == 20000);
  CHECK(r.remote_samples() == 20000);
  for (int i = 0; i < 20000; ++i) r.Observe(Locality::kRack, 1.0);  // faster than local
  CHECK(r.beta() == r.alpha());
  // Saved and restored with the other levels.
  RateEstimator copy(0.8, 0.2, 1000);
  copy.Restore(r.observed());
  CHECK(copy.beta() == r.beta());
  CHECK(copy.rack_samples() == r.rack_samples());
}

TEST_CASE("remote priors follow the learnt local rate at the configured ratio") {
  // Regression: with local tasks 30x longer than the prior says and no remote sample yet,
  // gamma was capped at the learnt alpha, so remote looked as fast as local and late
  // binding's remote wait (1/gamma - 1/alpha) was zero.
  RateEstimator r(0.8, 0.2, 1000);
  for (int i = 0; i < 20000; ++i) r.Observe(Locality::kNode, 37.5);  // alpha -> 1/37.5
  CHECK(r.alpha() == Approx(1 / 37.5).epsilon(0.01));
  CHECK(r.gamma() == Approx(r.alpha() / 4).epsilon(1e-9));
  CHECK(r.beta() == Approx(r.alpha() / 2).epsilon(1e-9));  // sqrt(0.8 * 0.2) / 0.8
  // Remote samples then take over from the scaled prior.
  for (int i = 0; i < 20000; ++i) r.Observe(Locality::kOffRack, 75.0);
  CHECK(r.gamma() == Approx(1 / 75.0).epsilon(0.01));
}

TEST_CASE("the window forgets old observations") {
  RateEstimator r(1, 1, 10);
  for (int i = 0; i < 1000; ++i) r.Observe(true, 10.0);
  for (int i = 0; i < 200; ++i) r.Observe(true, 1.0);
  CHECK(r.alpha() == Approx(1.0).epsilon(0.05));
}

TEST_CASE("gamma never exceeds alpha, and bad durations are ignored") {
  RateEstimator r(0.5, 0.4, 100);
  for (int i = 0; i < 1000; ++i) r.Observe(false, 0.1);
  CHECK(r.gamma() == r.alpha());
  r.Observe(true, -1);
  r.Observe(true, std::numeric_limits<double>::quiet_NaN());
  CHECK(r.local_samples() == 0);
}

}  // namespace
}  // namespace locsched
