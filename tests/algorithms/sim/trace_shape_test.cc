// AddEmptyMachines: a cluster grown by machines that hold no replica keeps every old
// machine in its rack; the shares round to whole racks; bad shapes are refused.
#include "algorithms/sim/trace_shape.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

// Rack of machine m in the cluster model (trace_sim.h).
uint32_t RackOf(uint32_t m, const ClusterShape& c) {
  return static_cast<uint32_t>(uint64_t{m} * c.racks / c.machines);
}

TEST_CASE("AddEmptyMachines: new racks the size of the others, old machines in their racks") {
  ClusterShape grown;
  REQUIRE(AddEmptyMachines({600, 20}, 0.05, &grown).empty());  // one rack of 30
  CHECK(grown.machines == 630);
  CHECK(grown.racks == 21);
  const ClusterShape data{600, 20};
  for (uint32_t m = 0; m < 600; ++m) CHECK(RackOf(m, grown) == RackOf(m, data));
  for (uint32_t m = 600; m < 630; ++m) CHECK(RackOf(m, grown) == 20);  // the new rack
  REQUIRE(AddEmptyMachines({600, 20}, 0.1, &grown).empty());           // 0.1 x 20: exactly 2 racks
  CHECK(grown.machines == 660);
  CHECK(grown.racks == 22);
  REQUIRE(AddEmptyMachines({600, 20}, 0.001, &grown).empty());  // at least one rack
  CHECK(grown.machines == 630);
}

TEST_CASE("AddEmptyMachines: without racks, ceil(share x machines) machines") {
  ClusterShape grown;
  REQUIRE(AddEmptyMachines({3000, 0}, 0.1, &grown).empty());
  CHECK(grown.machines == 3300);
  CHECK(grown.racks == 0);
  REQUIRE(AddEmptyMachines({7, 1}, 0.5, &grown).empty());
  CHECK(grown.machines == 11);
  CHECK(grown.racks == 1);
}

TEST_CASE("AddEmptyMachines: refuses a share out of range and racks of unequal size") {
  ClusterShape grown;
  CHECK_THAT(AddEmptyMachines({600, 0}, 0, &grown), Catch::Contains("(0, 10]"));
  CHECK_THAT(AddEmptyMachines({600, 0}, 11, &grown), Catch::Contains("(0, 10]"));
  CHECK_THAT(AddEmptyMachines({600, 7}, 0.1, &grown), Catch::Contains("multiple of the racks"));
  CHECK_THAT(AddEmptyMachines({1u << 23, 0}, 2, &grown), Catch::Contains("2^24"));
}

}  // namespace
}  // namespace locsched
