// Tests the capacity-region LP (algorithms/lp/capacity_lp.h) on instances whose
// capacity can be worked out by hand from Theorem 1 of the JSQ paper.
#include "algorithms/lp/capacity_lp.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace locsched {
namespace {

TEST_CASE("all tasks local to the only machine: capacity is its alpha times slots",
          "[capacity_lp]") {
  CapacityInstance in{.slots = {3}, .alpha = 0.8, .gamma = 0.2, .types = {{{0}, 1.2}}};
  CapacityResult r;
  REQUIRE(SolveCapacityLp(in, &r).ok());
  CHECK(r.rho == Approx(0.8 * 3 / 1.2));
  CHECK(r.load == Approx(1.2 / (0.8 * 3)));
}

TEST_CASE("other machines add their remote rate", "[capacity_lp]") {
  // One hot machine: 0.8 local plus two machines serving it remotely at 0.2 each.
  CapacityInstance in{.slots = {1, 1, 1}, .alpha = 0.8, .gamma = 0.2, .types = {{{0}, 0.6}}};
  CapacityResult r;
  REQUIRE(SolveCapacityLp(in, &r).ok());
  CHECK(r.rho == Approx((0.8 + 0.2 + 0.2) / 0.6));
}

TEST_CASE("the paper's example: data on 8 of 10 machines", "[capacity_lp]") {
  // Capacity 8 * 0.8 + 2 * 0.2 = 6.8 tasks per second, split evenly over 8 types.
  CapacityInstance in;
  in.slots.assign(10, 1.0);
  for (uint32_t m = 0; m < 8; ++m) in.types.push_back({{m}, 3.4 / 8});
  CapacityResult r;
  REQUIRE(SolveCapacityLp(in, &r).ok());
  CHECK(r.load == Approx(0.5));
  CHECK(r.rows == 8 + 1 + 10);
}

TEST_CASE("tasks with no local machine run remotely everywhere", "[capacity_lp]") {
  CapacityInstance in{.slots = {2, 1}, .alpha = 0.8, .gamma = 0.2, .types = {{{}, 0.3}}};
  CapacityResult r;
  REQUIRE(SolveCapacityLp(in, &r).ok());
  CHECK(r.rho == Approx(3 * 0.2 / 0.3));
}

TEST_CASE("no arrivals is no load; bad input is refused by name", "[capacity_lp]") {
  CapacityResult r;
  CapacityInstance idle;
  idle.slots = {1};
  REQUIRE(SolveCapacityLp(idle, &r).ok());
  CHECK(std::isinf(r.rho));
  CHECK(r.load == 0);
  CapacityInstance bad{.slots = {1}, .types = {{{3}, 1.0}}};
  Status s = SolveCapacityLp(bad, &r);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.subject() == "types[0]");
  bad.types.clear();
  bad.alpha = 0.1;
  CHECK(SolveCapacityLp(bad, &r).subject() == "gamma");
}

}  // namespace
}  // namespace locsched
