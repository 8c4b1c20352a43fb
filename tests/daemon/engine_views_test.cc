// Tests the Engine's views of the rack level (daemon/engine_views.cc) through the
// Dispatcher: starts counted node-local, rack-local and off-rack (as YARN does) in status
// and metrics, the learnt rack-local rate, and both surviving a snapshot; why a waiting
// task waits (`job`), the filters and sorts of `jobs` and `machines`, and the finished-job
// history (history.finished_jobs, snapshots, reload).
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

// ---- why is it waiting: each waiting task's holders and reason in `job` (one case per
// reason, each checked against what the next heartbeat does) ------------------------------
// The task named `task` of `job`'s task_list.
json TaskOf(Harness& h, const std::string& job, const std::string& task) {
  const json reply = h.Ok(R"({"op":"job","job":")" + job + R"("})");
  for (const json& t : reply["task_list"])
    if (t["task"] == task) return t;
  FAIL("no task " << task);
  return {};
}

json WaitOf(Harness& h, const std::string& job, const std::string& task) {
  return TaskOf(h, job, task)["wait"];
}

void Submit(Harness& h, const std::string& job, const std::string& tasks) {
  h.Ok(R"({"op":"job_submit","job":")" + job + R"(","tasks":[)" + tasks + "]}");
}

std::string OnM0(const std::string& task) {
  return R"({"task":")" + task + R"(","replicas":["m0"]})";
}

size_t Assigned(Harness& h, const std::string& machine) {
  return h.Ok(R"({"op":"heartbeat","machine":")" + machine + R"(","free_slots":1})")["assign"]
      .size();
}

Config Policy(PolicyKind kind) {
  Config c;
  c.scheduler.policy = kind;
  c.scheduler.learn_rates = false;
  return c;
}

TEST_CASE("A reduce waits for its maps", "[waits]") {
  Harness h;
  h.Machines(1);
  Submit(h, "j", OnM0("m") + R"(,{"task":"r","replicas":["m0"],"kind":"reduce"})");
  const json w = WaitOf(h, "j", "r");
  CHECK(w["reason"] == "blocked_by_maps");
  CHECK(w["detail"] == "a reduce: waits for its job's 1 maps to finish");
}

TEST_CASE("A task whose holder has a free slot starts on its next heartbeat", "[waits]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  h.Machines(1, 2);
  Submit(h, "j", OnM0("a"));
  const json t = TaskOf(h, "j", "a");
  CHECK(t["holders"] ==
        json::parse(R"([{"machine":"m0","state":"up","slots":2,"running":0,"free":2}])"));
  CHECK(t["wait"]["reason"] == "next_heartbeat");
  CHECK(t["wait"]["machine"] == "m0");
  CHECK(t["wait"]["remote"] == false);
  CHECK(Assigned(h, "m0") == 1);
}

TEST_CASE("Late binding: holders busy and nothing free elsewhere", "[waits]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  h.Machines(1);
  Submit(h, "a", OnM0("t"));
  REQUIRE(Assigned(h, "m0") == 1);
  Submit(h, "b", OnM0("t"));
  const json t = TaskOf(h, "b", "t");
  CHECK(t["holders"][0]["free"] == 0);
  CHECK(t["holders"][0]["running"] == 1);
  CHECK(t["wait"]["reason"] == "holders_busy");
  CHECK(t["wait"]["expected_wait_s"].get<double>() == Approx(1 / 0.8));
}

