// Tests RunPreemptiveList (algorithms/lp/preemptive_list.h): a higher-priority task
// released later preempts a running one, which resumes; reduces wait for their maps.
#include "algorithms/lp/preemptive_list.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("a later, higher-priority task preempts and the first resumes", "[preemptive_list]") {
  LpInstance in;
  in.capacity = {1.0};
  LpJob a, b;
  a.tasks.push_back({1.0, {0}, 4.0, 0.0, LpTaskKind::kMap, 0.0});
  b.release = 1;
  b.tasks.push_back({1.0, {0}, 1.0, 0.0, LpTaskKind::kMap, 0.0});
  b.tasks.push_back({1.0, {0}, 1.0, 0.0, LpTaskKind::kReduce, 0.0});
  in.jobs = {a, b};
  Schedule s;
  REQUIRE(RunPreemptiveList(in, {{0, 0, 1.0, 1}, {1, 0, 1.0, 0}, {2, 0, 1.0, 0}}, &s).ok());
  REQUIRE(CheckSchedule(in, s, Preemption::kSameMachine).ok());
  const std::vector<double> c = JobCompletions(in, s);
  REQUIRE(c[1] == Approx(3.0));  // b's map [1,2), its reduce [2,3)
  REQUIRE(c[0] == Approx(6.0));  // a: [0,1) and [3,6)
  REQUIRE(s.size() == 4);
}

}  // namespace
}  // namespace locsched
