// Tests CheckSchedule (algorithms/lp/offline_schedule.h): a feasible schedule passes, and each
// kind of violation (capacity, placement, duration, release, map->reduce order,
// missing or repeated task) is caught and named; plus WeightedCompletion.
#include "algorithms/lp/offline_schedule.h"

#include <catch2/catch.hpp>

#include <string>

namespace locsched {
namespace {

// Two machines of capacity 1; job 0 (w=2, r=0): maps 0 (0.5 on m0, d=2) and
// 1 (0.5 on m0, d=3, remote x2), reduce 2 (1.0 on m1, d=1); job 1 (w=1, r=4): map on m1, d=2.
LpInstance Instance() {
  LpInstance in;
  in.capacity = {1.0, 1.0};
  LpJob a;
  a.weight = 2;
  a.tasks.push_back({0.5, {0}, 2.0, 0.0, LpTaskKind::kMap});
  a.tasks.push_back({0.5, {0}, 3.0, 2.0, LpTaskKind::kMap});
  a.tasks.push_back({1.0, {1}, 1.0, 0.0, LpTaskKind::kReduce});
  LpJob b;
  b.weight = 1;
  b.release = 4;
  b.tasks.push_back({1.0, {1}, 2.0, 0.0, LpTaskKind::kMap});
  in.jobs = {a, b};
  return in;
}

Schedule Feasible() {
  return {{0, 0, 0, 0, 2}, {0, 1, 0, 0, 3}, {0, 2, 1, 3, 4}, {1, 0, 1, 4, 6}};
}

void RequireViolation(const Schedule& s, const std::string& word) {
  const Status status = CheckSchedule(Instance(), s);
  INFO(status.message());
  REQUIRE_FALSE(status.ok());
  REQUIRE(status.message().find(word) != std::string::npos);
}

TEST_CASE("a feasible schedule passes and its objective is sum w_j C_j", "[schedule]") {
  REQUIRE(CheckSchedule(Instance(), Feasible()).ok());
  REQUIRE(WeightedCompletion(Instance(), Feasible()) == Approx(2 * 4 + 1 * 6));
}

TEST_CASE("back-to-back tasks within the tolerance do not overlap", "[schedule]") {
  Schedule s = Feasible();
  s[3] = {1, 0, 1, 4 + 1e-12, 6 + 1e-12};
  s[2] = {0, 2, 1, 3 + 1e-12, 4 + 2e-12};
  REQUIRE(CheckSchedule(Instance(), s).ok());
}

TEST_CASE("capacity exceeded at some instant is caught", "[schedule]") {
  Schedule s = Feasible();
  s[3] = {1, 0, 1, 4, 6};
  s[2] = {0, 2, 1, 3.5, 4.5};  // overlaps job 1's map on machine 1 during [4, 4.5)
  RequireViolation(s, "capacity exceeded");
}

TEST_CASE("a task off its placement without a remote penalty is caught", "[schedule]") {
  Schedule s = Feasible();
  s[0] = {0, 0, 1, 0, 2};
  RequireViolation(s, "placement violated");
}

TEST_CASE("a remote task must run its penalized duration", "[schedule]") {
  Schedule s = Feasible();
  s[1] = {0, 1, 1, 0, 6};  // 3 x 2 on machine 1: fine
  s[2] = {0, 2, 1, 6, 7};
  s[3] = {1, 0, 1, 7, 9};
  REQUIRE(CheckSchedule(Instance(), s).ok());
  s[1].end = 3;
  RequireViolation(s, "wrong duration");
}

TEST_CASE("a reduce's shuffle runs on its machine before it", "[schedule]") {
  LpInstance in = Instance();
  in.jobs[0].tasks[2].shuffle = 0.5;
  Schedule s = Feasible();
  s[2] = {0, 2, 1, 3, 4.5};  // shuffle [3, 3.5), reduce [3.5, 4.5)
  s[3] = {1, 0, 1, 4.5, 6.5};
  REQUIRE(CheckSchedule(in, s).ok());
  s[2].end = 4;
  REQUIRE(CheckSchedule(in, s).message().find("wrong duration") != std::string::npos);
  in.jobs[0].tasks[0].shuffle = 1;
  REQUIRE(ValidateInstance(in).message().find("jobs[0].tasks[0].shuffle") != std::string::npos);
}

TEST_CASE("a start before the release is caught", "[schedule]") {
  Schedule s = Feasible();
  s[3] = {1, 0, 1, 3.5, 5.5};
  s[2] = {0, 2, 1, 5.5, 6.5};
  RequireViolation(s, "release");
}

TEST_CASE("a reduce before all maps of its job end is caught", "[schedule]") {
  Schedule s = Feasible();
  s[2] = {0, 2, 1, 2.5, 3.5};
  RequireViolation(s, "reduce starts before all maps");
}

TEST_CASE("a missing, repeated or unknown task is caught", "[schedule]") {
  Schedule s = Feasible();
  s.pop_back();
  RequireViolation(s, "not scheduled");
  s = Feasible();
  s.push_back(s[0]);
  RequireViolation(s, "scheduled twice");
  s = Feasible();
  s[0].task = 9;
  RequireViolation(s, "no such task");
  s = Feasible();
  s[0].machine = 7;
  RequireViolation(s, "no such machine");
}

TEST_CASE("preemptive pieces pass when they add up to the task", "[schedule]") {
  Schedule s = Feasible();
  s[0] = {0, 0, 0, 0, 1};  // map 0 in two pieces on machine 0: [0,1) and [3,4)
  s.push_back({0, 0, 0, 3, 4});
  s[2] = {0, 2, 1, 4, 5};  // the reduce after both pieces
  s[3] = {1, 0, 1, 5, 7};
  REQUIRE_FALSE(CheckSchedule(Instance(), s).ok());  // not without preemption
  REQUIRE(CheckSchedule(Instance(), s, Preemption::kSameMachine).ok());
  REQUIRE(CheckSchedule(Instance(), s, Preemption::kMigration).ok());
}

TEST_CASE("a migrating piece counts its share at the machine's duration", "[schedule]") {
  Schedule s = Feasible();
  s[1] = {0, 1, 0, 0, 1.5};  // map 1: half on machine 0 (d=3), half on machine 1 (d=6)
  s.push_back({0, 1, 1, 1.5, 4.5});
  s[2] = {0, 2, 1, 4.5, 5.5};
  s[3] = {1, 0, 1, 5.5, 7.5};
  REQUIRE(CheckSchedule(Instance(), s, Preemption::kMigration).ok());
  const Status same = CheckSchedule(Instance(), s, Preemption::kSameMachine);
  REQUIRE(same.message().find("migrates") != std::string::npos);
}

TEST_CASE("preemptive pieces that overlap or fall short are caught", "[schedule]") {
  Schedule s = Feasible();
  s[0] = {0, 0, 0, 0, 1};
  s.push_back({0, 0, 0, 0.5, 1.5});  // overlaps the first piece
  Status st = CheckSchedule(Instance(), s, Preemption::kSameMachine);
  REQUIRE(st.message().find("at once") != std::string::npos);
  s.back() = {0, 0, 0, 1, 1.5};  // 1.5 of 2
  st = CheckSchedule(Instance(), s, Preemption::kSameMachine);
  REQUIRE(st.message().find("not all of it") != std::string::npos);
}

}  // namespace
}  // namespace locsched
