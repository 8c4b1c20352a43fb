// Tests the nearest-rank quantile and the mean (base/stats.h).
#include "base/stats.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("Quantile is the nearest rank; MeanOf the mean", "[stats]") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  CHECK(Quantile(v, 0.95) == 95);
  CHECK(Quantile(v, 0.5) == 50);
  CHECK(Quantile(v, 1) == 100);
  CHECK(Quantile({7}, 0.95) == 7);
  CHECK(Quantile({}, 0.95) == 0);
  CHECK(Quantile({3, 1, 2}, 0.34) == 2);  // ceil(0.34 * 3) = 2nd smallest
  CHECK(MeanOf(v) == Approx(50.5));
  CHECK(MeanOf({}) == 0);
}

}  // namespace
}  // namespace locsched
