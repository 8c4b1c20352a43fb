// RateMeter: the mean over the ten whole seconds before now; old buckets expire.
#include "daemon/rate_meter.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("the rate meter averages the last ten whole seconds") {
  RateMeter m;
  for (int s = 0; s < 20; ++s)
    for (int k = 0; k < 5 * s; ++k) m.Add(1000 + s + 0.5);
  // Seconds 1010..1019 held 50..95 events: mean 72.5. The current second (1020) is excluded.
  CHECK(m.PerSecond(1020.2) == Approx(72.5));
  m.Add(1020.3);
  CHECK(m.PerSecond(1020.9) == Approx(72.5));
  CHECK(m.PerSecond(1030.5) == Approx(0.1));  // only the one event at 1020 is still in range
  CHECK(m.PerSecond(1031.0) == 0);
  CHECK(m.PerSecond(2000) == 0);
}

TEST_CASE("an idle rate meter reads zero") {
  RateMeter m;
  CHECK(m.PerSecond(5) == 0);
}

}  // namespace
}  // namespace locsched
