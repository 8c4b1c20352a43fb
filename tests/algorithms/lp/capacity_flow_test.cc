// Tests the capacity region solved as a parametric max-flow (algorithms/lp/capacity_flow.h)
// against the GLPK LP of capacity_lp.h, the independent reference, on hand-worked
// and random instances, and at the daemon's scale where the LP is too slow.
#include "algorithms/lp/capacity_flow.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "base/rng.h"

namespace locsched {
namespace {

double FlowRho(const CapacityInstance& in) {
  CapacityResult r;
  REQUIRE(SolveCapacityFlow(in, &r).ok());
  return r.rho;
}

double LpRho(const CapacityInstance& in) {
  CapacityResult r;
  REQUIRE(SolveCapacityLp(in, &r).ok());
  return r.rho;
}

// Up to `machines` machines with 0-3 slots, types with 0-3 distinct local machines.
CapacityInstance RandomInstance(Rng& rng, uint32_t machines, uint32_t types) {
  CapacityInstance in;
  in.alpha = 0.5 + rng.Unit();
  in.gamma = in.alpha * (0.05 + 0.95 * rng.Unit());
  for (uint32_t m = 0; m < machines; ++m) in.slots.push_back(rng.Below(4));
  for (uint32_t t = 0; t < types; ++t) {
    ArrivalType type{.machines = {}, .rate = 0.01 + 3 * rng.Unit()};
    const uint32_t size = rng.Below(std::min(4u, machines + 1));  // distinct machines
    while (type.machines.size() < size) {
      const uint32_t m = rng.Below(machines);
      bool fresh = true;
      for (uint32_t x : type.machines) fresh &= x != m;
      if (fresh) type.machines.push_back(m);
    }
    in.types.push_back(std::move(type));
  }
  return in;
}

TEST_CASE("capacity flow: the hand-worked instances of the LP tests", "[capacity_flow]") {
  CHECK(FlowRho({.slots = {3}, .alpha = 0.8, .gamma = 0.2, .types = {{{0}, 1.2}}}) ==
        Approx(0.8 * 3 / 1.2));
  CHECK(FlowRho({.slots = {1, 1, 1}, .alpha = 0.8, .gamma = 0.2, .types = {{{0}, 0.6}}}) ==
        Approx((0.8 + 0.2 + 0.2) / 0.6));
  CHECK(FlowRho({.slots = {2, 1}, .alpha = 0.8, .gamma = 0.2, .types = {{{}, 0.3}}}) ==
        Approx(3 * 0.2 / 0.3));
  CapacityInstance paper;  // data on 8 of 10 machines: capacity 6.8, load 3.4
  paper.slots.assign(10, 1.0);
  for (uint32_t m = 0; m < 8; ++m) paper.types.push_back({{m}, 3.4 / 8});
  CapacityResult r;
  REQUIRE(SolveCapacityFlow(paper, &r).ok());
  CHECK(r.load == Approx(0.5));
}

TEST_CASE("capacity flow equals the GLPK LP on 300 random instances", "[capacity_flow]") {
  Rng rng(7);
  for (int round = 0; round < 300; ++round) {
    const CapacityInstance in = RandomInstance(rng, 1 + rng.Below(12), 1 + rng.Below(10));
    INFO("round " << round);
    const double lp = LpRho(in), flow = FlowRho(in);
    if (std::isinf(lp)) {
      CHECK(std::isinf(flow));
    } else {
      CHECK(flow == Approx(lp).epsilon(1e-7).margin(1e-9));
    }
  }
}

TEST_CASE("capacity flow: no arrivals, no slots and bad input", "[capacity_flow]") {
  CapacityResult r;
  REQUIRE(SolveCapacityFlow({.slots = {1}, .types = {}}, &r).ok());
  CHECK(std::isinf(r.rho));
  CHECK(r.load == 0);
  REQUIRE(SolveCapacityFlow({.slots = {0, 0}, .types = {{{0}, 1.0}}}, &r).ok());
  CHECK(r.rho == 0);
  CHECK(std::isinf(r.load));
  CHECK(SolveCapacityFlow({.slots = {1}, .types = {{{3}, 1.0}}}, &r).subject() == "types[0]");
  CHECK(SolveCapacityFlow({.slots = {1}, .types = {{{0}, -1.0}}}, &r).subject() == "types[0].rate");
  CHECK(SolveCapacityFlow({.slots = {1}, .alpha = 0.1, .gamma = 0.2, .types = {}}, &r).subject() ==
        "gamma");
}

// Regression: the daemon's planner never finished at 10,000 machines because the
// GLPK LP (10,000 folded single-machine types) ran for minutes on its worker.
TEST_CASE("capacity flow at the daemon's scale: 10,000 machines and types", "[capacity_flow]") {
  Rng rng(3);
  CapacityInstance in;
  in.slots.assign(10000, 1.0);
  for (uint32_t t = 0; t < 64; ++t)
    in.types.push_back({{rng.Below(10000), rng.Below(10000), rng.Below(10000)}, 20.0});
  for (uint32_t m = 0; m < 10000; ++m) in.types.push_back({{m}, 0.3 * rng.Unit()});
  in.types.push_back({{}, 5.0});
  CapacityResult r;
  REQUIRE(SolveCapacityFlow(in, &r).ok());
  // Bounds any split must respect: all remote at best gamma, all local at best alpha.
  double rate = 0;
  for (const ArrivalType& t : in.types) rate += t.rate;
  CHECK(r.rho >= 0.2 * 10000 / rate);
  CHECK(r.rho <= 0.8 * 10000 / rate);
  CHECK(r.load == Approx(1 / r.rho));
}

}  // namespace
}  // namespace locsched