TEST_CASE("Late binding: the remote rule holds a task for its busy holder, then lets it go",
          "[waits]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  h.Machines(2);
  Submit(h, "a", OnM0("t"));
  REQUIRE(Assigned(h, "m0") == 1);
  Submit(h, "b", OnM0("t"));
  // One task ahead at m0's one slot: 1/alpha = 1.25 s, under 1/gamma - 1/alpha = 3.75 s.
  json w = WaitOf(h, "b", "t");
  CHECK(w["reason"] == "remote_rule");
  CHECK(w["expected_wait_s"].get<double>() == Approx(1.25));
  CHECK(w["remote_wait_s"].get<double>() == Approx(3.75));
  CHECK(Assigned(h, "m1") == 0);  // the free machine indeed leaves it alone
  // Four single-task jobs on m0 before b: b, last in the order, waits 5 / 0.8 s, past the
  // threshold, with no other task of its job left.
  h.Ok(R"({"op":"job_cancel","job":"b"})", kAdmin);
  for (const char* j : {"c", "d", "e", "f"}) Submit(h, j, OnM0("t"));
  Submit(h, "b", OnM0("t"));
  w = WaitOf(h, "b", "t");
  CHECK(w["reason"] == "next_heartbeat");
  CHECK(w["machine"] == "m1");
  CHECK(w["remote"] == true);
  CHECK(Assigned(h, "m1") == 1);
}

TEST_CASE("Late binding: only the order's last job and the oldest run off their holders",
          "[waits]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  h.Machines(2);
  Submit(h, "a", OnM0("t"));
  REQUIRE(Assigned(h, "m0") == 1);
  Submit(h, "old", OnM0("t"));
  h.clock.Advance(1);
  Submit(h, "mid", OnM0("t"));
  h.clock.Advance(1);
  Submit(h, "new", OnM0("t"));
  const json w = WaitOf(h, "mid", "t");
  CHECK(w["reason"] == "remote_rule");
  CHECK(w["detail"].get<std::string>().find("only the last job of the order and the job waiting "
                                            "longest") != std::string::npos);
}

TEST_CASE("No live holder: a task whose holder drains waits for a run elsewhere", "[waits]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  h.Machines(2);
  Submit(h, "x", R"({"task":"t","replicas":["m1"]})");
  REQUIRE(Assigned(h, "m1") == 1);
  h.Ok(R"({"op":"machine_drain","machine":"m0"})", kAdmin);
  Submit(h, "j", OnM0("t"));
  const json t = TaskOf(h, "j", "t");
  CHECK(t["holders"][0]["state"] == "draining");
  CHECK(t["wait"]["reason"] == "no_live_holder");
}

TEST_CASE("Delay scheduling: the remote rule counts down its wait", "[waits]") {
  Config c = Policy(PolicyKind::kDelay);
  c.scheduler.delay_wait = 20;
  Harness h(c);
  h.Machines(2);
  Submit(h, "a", OnM0("t"));
  REQUIRE(Assigned(h, "m0") == 1);
  Submit(h, "b", OnM0("t"));
  h.clock.Advance(5);
  json w = WaitOf(h, "b", "t");
  CHECK(w["reason"] == "remote_rule");
  CHECK(w["remote_in_s"].get<double>() == Approx(15));
  CHECK(w["remote_wait_s"].get<double>() == Approx(20));
  CHECK(Assigned(h, "m1") == 0);
  h.clock.Advance(15);
  w = WaitOf(h, "b", "t");
  CHECK(w["reason"] == "next_heartbeat");
  CHECK(w["machine"] == "m1");
  CHECK(Assigned(h, "m1") == 1);
}

TEST_CASE("Fifo: a job behind others in the order, and no free slot anywhere", "[waits]") {
  Harness h(Policy(PolicyKind::kFifo));
  h.Machines(1);
  Submit(h, "first", OnM0("t") + "," + OnM0("u"));
  Submit(h, "second", OnM0("t"));
  json w = WaitOf(h, "second", "t");
  CHECK(w["reason"] == "behind_jobs");
  CHECK(w["jobs_ahead"] == 1);
  CHECK(w["detail"].get<std::string>().find("1 jobs come first in the job order (fifo)") !=
        std::string::npos);
  CHECK(WaitOf(h, "first", "t")["reason"] == "next_heartbeat");
  REQUIRE(Assigned(h, "m0") == 1);
  CHECK(TaskOf(h, "first", "t")["state"] == "running");
  CHECK(WaitOf(h, "second", "t")["reason"] == "no_free_slot");
}

