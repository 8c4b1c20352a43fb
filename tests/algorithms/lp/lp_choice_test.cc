// Tests --lp auto's choice (algorithms/lp/lp_choice.h): the per-task LP when it fits, the
// class LP as given under the budget, smaller class LPs step by step above it, never
// changing a knob the caller gave, and the columns reported are those of the LP chosen.
#include "algorithms/lp/lp_choice.h"

#include <catch2/catch.hpp>

#include "tests/algorithms/lp/lp_test_util.h"

namespace locsched {
namespace {

LpInstance Big() {
  RandomShape shape;
  shape.machines = 4;
  shape.jobs = 30;
  shape.max_tasks = 6;
  return RandomInstance(5, shape);
}

TEST_CASE("lp auto: per-task when it fits, else the class LP as given", "[lp_choice]") {
  const LpInstance in = Big();
  LpAutoRequest r;
  r.max_columns = 1000;
  const LpChoice fits = ChooseLp(in, r, 1000);
  REQUIRE_FALSE(fits.classes);
  REQUIRE(fits.step == "per-task");
  const LpChoice over = ChooseLp(in, r, 1001);
  REQUIRE(over.classes);
  REQUIRE(over.step == "classes");
  REQUIRE(over.knobs.groups == 0);
  REQUIRE_FALSE(over.knobs.per_class_completion);
  REQUIRE(over.columns == ClassLpColumns(in, over.knobs));
}

TEST_CASE("lp auto: above the budget, one group, per-class completion, coarser epsilon",
          "[lp_choice]") {
  const LpInstance in = Big();
  LpAutoRequest r;
  r.max_columns = 10;
  r.class_budget = 1;  // nothing fits: every step is taken
  const LpChoice c = ChooseLp(in, r, 100000);
  REQUIRE(c.classes);
  REQUIRE(c.step == "classes-fast-eps3");
  REQUIRE(c.knobs.groups == 1);
  REQUIRE(c.knobs.per_class_completion);
  REQUIRE(c.epsilon == 3);
  REQUIRE(c.knobs.epsilon == 3);
  REQUIRE(c.columns == ClassLpColumns(in, c.knobs));
  // A budget the one-group LP at epsilon 1 meets stops there.
  ClassLpOptions fast;
  fast.groups = 1;
  fast.per_class_completion = true;
  r.class_budget = ClassLpColumns(in, fast);
  const LpChoice stop = ChooseLp(in, r, 100000);
  REQUIRE(stop.step == "classes-fast");
  REQUIRE(stop.epsilon == 1);
  REQUIRE(stop.columns == r.class_budget);
  // The solved LP is the one reported, and its bound is not above the class LP as given.
  ClassLpResult given, chosen;
  REQUIRE(SolveClassLp(in, ClassLpOptions{}, &given).ok());
  REQUIRE(SolveClassLp(in, c.knobs, &chosen).ok());
  REQUIRE(chosen.columns == c.columns);
  REQUIRE(chosen.objective <= given.objective * (1 + 1e-7));
}

TEST_CASE("lp auto: knobs given are never changed", "[lp_choice]") {
  const LpInstance in = Big();
  LpAutoRequest r;
  r.max_columns = 10;
  r.class_budget = 1;
  r.epsilon = 1.5;
  r.epsilon_given = true;
  r.classes.groups = 2;
  r.groups_given = true;
  const LpChoice c = ChooseLp(in, r, 100000);
  REQUIRE(c.knobs.epsilon == 1.5);
  REQUIRE(c.epsilon == 1.5);
  REQUIRE(c.knobs.groups == 2);
  REQUIRE(c.knobs.per_class_completion);
  REQUIRE(c.step == "classes-fast");
}

}  // namespace
}  // namespace locsched
