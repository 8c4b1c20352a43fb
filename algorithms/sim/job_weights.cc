#include "algorithms/sim/job_weights.h"

#include <array>

#include "base/rng.h"

namespace locsched {
namespace {

constexpr std::array<uint32_t, 4> kGoogleClassJobs = {919, 1625, 1419, 937};

double GoogleClassWeight(Rng& rng) {
  uint32_t total = 0;
  for (const uint32_t n : kGoogleClassJobs) total += n;
  uint32_t draw = rng.Below(total);
  for (uint32_t c = 0; c < kGoogleClassJobs.size(); ++c) {
    if (draw < kGoogleClassJobs[c]) return 1.0 + c;
    draw -= kGoogleClassJobs[c];
  }
  return 1.0 + (kGoogleClassJobs.size() - 1);
}

}  // namespace

std::optional<WeightDist> ParseWeightDist(std::string_view name) {
  if (name == "equal") return WeightDist::kEqual;
  if (name == "uniform") return WeightDist::kUniform;
  if (name == "priority") return WeightDist::kPriority;
  return std::nullopt;
}

std::string_view WeightDistName(WeightDist dist) {
  switch (dist) {
    case WeightDist::kEqual:
      return "equal";
    case WeightDist::kUniform:
      return "uniform";
    case WeightDist::kPriority:
      return "priority";
  }
  return "equal";
}

std::vector<double> DrawJobWeights(WeightDist dist, size_t jobs, uint64_t seed) {
  std::vector<double> w(jobs, 1.0);
  Rng rng(seed ^ 0x5eedf00dULL);  // apart from the work draws of the same seed
  for (double& x : w) {
    if (dist == WeightDist::kUniform) x = 1.0 + rng.Below(10);
    if (dist == WeightDist::kPriority) x = GoogleClassWeight(rng);
  }
  return w;
}

double WeightedJct(const std::vector<double>& jct, const std::vector<double>& weights) {
  double sum = 0;
  for (size_t j = 0; j < jct.size(); ++j)
    if (jct[j] >= 0) sum += (j < weights.size() ? weights[j] : 1.0) * jct[j];
  return sum;
}

}  // namespace locsched