TEST_CASE("Running and finished tasks carry no wait", "[waits]") {
  Harness h;
  h.Machines(1);
  Submit(h, "j", OnM0("t") + "," + OnM0("u"));
  REQUIRE(Assigned(h, "m0") == 1);
  const json list = h.Ok(R"({"op":"job","job":"j"})")["task_list"];
  for (const json& t : list) CHECK(t.contains("wait") == (t["state"] == "queued"));
}

// ---- jobs and machines: filter, sort, limit -------------------------------------------

// Under late binding (srpt): jobs q1 (3 queued), q2 (1 running, 1 queued), r (1 running);
// machines m0..m2, m1 draining.
void Mixed(Harness& h) {
  h.Machines(3);
  Submit(h, "r", R"({"task":"t","replicas":["m2"]})");
  REQUIRE(Assigned(h, "m2") == 1);
  Submit(h, "q1", OnM0("a") + "," + OnM0("b") + "," + OnM0("c"));
  Submit(h, "q2", R"({"task":"a","replicas":["m1"]},{"task":"b","replicas":["m1"]})");
  REQUIRE(Assigned(h, "m1") == 1);
  h.Ok(R"({"op":"machine_drain","machine":"m1"})", kAdmin);
}

std::vector<std::string> Names(const json& list, const char* key) {
  std::vector<std::string> out;
  for (const json& x : list) out.push_back(x[key]);
  return out;
}

TEST_CASE("jobs filters by state, sorts by a field and limits", "[listing]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  Mixed(h);
  json r = h.Ok(R"({"op":"jobs"})");
  CHECK(Names(r["jobs"], "job") == std::vector<std::string>{"r", "q1", "q2"});
  r = h.Ok(R"({"op":"jobs","state":"queued","sort":"-queued"})");
  CHECK(Names(r["jobs"], "job") == std::vector<std::string>{"q1", "q2"});
  CHECK(r["count"] == 2);
  r = h.Ok(R"({"op":"jobs","state":"running","sort":"job","limit":1})");
  CHECK(Names(r["jobs"], "job") == std::vector<std::string>{"q2"});
  CHECK(r["count"] == 2);
  CHECK(r["truncated"] == true);
  r = h.Ok(R"({"op":"jobs","sort":"queued"})");
  CHECK(Names(r["jobs"], "job") == std::vector<std::string>{"r", "q2", "q1"});
}

TEST_CASE("machines filters by state and sorts by free slots", "[listing]") {
  Harness h(Policy(PolicyKind::kLateBinding));
  Mixed(h);
  json r = h.Ok(R"({"op":"machines","state":"draining"})");
  CHECK(Names(r["machines"], "machine") == std::vector<std::string>{"m1"});
  CHECK(r["machines"][0]["state"] == "draining");
  CHECK(r["machines"][0]["free"] == 0);
  h.Ok(R"({"op":"machine_up","machine":"m0","slots":4})");
  r = h.Ok(R"({"op":"machines","sort":"-free","limit":2})");
  CHECK(Names(r["machines"], "machine") == std::vector<std::string>{"m0", "m1"});
  CHECK(r["count"] == 3);
  r = h.Ok(R"({"op":"machines","state":"up","sort":"free"})");
  CHECK(Names(r["machines"], "machine") == std::vector<std::string>{"m2", "m0"});
}

TEST_CASE("A bad state or sort field is named, with the closest and every valid name",
          "[listing]") {
  Harness h;
  json r = h.Send(R"({"op":"jobs","sort":"-quued"})");
  CHECK(r["error"]["message"] ==
        "sort: unknown field 'quued'; did you mean 'queued'? (one of: job, age, weight, tasks, "
        "queued, running, done)");
  r = h.Send(R"({"op":"machines","state":"draning"})");
  CHECK(r["error"]["message"] ==
        "state: unknown state 'draning'; did you mean 'draining'? (one of: up, draining, down, "
        "lost)");
  r = h.Send(R"({"op":"jobs","finished":true,"sort":"queued"})");
  CHECK(r["error"]["message"] ==
        "sort: unknown field 'queued' (one of: job, seconds, tasks, locality, ended)");
}

