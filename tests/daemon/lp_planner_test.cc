// The LP planner driven through the Dispatcher without sockets: resolve_lp's
// access rules, the order reaching the priority policy, status and metrics,
// the adaptive interval on a FakeClock, and the arrival window's rates.
#include "daemon/lp_planner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "daemon/dispatcher.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

Config PriorityConfig() {
  Config c;
  c.scheduler.policy = PolicyKind::kJsqMaxWeight;  // the policy with a rank order
  c.scheduler.intra_queue = IntraQueue::kPriority;
  c.scheduler.learn_rates = false;
  return c;
}

// The shared harness with a planner whose solves run inline, and two helpers.
struct PlannerHarness : BasicHarness<FakeClock> {
  explicit PlannerHarness(Config c = PriorityConfig(), bool planner = true,
                          LpPlanner::Executor executor = nullptr)
      : BasicHarness(std::move(c), Options(planner, std::move(executor))) {}
  static HarnessOptions Options(bool planner, LpPlanner::Executor executor) {
    HarnessOptions o;
    o.planner = planner;
    o.executor = std::move(executor);
    return o;
  }
  // A job of `tasks` map tasks, all with their input on m0.
  void Submit(const std::string& job, int tasks, double weight) {
    std::string list;
    for (int i = 0; i < tasks; ++i)
      list += std::string(i ? "," : "") + R"({"task":"t)" + std::to_string(i) +
              R"(","replicas":["m0"]})";
    Ok(R"({"op":"job_submit","job":")" + job + R"(","weight":)" + std::to_string(weight) +
       R"(,"tasks":[)" + list + "]}");
  }
  std::string NextJob() {
    json a = Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
    REQUIRE(a["assign"].size() == 1);
    return a["assign"][0]["job"];
  }
};

TEST_CASE("resolve_lp is an admin command of the control socket, refused when the LP is off") {
  PlannerHarness h;
  CHECK(h.Send(R"({"op":"resolve_lp"})")["error"]["field"] == "op");
  CHECK(h.Send(R"({"op":"resolve_lp"})", kStranger)["error"]["code"] == "permission_denied");
  PlannerHarness off(PriorityConfig(), false);
  json r = off.Send(R"({"op":"resolve_lp"})", kAdmin);
  CHECK(r["error"]["code"] == "failed_precondition");
  CHECK(r["error"]["field"] == "lp.enabled");
  CHECK(!off.Ok(R"({"op":"status"})").contains("lp"));
}

TEST_CASE("the LP order puts a small heavy job ahead of an older big one") {
  for (bool resolve : {false, true}) {
    PlannerHarness h;
    h.Ok(R"({"op":"machine_up","machine":"m0"})");
    h.Ok(R"({"op":"machine_up","machine":"m1"})");
    h.Submit("big", 20, 1);
    h.Submit("small", 2, 5);
    if (resolve) {
      json r = h.Ok(R"({"op":"resolve_lp"})", kAdmin);
      CHECK(r["started"] == true);
      CHECK(r["pending"] == false);
      CHECK(r["lp"]["solves"] == 1);
      CHECK(r["lp"]["ordered_jobs"] == 2);
      CHECK(r["lp"]["applied"] == true);
      CHECK(r["lp"]["rows"].get<int>() > 0);
      CHECK(r["lp"]["columns"].get<int>() > 0);
      CHECK(r["lp"]["objective"].get<double>() > 0);
    }
    INFO("resolve " << resolve);
    // Without an order the priority policy falls back to arrival order.
    CHECK(h.NextJob() == (resolve ? "small" : "big"));
  }
}

TEST_CASE("late binding with job_order = lp takes the LP's order; srpt does not") {
  for (const JobOrder order : {JobOrder::kLp, JobOrder::kSrpt}) {
    Config c;
    c.scheduler.policy = PolicyKind::kLateBinding;
    c.scheduler.job_order = order;
    c.scheduler.learn_rates = false;
    PlannerHarness h(c);
    h.Ok(R"({"op":"machine_up","machine":"m0"})");
    h.Ok(R"({"op":"machine_up","machine":"m1"})");
    // Light but short first: srpt serves "short"; the LP weighs the heavy job's 5 first.
    h.Submit("short", 2, 1);
    h.Submit("heavy", 3, 5);
    const json r = h.Ok(R"({"op":"resolve_lp"})", kAdmin);
    INFO(JobOrderName(order));
    CHECK(r["lp"]["applied"] == (order == JobOrder::kLp));
    CHECK(h.NextJob() == (order == JobOrder::kLp ? "heavy" : "short"));
  }
}

