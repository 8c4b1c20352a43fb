// Tests LocalityOf and the level names (algorithms/core/locality.h).
#include "algorithms/core/locality.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("LocalityOf: node, rack, off-rack; off-rack for every non-local run without racks",
          "[racks]") {
  Cluster c;
  for (const uint32_t rack : {0u, 0u, 1u}) c.AddMachine(Machine{rack});
  const JobId j = c.NewJob(1);
  const TaskId t = c.NewTask(j, TaskKind::kMap);
  const MachineId replicas[] = {0};
  c.task(t).replicas.Assign(replicas);
  CHECK(LocalityOf(c, t, 0, true) == Locality::kNode);
  CHECK(LocalityOf(c, t, 1, true) == Locality::kRack);
  CHECK(LocalityOf(c, t, 2, true) == Locality::kOffRack);
  CHECK(LocalityOf(c, t, 0, false) == Locality::kNode);
  CHECK(LocalityOf(c, t, 1, false) == Locality::kOffRack);
  CHECK(LocalityName(Locality::kNode) == "node");
  CHECK(LocalityName(Locality::kRack) == "rack");
  CHECK(LocalityName(Locality::kOffRack) == "off_rack");
}

}  // namespace
}  // namespace locsched
