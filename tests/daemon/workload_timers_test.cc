// Tests the workload timers (daemon/workload_timers.h): the intervals they hand the
// Rebalancer, the LpPlanner and the daemon's timers, and both timers counting workload
// time through the Engine and the Dispatcher on a FakeClock.
#include "daemon/workload_timers.h"

#include <catch2/catch.hpp>
#include <string>

#include "daemon/rebalancer.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

TEST_CASE("workload intervals become wall intervals speed times shorter", "[workload_timers]") {
  RebalanceConfig rb;
  rb.base_interval_ms = 1000;
  rb.max_interval_ms = 60000;
  CHECK(WallTimed(rb, 1) == rb);
  const RebalanceConfig fast = WallTimed(rb, 60);
  CHECK(fast.base_interval_ms == 17);
  CHECK(fast.max_interval_ms == 1000);
  CHECK(WallTimed(rb, 1e6).base_interval_ms == 1);  // never 0: a timer must wait
  CHECK(WallTimed(rb, 0.5).max_interval_ms == 120000);

  LpConfig lp;
  CHECK(WallTimed(lp, 1) == lp);
  const LpConfig lp_fast = WallTimed(lp, 60);
  CHECK(lp_fast.base_interval_s == Approx(lp.base_interval_s / 60));
  CHECK(lp_fast.max_interval_s == Approx(lp.max_interval_s / 60));
  CHECK(lp_fast.headroom_window_s == Approx(lp.headroom_window_s / 60));
  CHECK(lp_fast.max_share == lp.max_share);  // a share of wall time stays one

  CHECK(WallPeriod(1, 1) == std::chrono::seconds(1));
  CHECK(WallPeriod(1, 100) == std::chrono::milliseconds(10));
  CHECK(WallPeriod(1, 1e6) == std::chrono::milliseconds(1));
}

Config WorkloadConfig(double speed) {
  Config c;
  c.scheduler.policy = PolicyKind::kJsqMaxWeight;  // the policy with a rebalancer and a rank order
  c.scheduler.intra_queue = IntraQueue::kPriority;
  c.scheduler.learn_rates = false;
  c.scheduler.workload_speed = speed;
  c.rebalance.enabled = true;
  c.rebalance.imbalance = 1000;  // only the timer triggers here
  c.rebalance.big_job_tasks = 2;
  c.rebalance.base_interval_ms = 6000;  // 6 workload s
  c.rebalance.max_interval_ms = 60000;
  c.rebalance.max_share = 1;
  c.lp.base_interval_s = 30;  // 30 workload s
  c.lp.max_interval_s = 60;
  c.lp.burst_tasks = 1000;
  return c;
}

struct TimerHarness : BasicHarness<FakeClock> {
  explicit TimerHarness(Config c) : BasicHarness(std::move(c), Options()) {}
  static HarnessOptions Options() {
    HarnessOptions o;
    o.planner = true;
    return o;
  }
};

TEST_CASE("at workload speed 60 the rebalance and LP timers count workload seconds",
          "[workload_timers]") {
  const double speed = GENERATE(1.0, 60.0);
  INFO("workload_speed " << speed);
  TimerHarness h(WorkloadConfig(speed));
  h.Ok(R"({"op":"machine_up","machine":"m0"})");
  h.Ok(R"({"op":"machine_up","machine":"m1"})");
  h.Ok(R"({"op":"job_submit","job":"a","tasks":[{"task":"t","replicas":["m0"]},)"
       R"({"task":"u","replicas":["m1"]}]})");
  Rebalancer& rb = *h.engine.rebalancer();
  RebalanceStats stats;
  REQUIRE(std::string(rb.Due(h.clock.Now())) == "big_job");
  REQUIRE(rb.RunNow(h.clock.Now(), "big_job", 0.8, 0.2, &stats).ok());  // a burst: base interval
  h.Ok(R"({"op":"job_submit","job":"b","tasks":[{"task":"t","replicas":["m1"]}]})");
  // Wall seconds for `workload` seconds of the replay.
  const auto wall = [&](double workload) { return workload / speed; };
  CHECK(rb.Due(h.clock.Now() + wall(5.9)) == nullptr);
  CHECK(std::string(rb.Due(h.clock.Now() + wall(6.1))) == "timer");

  const uint64_t solves = h.lp->solves();
  h.clock.Advance(wall(29));
  h.lp->Tick();
  CHECK(h.lp->solves() == solves);
  h.clock.Advance(wall(2));
  h.lp->Tick();
  CHECK(h.lp->solves() == solves + 1);
}

TEST_CASE("a reload of workload_speed retimes both", "[workload_timers]") {
  TimerHarness h(WorkloadConfig(1));
  Config next = WorkloadConfig(60);
  h.dispatcher.ApplyConfig(next);
  h.Ok(R"({"op":"machine_up","machine":"m0"})");
  h.Ok(R"({"op":"job_submit","job":"a","tasks":[{"task":"t","replicas":["m0"]}]})");
  const uint64_t solves = h.lp->solves();
  h.clock.Advance(31.0 / 60);  // the next solve was due 30 s after start; now 0.5 s
  h.lp->Tick();
  CHECK(h.lp->solves() == solves + 1);
}

}  // namespace
}  // namespace locsched
