#include "base/stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace locsched {

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  const size_t k = std::clamp<size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

double MeanOf(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

}  // namespace locsched
