// Tests the simulator's arrival process (algorithms/sim/workload.h): the packed run
// lengths and the batch's list of runs too long to pack.
#include "algorithms/sim/workload.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <random>

namespace locsched {
namespace {

TEST_CASE("PackRuns keeps both lengths below 0xFFFF and flags the rest wide", "[workload]") {
  CHECK(PackRuns(1, 1) == (1u | 1u << 16));
  CHECK(PackedRun(PackRuns(0xFFFE, 0xFFFE), true) == 0xFFFE);
  CHECK(PackedRun(PackRuns(0xFFFE, 0xFFFE), false) == 0xFFFE);
  CHECK(PackRuns(0xFFFF, 1) == kWideRuns);
  CHECK(PackRuns(1, 0xFFFF) == kWideRuns);
  CHECK(PackRuns(70000, 3) == kWideRuns);
  std::mt19937 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const uint32_t local = rng() % 0xFFFF, remote = rng() % 0xFFFF;
    const uint32_t packed = PackRuns(local, remote);
    REQUIRE(packed != kWideRuns);
    REQUIRE(PackedRun(packed, true) == local);
    REQUIRE(PackedRun(packed, false) == remote);
  }
}

TEST_CASE("Workload::Fill lists exactly the tasks with wide runs, with their lengths",
          "[workload]") {
  // At gamma 2e-5 about a quarter of remote runs reach 0xFFFF slots; at alpha 1e-4 few
  // local ones do.
  SimParams p;
  p.machines = 20;
  p.data_machines = 10;
  p.policy.alpha = 1e-4;
  p.policy.gamma = 2e-5;
  p.load = 30;
  p.job_size_mean = 5;
  Workload workload(p);
  ArrivalBatch b;
  workload.Fill(0, 200, b);
  const uint64_t tasks = std::accumulate(b.job_sizes.begin(), b.job_sizes.end(), uint64_t{0});
  REQUIRE(b.runs.size() == tasks);
  REQUIRE(b.replicas.size() == tasks * p.replicas);
  size_t w = 0;
  for (uint64_t t = 0; t < tasks; ++t) {
    if (b.runs[t] != kWideRuns) {
      // One uniform drives both draws, and alpha >= gamma: a local run is never longer.
      REQUIRE(PackedRun(b.runs[t], true) <= PackedRun(b.runs[t], false));
      continue;
    }
    REQUIRE(w < b.wide.size());
    CHECK(b.wide[w].task == t);
    CHECK((b.wide[w].local >= 0xFFFF || b.wide[w].remote >= 0xFFFF));
    CHECK(b.wide[w].local <= b.wide[w].remote);
    ++w;
  }
  CHECK(w == b.wide.size());
  CHECK(w > tasks / 10);  // the case above was exercised
}

}  // namespace
}  // namespace locsched
