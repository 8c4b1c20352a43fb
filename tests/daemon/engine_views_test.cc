// Tests the Engine's views of the rack level (daemon/engine_views.cc) through the
// Dispatcher: starts counted node-local, rack-local and off-rack (as YARN does) in status
// and metrics, the learnt rack-local rate, and both surviving a snapshot.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// m0 and m1 in rack r1, m2 in rack r2; job j of three tasks held by m0 only.
void RackedCluster(Harness& h) {
  h.Ok(R"({"op":"machine_up","machine":"m0","rack":"r1"})");
  h.Ok(R"({"op":"machine_up","machine":"m1","rack":"r1"})");
  h.Ok(R"({"op":"machine_up","machine":"m2","rack":"r2"})");
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]},)"
       R"({"task":"b","replicas":["m0"]},{"task":"c","replicas":["m0"]}]})");
}

TEST_CASE("Starts are counted node-local, rack-local and off-rack", "[racks]") {
  Config c;
  c.scheduler.policy = PolicyKind::kFifo;  // runs remotely at once: every level shows
  Harness h(c);
  RackedCluster(h);
  // A rack-local start says so in the assignment ("rack": true); the others do not.
  const json expected[] = {json::parse(R"({"job":"j","task":"a","local":true})"),
                           json::parse(R"({"job":"j","task":"b","local":false,"rack":true})"),
                           json::parse(R"({"job":"j","task":"c","local":false})")};
  int k = 0;
  for (const char* m : {"m0", "m1", "m2"}) {
    const json a = h.Ok(R"({"op":"heartbeat","machine":")" + std::string(m) +
                        R"(","free_slots":1})")["assign"];
    REQUIRE(a.size() == 1);
    CHECK(a[0] == expected[k++]);
  }
  const json assigned = h.Ok(R"({"op":"status"})")["assigned"];
  CHECK(assigned["local"] == 1);
  CHECK(assigned["remote"] == 2);  // every start off the holders
  CHECK(assigned["rack"] == 1);
  CHECK(assigned["off_rack"] == 1);
  const std::string text = h.Ok(R"({"op":"metrics"})")["text"];
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"node\"} 1\n"));
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"rack\"} 1\n"));
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"off_rack\"} 1\n"));
  CHECK(Has(text, "locsched_assigned_remote_total 2\n"));
}

TEST_CASE("Without racks every start off the holders is off-rack", "[racks]") {
  Config c;
  c.scheduler.policy = PolicyKind::kFifo;
  Harness h(c);
  h.Machines(2);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})")["assign"].size() == 1);
  const json assigned = h.Ok(R"({"op":"status"})")["assigned"];
  CHECK(assigned["rack"] == 0);
  CHECK(assigned["off_rack"] == 1);
}

TEST_CASE("The rack-local rate is learnt from rack-local completions and kept in a snapshot",
          "[racks]") {
  Config c;
  c.scheduler.policy = PolicyKind::kFifo;
  c.scheduler.alpha = 0.8;
  c.scheduler.beta = 0.4;
  c.scheduler.gamma = 0.2;
  c.scheduler.rate_window = 1000;
  Harness h(c);
  RackedCluster(h);
  // m0 runs j's first task and holds it; each later one-task job held by m0 runs on m1, in
  // m0's rack, for 3 s.
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  h.Ok(R"({"op":"job_cancel","job":"j"})", kAdmin);
  CHECK(h.Ok(R"({"op":"status"})")["rates"]["beta"] == Approx(0.4));
  for (int i = 0; i < 200; ++i) {
    const std::string job = "k" + std::to_string(i);
    h.Ok(R"({"op":"job_submit","job":")" + job + R"(","tasks":[{"task":"t","replicas":["m0"]}]})");
    REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})")["assign"].size() == 1);
    h.clock.Advance(3);
    h.Ok(R"({"op":"task_done","job":")" + job + R"(","task":"t"})");
  }
  const json rates = h.Ok(R"({"op":"status"})")["rates"];
  CHECK(rates["rack_samples"] == 200);
  CHECK(rates["local_samples"] == 0);
  CHECK(rates["remote_samples"] == 0);
  // The prior's 10 pseudo-samples of 1 / 0.4 s and the 200 of 3 s, decayed by 1 - 1/1000.
  double weight = 0;
  for (int i = 0; i < 200; ++i) weight = weight * 0.999 + 1;
  CHECK(rates["beta"].get<double>() == Approx((10 + weight) / (10 / 0.4 + 3 * weight)));
  CHECK(rates["alpha"] == Approx(0.8));
  CHECK(rates["gamma"] == Approx(0.2));
  const std::string text = h.Ok(R"({"op":"metrics"})")["text"];
  CHECK(Has(text, "locsched_rate_beta "));
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"rack\"} 200\n"));
  std::vector<std::string> snapshot;
  h.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
  Harness b(c);
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  const json after = b.Ok(R"({"op":"status"})");
  CHECK(after["rates"] == rates);
  CHECK(after["assigned"] == h.Ok(R"({"op":"status"})")["assigned"]);
}

TEST_CASE("A snapshot without the rack level still loads", "[racks]") {
  Harness h;
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  std::vector<std::string> snapshot;
  h.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
  json counters = json::parse(snapshot[0]);
  REQUIRE(counters["engine"].size() == 10);
  REQUIRE(counters["rates"].size() == 9);
  counters["engine"].erase(9);                             // the rack counter
  for (int i = 0; i < 3; ++i) counters["rates"].erase(6);  // the rack observations
  snapshot[0] = counters.dump();
  Harness b;
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  const json assigned = b.Ok(R"({"op":"status"})")["assigned"];
  CHECK(assigned["local"] == 1);
  CHECK(assigned["rack"] == 0);
  CHECK(b.Ok(R"({"op":"status"})")["rates"]["rack_samples"] == 0);
}

}  // namespace
}  // namespace locsched
