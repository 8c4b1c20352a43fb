// Tests the task-time tails (algorithms/core/task_time.h) against their closed forms and
// against sampled gamma and exponential times.
#include "algorithms/core/task_time.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace locsched {
namespace {

// E[(X - y)^+] and E[max of n] by sampling gamma times (std::gamma_distribution): a
// reference independent of the closed forms and of Boost's incomplete gamma.
double SampledExcess(double mean, double cv, double y, int draws, uint64_t seed) {
  const double k = 1 / (cv * cv);
  std::mt19937_64 rng(seed);
  std::gamma_distribution<double> time(k, mean / k);
  double sum = 0;
  for (int i = 0; i < draws; ++i) sum += std::max(0.0, time(rng) - y);
  return sum / draws;
}

double SampledLargest(uint32_t n, double mean, int draws, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> time(1 / mean);
  double sum = 0;
  for (int i = 0; i < draws; ++i) {
    double top = 0;
    for (uint32_t k = 0; k < n; ++k) top = std::max(top, time(rng));
    sum += top;
  }
  return sum / draws;
}

}  // namespace

TEST_CASE("ExpectedExcess: the closed forms at fixed and exponential times", "[task_time]") {
  CHECK(ExpectedExcess(10, 0, 4) == Approx(6));
  CHECK(ExpectedExcess(10, 0, 12) == 0);
  CHECK(ExpectedExcess(10, 1, 10) == Approx(10 * std::exp(-1.0)));
  // Past a negative y the whole time and the gap count, whatever the spread.
  CHECK(ExpectedExcess(10, 1, -5) == Approx(15));
  CHECK(ExpectedExcess(10, 0.5, -5) == Approx(15));
}

TEST_CASE("ExpectedExcess matches sampled gamma times at every spread", "[task_time]") {
  const double cv = GENERATE(0.25, 0.5, 0.9, 1.0, 1.5);
  const double y = GENERATE(0.5, 10.0, 25.0, 60.0);
  CAPTURE(cv, y);
  const double mean = 25;
  const double sampled = SampledExcess(mean, cv, y, 400000, 7);
  // Sampling error: the excess's standard deviation is at most mean * (1 + cv); 4 sigma.
  CHECK(std::abs(ExpectedExcess(mean, cv, y) - sampled) <= 4 * mean * (1 + cv) / std::sqrt(4e5));
}

TEST_CASE("ExpectedLargest: fixed times end together, exponential ones spread", "[task_time]") {
  CHECK(ExpectedLargest(0, 25, 1) == 0);
  CHECK(ExpectedLargest(7, 25, 0) == Approx(25));
  CHECK(ExpectedLargest(1, 25, 1) == Approx(25));
  CHECK(ExpectedLargest(3, 25, 1) == Approx(25 * (1 + 0.5 + 1.0 / 3)));
  for (const uint32_t n : {2u, 10u, 40u})
    CHECK(ExpectedLargest(n, 10, 1) == Approx(SampledLargest(n, 10, 100000, n)).epsilon(0.01));
}

TEST_CASE("OffHolderCost: a lone task runs off once the wait exceeds the penalty", "[task_time]") {
  // No other task of the job: off pays iff off_mean < wait + local_mean, at any spread.
  const double cv = GENERATE(0.0, 0.5, 1.0);
  CAPTURE(cv);
  CHECK(OffHolderCost(100, 76, 25, cv, 0) < 0);
  CHECK(OffHolderCost(100, 74, 25, cv, 0) > 0);
}

TEST_CASE("OffHolderCost: a job whose other tasks end late waits longer", "[task_time]") {
  // The job's other tasks end at wait + 25 (they are queued behind): an exponential remote
  // run (mean 100) pays only once it seldom outlasts them; a fixed one as soon as it ends
  // no later than they do.
  const double wait = 100;
  CHECK(OffHolderCost(100, wait, 25, 1, wait + 25) > 0);
  CHECK(OffHolderCost(100, 250, 25, 1, 250 + 25) < 0);
  CHECK(OffHolderCost(100, wait, 25, 0, wait + 25) == 0);
}

}  // namespace locsched
