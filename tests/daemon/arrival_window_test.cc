// Tests the LP planner's arrival window (daemon/arrival_window.h): counts over
// the window only, folding of rare types, and the cap on distinct exact types.
#include "daemon/arrival_window.h"

#include <algorithm>

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("the arrival window counts types over the window only, folding rare ones") {
  ArrivalWindow w(10);
  const std::vector<MachineId> a{1, 0}, b{2};
  std::vector<TaskSpec> two_a(2), one_b(1);
  two_a[0].replicas = two_a[1].replicas = a;
  one_b[0].replicas = b;
  w.Add(100, two_a);
  w.Add(105, one_b);
  std::vector<ArrivalType> r = w.Rates(110, 10);
  REQUIRE(r.size() == 2);
  CHECK(r[0].machines == std::vector<uint32_t>{0, 1});
  CHECK(r[0].rate == Approx(0.2));
  CHECK(r[1].rate == Approx(0.1));
  r = w.Rates(110, 0);  // nothing exact: each type folds into its first replica
  REQUIRE(r.size() == 2);
  CHECK(r[0].machines == std::vector<uint32_t>{0});
  CHECK(r[0].rate == Approx(0.2));
  CHECK(r[1].machines == std::vector<uint32_t>{2});
  r = w.Rates(112, 1);  // the t=100 bucket left the window; one type kept
  REQUIRE(r.size() == 1);
  CHECK(r[0].machines == std::vector<uint32_t>{2});
}

// Regression: a stream of unique replica sets (every random placement) grew the
// window's type map without bound and stalled the event loop for over a second.
TEST_CASE("a full type table folds new types and still counts every task") {
  ArrivalWindow w(10, 2);
  std::vector<std::vector<MachineId>> replicas;
  for (uint32_t i = 0; i < 5; ++i) replicas.push_back({i + 10, i});
  std::vector<TaskSpec> tasks(5);
  for (uint32_t i = 0; i < 5; ++i) tasks[i].replicas = replicas[i];
  w.Add(100, tasks);  // {0,10} and {1,11} are held exact; the other three fold
  std::vector<ArrivalType> r = w.Rates(101, 10);
  REQUIRE(r.size() == 5);
  CHECK(r[0].machines == std::vector<uint32_t>{0, 10});
  CHECK(r[1].machines == std::vector<uint32_t>{1, 11});
  CHECK(r[2].machines == std::vector<uint32_t>{2});
  CHECK(r[4].machines == std::vector<uint32_t>{4});
  double total = 0;
  for (const ArrivalType& t : r) total += t.rate;
  CHECK(total == Approx(5.0));
  w.Add(112, std::span<const TaskSpec>(tasks).subspan(4, 1));  // t=100 left: room again
  r = w.Rates(112, 10);
  REQUIRE(r.size() == 1);
  CHECK(r[0].machines == std::vector<uint32_t>{4, 14});
}

// The table's hint counts held types in 16 bits, so a larger cap is lowered to 65,535:
// a window asked for 100,000 exact types holds 65,535 and folds the rest, and counts
// every task either way.
TEST_CASE("the arrival window caps its exact types at 65535") {
  ArrivalWindow w(10, 100000);
  constexpr uint32_t kTypes = 70000;
  std::vector<MachineId> ids(2 * kTypes);
  std::vector<TaskSpec> tasks(kTypes);
  for (uint32_t i = 0; i < kTypes; ++i) {
    ids[2 * i] = i;
    ids[2 * i + 1] = i + kTypes;
    tasks[i].replicas = std::span<const MachineId>(&ids[2 * i], 2);
  }
  w.Add(100, tasks);
  const std::vector<ArrivalType> r = w.Rates(110, kTypes);  // 10 s: rate = count / 10
  size_t exact = 0;
  double total = 0;
  for (const ArrivalType& t : r) {
    exact += t.machines.size() == 2;
    total += t.rate;
  }
  CHECK(exact == 65535);
  CHECK(r.size() == kTypes);  // the 4,465 folded types each fold into their own machine
  CHECK(total == Approx(kTypes / 10.0));
}

TEST_CASE("the arrival window counts every order of the same replicas as one type") {
  // One to four replicas: up to three take the in-place sort, four the general one.
  for (size_t n = 1; n <= 4; ++n) {
    CAPTURE(n);
    std::vector<MachineId> ids{7, 3, 9, 5};
    ids.resize(n);
    std::sort(ids.begin(), ids.end());
    std::vector<std::vector<MachineId>> orders;
    do orders.push_back(ids);
    while (std::next_permutation(ids.begin(), ids.end()));
    std::vector<TaskSpec> tasks(orders.size());
    for (size_t i = 0; i < orders.size(); ++i) tasks[i].replicas = orders[i];
    ArrivalWindow w(10);
    w.Add(100, tasks);
    const std::vector<ArrivalType> r = w.Rates(110, 10);  // 10 s seen: rate = count / 10
    REQUIRE(r.size() == 1);
    CHECK(r[0].machines == ids);  // sorted again after the last permutation
    CHECK(r[0].rate == Approx(static_cast<double>(orders.size()) / 10));
  }
}

}  // namespace
}  // namespace locsched