TEST_CASE("status and metrics carry the LP figures and the headroom") {
  PlannerHarness h;
  h.Ok(R"({"op":"machine_up","machine":"m0","slots":2})");
  h.Submit("a", 3, 1);
  h.clock.Advance(2);
  json lp = h.Ok(R"({"op":"status"})")["lp"];
  CHECK(lp["solves"] == 0);
  CHECK(lp["order_age_s"].is_null());
  h.Ok(R"({"op":"resolve_lp"})", kAdmin);
  h.clock.Advance(3);
  lp = h.Ok(R"({"op":"status"})")["lp"];
  CHECK(lp["solves"] == 1);
  CHECK(lp["order_age_s"] == Approx(3));
  // 3 tasks in 2 s on one machine of 2 slots at alpha 0.8: load 1.5 / 1.6.
  CHECK(lp["load"].get<double>() == Approx(1.5 / 1.6));
  const std::string text = h.Ok(R"({"op":"metrics"})")["text"];
  for (const char* name :
       {"locsched_lp_solve_seconds ", "locsched_lp_rows ", "locsched_lp_columns ",
        "locsched_lp_objective ", "locsched_lp_order_age_seconds 3", "locsched_capacity_load "}) {
    INFO(name);
    CHECK(text.find(name) != std::string::npos);
  }
}

TEST_CASE("the interval grows while quiet, resets on a burst, and is capped") {
  Config c = PriorityConfig();
  c.lp.base_interval_s = 5;
  c.lp.max_interval_s = 20;
  c.lp.growth = 2;
  c.lp.burst_tasks = 10;
  PlannerHarness h(c);
  h.Ok(R"({"op":"machine_up","machine":"m0"})");
  h.Submit("a", 2, 1);
  auto solves_after = [&](double seconds) {
    h.clock.Advance(seconds);
    h.lp->Tick();
    return h.lp->solves();
  };
  CHECK(solves_after(4) == 0);
  CHECK(solves_after(1) == 1);  // base interval 5 s; the next waits 10
  CHECK(solves_after(9) == 1);
  CHECK(solves_after(1) == 2);  // then 20 (the cap)
  CHECK(solves_after(19) == 2);
  CHECK(solves_after(1) == 3);
  CHECK(solves_after(19) == 3);
  h.Submit("burst", 12, 1);  // 12 >= burst_tasks new tasks: solve now, back to base
  CHECK(solves_after(0) == 4);
  CHECK(h.Ok(R"({"op":"status"})")["lp"]["bursts"] == 1);
  CHECK(solves_after(9) == 4);
  CHECK(solves_after(1) == 5);  // 10 s after the burst solve: base 5 grown once
}

TEST_CASE("a failed solve keeps the last good order and backs off") {
  PlannerHarness h;
  h.Ok(R"({"op":"machine_up","machine":"m0"})");
  h.Submit("big", 6, 1);
  h.Submit("small", 1, 4);
  h.Ok(R"({"op":"resolve_lp"})", kAdmin);
  const double interval = h.Ok(R"({"op":"status"})")["lp"]["interval_s"];
  h.Ok(R"({"op":"machine_down","machine":"m0"})", kAdmin);  // no slots: the LP is refused
  h.clock.Advance(3);
  json lp = h.Ok(R"({"op":"resolve_lp"})", kAdmin)["lp"];
  CHECK(lp["solves"] == 1);
  CHECK(lp["failures"] == 1);
  CHECK(lp["last_error"].get<std::string>().find("no machine slots") != std::string::npos);
  CHECK(lp["interval_s"].get<double>() == Approx(2 * interval));
  CHECK(lp["order_age_s"] == Approx(3));
  h.Ok(R"({"op":"machine_up","machine":"m0"})");
  CHECK(h.NextJob() == "small");  // the order from before the failure still holds
}

TEST_CASE("a solve in flight is not doubled, and its result applies when it lands") {
  std::function<void()> pending;
  PlannerHarness h(PriorityConfig(), true,
                   [&](std::function<void()> work, std::function<void()> done) {
                     work();
                     pending = std::move(done);
                   });
  h.Ok(R"({"op":"machine_up","machine":"m0"})");
  h.Submit("big", 5, 1);
  h.Submit("small", 1, 3);
  json r = h.Ok(R"({"op":"resolve_lp"})", kAdmin);
  CHECK(r["started"] == true);
  CHECK(r["pending"] == true);
  CHECK(h.Ok(R"({"op":"resolve_lp"})", kAdmin)["started"] == false);
  h.Ok(R"({"op":"job_cancel","job":"small"})", kAdmin);
  // May reuse small's id; it must not inherit small's rank (first). Unranked, it is placed
  // by Smith's rule: 10 tasks of weight 1 (0.1 per task) go after big (5 of weight 1).
  h.Submit("newcomer", 10, 1);
  pending();
  CHECK(h.lp->solves() == 1);
  CHECK(h.NextJob() == "big");
}

}  // namespace
}  // namespace locsched
