// Tests the job weight draws and the weighted JCT (algorithms/sim/job_weights.h).
#include "algorithms/sim/job_weights.h"

#include <catch2/catch.hpp>

#include <set>

namespace locsched {
namespace {

TEST_CASE("job weights are drawn per seed within each distribution's range", "[job_weights]") {
  REQUIRE(DrawJobWeights(WeightDist::kEqual, 5, 3) == std::vector<double>(5, 1.0));
  for (const WeightDist d : {WeightDist::kUniform, WeightDist::kPriority}) {
    const std::vector<double> a = DrawJobWeights(d, 2000, 7);
    REQUIRE(a == DrawJobWeights(d, 2000, 7));
    REQUIRE(a != DrawJobWeights(d, 2000, 8));
    const std::set<double> seen(a.begin(), a.end());
    const double top = d == WeightDist::kUniform ? 10 : 4;
    REQUIRE(*seen.begin() == 1);
    REQUIRE(*seen.rbegin() == top);
    REQUIRE(seen.size() == static_cast<size_t>(top));
  }
  REQUIRE(ParseWeightDist("priority") == WeightDist::kPriority);
  REQUIRE(WeightDistName(WeightDist::kUniform) == "uniform");
  REQUIRE_FALSE(ParseWeightDist("google"));
}

TEST_CASE("weighted JCT skips jobs not done", "[job_weights]") {
  REQUIRE(WeightedJct({10, -1, 5}, {2, 7, 3}) == Approx(35));
  REQUIRE(WeightedJct({10, 4}, {}) == Approx(14));
}

}  // namespace
}  // namespace locsched
