// Tests the PSRS baseline (algorithms/lp/psrs.h): schedules pass the checker with
// preemption on one machine per task and are never below the preemptive LP bound.
#include "algorithms/lp/psrs.h"

#include <catch2/catch.hpp>

#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

TEST_CASE("PSRS schedules are feasible without migration and above LP1", "[psrs]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomShape shape;
    shape.machines = 1 + static_cast<uint32_t>(seed % 4);
    shape.jobs = 2 + static_cast<uint32_t>(seed % 5);
    shape.single = seed % 2 == 0;
    const LpInstance in = RandomInstance(seed, shape);
    SolverResult r;
    REQUIRE(SolvePsrs(in, BaselineOptions{}, &r).ok());
    const Status feasible = CheckSchedule(in, r.schedule, Preemption::kSameMachine);
    INFO("seed " << seed << ": " << feasible.message());
    REQUIRE(feasible.ok());
    REQUIRE(r.objective >= r.lower_bound * (1 - 1e-7));
  }
}

}  // namespace
}  // namespace locsched
