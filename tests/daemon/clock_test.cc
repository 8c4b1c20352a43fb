// Tests the daemon's clock (daemon/clock.h): a held clock answers one reading
// until released, and a pinned one (journal replay) wins over a hold.
#include "daemon/clock.h"

#include <catch2/catch.hpp>
#include <thread>

namespace locsched {
namespace {

TEST_CASE("a held daemon clock answers one reading until it is released") {
  DaemonClock clock;
  clock.Hold();
  const double held = clock.Now();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(clock.Now() == held);
  clock.Unhold();
  CHECK(clock.Now() != held);  // running again (!=, not >: the wall clock may be stepped)
}

TEST_CASE("a pinned daemon clock wins over a hold") {
  DaemonClock clock;
  clock.Hold();
  const double held = clock.Now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  clock.Pin(42);
  CHECK(clock.Now() == 42);
  clock.Release();
  CHECK(clock.Now() == held);  // still held once the pin is gone
  clock.Unhold();
  CHECK(clock.Now() != held);
}

}  // namespace
}  // namespace locsched
