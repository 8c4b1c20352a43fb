// Tests MachineProfile (algorithms/lp/machine_profile.h) against a naive model: every
// placement fits the capacity at every instant, and no earlier candidate start
// (the ready time or the end of a placed task) would have fitted.
#include "algorithms/lp/machine_profile.h"

#include <catch2/catch.hpp>

#include <vector>

#include "base/rng.h"

namespace locsched {
namespace {

struct Placed {
  double start, end, demand;
};

// The peak usage during [s, e), evaluated at s and at every start inside.
double NaivePeak(const std::vector<Placed>& placed, double s, double e) {
  auto at = [&](double t) {
    double used = 0;
    for (const Placed& p : placed)
      if (p.start <= t && t < p.end) used += p.demand;
    return used;
  };
  double peak = at(s);
  for (const Placed& p : placed)
    if (p.start > s && p.start < e) peak = std::max(peak, at(p.start));
  return peak;
}

TEST_CASE("earliest fits match a naive model", "[machine_profile]") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    const double capacity = 1 + rng.Below(3);
    MachineProfile profile(capacity);
    std::vector<Placed> placed;
    for (int n = 0; n < 30; ++n) {
      const double ready = rng.Below(20), duration = 1 + rng.Below(6);
      const double demand = capacity * (1 + rng.Below(4)) / 4;
      const double start = profile.EarliestStart(ready, duration, demand);
      REQUIRE(start >= ready);
      REQUIRE(NaivePeak(placed, start, start + duration) + demand <= capacity + 1e-9);
      for (double candidate = ready; candidate < start;) {
        REQUIRE(NaivePeak(placed, candidate, candidate + duration) + demand > capacity + 1e-9);
        double next = start;  // the next end after `candidate`
        for (const Placed& p : placed)
          if (p.end > candidate && p.end < next) next = p.end;
        candidate = next;
      }
      profile.Add(start, duration, demand);
      placed.push_back({start, start + duration, demand});
    }
  }
}

}  // namespace
}  // namespace locsched
