// Tests QueueMeter (algorithms/sim/queue_meter.h) on a run worked out by hand.
#include "algorithms/sim/queue_meter.h"

#include <catch2/catch.hpp>

#include <vector>

namespace locsched {
namespace {

TEST_CASE("queue meter: time-to-guarantee and share deficit, worked by hand") {
  // 10 slots; queue 0 is guaranteed 6, queue 1 is guaranteed 4.
  QueueMeter meter({6, 4}, 10);
  using V = std::vector<uint32_t>;
  meter.Observe(0, V{0, 0}, V{0, 0});
  meter.Observe(1, V{10, 0}, V{20, 0});  // 0 runs above its guarantee: no gap
  meter.Observe(2, V{10, 0}, V{20, 5});  // 1's demand appears: gap 4 from t = 2
  meter.Observe(5, V{8, 2}, V{20, 5});   // gap 2: 4 x 3 s / 10 = 1.2 so far
  meter.Observe(6, V{6, 4}, V{20, 5});   // 1 holds its 4: + 2 x 1 s / 10; episode 4 s
  meter.Observe(8, V{3, 4}, V{20, 3});   // 1 needs only 3 now; 0 drops to 3 of 6 (open)
  const std::vector<QueueMeterResult> r = meter.Finish(10);
  REQUIRE(r.size() == 2);
  CHECK(r[1].ttg_s == std::vector<double>{4});
  CHECK(r[1].ttg_p50_s == 4);
  CHECK(r[1].ttg_p99_s == 4);
  CHECK(r[1].share_deficit_s == Approx(1.4));
  CHECK(r[1].open_episodes == 0);
  CHECK(r[0].ttg_s.empty());
  CHECK(r[0].open_episodes == 1);
  CHECK(r[0].share_deficit_s == Approx(0.6));  // 3 slots x 2 s / 10
}

TEST_CASE("queue meter: demand below the guarantee is the target") {
  QueueMeter meter({5}, 10);
  using V = std::vector<uint32_t>;
  meter.Observe(0, V{0}, V{2});  // wants 2, holds 0
  meter.Observe(1, V{1}, V{2});
  meter.Observe(3, V{2}, V{2});
  meter.Observe(4, V{0}, V{0});  // demand gone: no gap
  const std::vector<QueueMeterResult> r = meter.Finish(9);
  CHECK(r[0].ttg_s == std::vector<double>{3});
  CHECK(r[0].share_deficit_s == Approx((2 * 1 + 1 * 2) / 10.0));
}

}  // namespace
}  // namespace locsched
