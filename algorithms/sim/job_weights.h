// JobWeights: weights w_j for a workload's jobs, drawn per seed (the SynchPack paper's
// three cases: equal, random, and from Google job classes), and the weighted JCT of a run.
// Called by locsched-sim --trace and tests. Pure; no threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace locsched {

/// equal: every w_j = 1. uniform: an integer in 1..10. priority: 1 + a Google scheduling
/// class (0-3) drawn with the frequencies of the SUBMIT events of the Google 2011 trace's
/// first job_events part (919, 1625, 1419 and 937 jobs), as the offline instances use.
enum class WeightDist { kEqual, kUniform, kPriority };

std::optional<WeightDist> ParseWeightDist(std::string_view name);
std::string_view WeightDistName(WeightDist dist);

/// `jobs` weights, the same for the same seed.
std::vector<double> DrawJobWeights(WeightDist dist, size_t jobs, uint64_t seed);

/// sum over done jobs of w_j x JCT_j (jct[j] < 0: not done, skipped); w_j = 1 past `weights`.
double WeightedJct(const std::vector<double>& jct, const std::vector<double>& weights);

}  // namespace locsched