// ---- the finished-job history -----------------------------------------------------------

// Job `name` of two tasks held by m0, one run on m0 and one on m1; done after `seconds`.
void FinishHalfLocal(Harness& h, const std::string& name, double seconds) {
  Submit(h, name, OnM0("a") + "," + OnM0("b"));
  REQUIRE(Assigned(h, "m0") == 1);
  REQUIRE(Assigned(h, "m1") == 1);  // fifo runs the other task remotely at once
  h.clock.Advance(seconds);
  h.Ok(R"({"op":"task_done","job":")" + name + R"(","task":"a"})");
  h.Ok(R"({"op":"task_done","job":")" + name + R"(","task":"b"})");
}

TEST_CASE("The last finished jobs are kept with their completion time and locality", "[history]") {
  Config c = Policy(PolicyKind::kFifo);
  c.history.finished_jobs = 2;
  Harness h(c);
  h.Machines(2);
  FinishHalfLocal(h, "one", 1);
  FinishHalfLocal(h, "two", 2);
  Submit(h, "three", OnM0("a"));
  h.Ok(R"({"op":"job_cancel","job":"three"})", kAdmin);
  json r = h.Ok(R"({"op":"jobs","finished":true})");
  CHECK(r["kept"] == 2);
  CHECK(Names(r["jobs"], "job") == std::vector<std::string>{"three", "two"});
  const json two = r["jobs"][1];
  CHECK(two["state"] == "done");
  CHECK(two["seconds"].get<double>() == Approx(2));
  CHECK(two["locality"].get<double>() == Approx(0.5));
  CHECK(two["done"] == 2);
  CHECK(r["jobs"][0]["state"] == "cancelled");
  CHECK(r["jobs"][0]["locality"].is_null());
  r = h.Ok(R"({"op":"jobs","finished":true,"state":"done"})");
  CHECK(Names(r["jobs"], "job") == std::vector<std::string>{"two"});
  const json detail = h.Ok(R"({"op":"job","job":"two"})");
  CHECK(detail["locality"].get<double>() == Approx(0.5));
  CHECK(h.Send(R"({"op":"job","job":"one"})")["error"]["code"] == "not_found");
}

TEST_CASE("The finished-job history survives a snapshot and a reload trims it", "[history]") {
  Config c = Policy(PolicyKind::kFifo);
  Harness h(c);
  h.Machines(2);
  FinishHalfLocal(h, "one", 1);
  FinishHalfLocal(h, "two", 3);
  std::vector<std::string> snapshot;
  h.dispatcher.Save([&](std::string_view rec) { snapshot.emplace_back(rec); });
  Harness b(c);
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  const json before = h.Ok(R"({"op":"jobs","finished":true})");
  CHECK(b.Ok(R"({"op":"jobs","finished":true})") == before);
  c.history.finished_jobs = 1;
  b.engine.ApplyConfig(c);
  const json after = b.Ok(R"({"op":"jobs","finished":true,"sort":"-seconds"})");
  CHECK(Names(after["jobs"], "job") == std::vector<std::string>{"two"});
}

TEST_CASE("A snapshot whose finished jobs lack locality and end time still loads", "[history]") {
  Config c = Policy(PolicyKind::kFifo);
  Harness h(c);
  h.Machines(2);
  FinishHalfLocal(h, "one", 1);
  std::vector<std::string> snapshot;
  h.dispatcher.Save([&](std::string_view rec) { snapshot.emplace_back(rec); });
  for (std::string& rec : snapshot) {
    json r = json::parse(rec);
    if (!r.contains("f")) continue;
    for (const char* key : {"e", "d", "l"}) r.erase(key);
    rec = r.dump();
  }
  Harness b(c);
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  const json one = b.Ok(R"({"op":"jobs","finished":true})")["jobs"][0];
  CHECK(one["job"] == "one");
  CHECK(one["seconds"].get<double>() == Approx(1));
  CHECK(one["locality"].is_null());
  CHECK(one["ended_at"].is_null());
}

}  // namespace
}  // namespace locsched
