// Summary statistics of a sample: the nearest-rank quantile and the mean, as every
// report of job completion times and delays in the project computes them (the trace
// simulators, locsched-agents). Pure; safe from any thread that owns the vector.
#pragma once

#include <vector>

namespace locsched {

/// The q-quantile (0 < q <= 1, nearest rank: the smallest value with at least q of the
/// values at or below it) of `values`; 0 if empty.
double Quantile(std::vector<double> values, double q);
/// The mean of `values`; 0 if empty.
double MeanOf(const std::vector<double>& values);

}  // namespace locsched
