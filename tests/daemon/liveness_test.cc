// Liveness over the harness: machines silent past machines.expiry_s are lost (their
// running tasks requeued without using a retry) and come back on a heartbeat or
// machine_up; tasks past scheduler.task_timeout_s fail; late reports of runs taken back
// are stale and count nothing; a restart or a takeover grants every machine a full
// expiry, while a replay of the journal reproduces the expiries it recorded.
#include "daemon/liveness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon/journal_replay.h"
#include "io/store/journal.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

Config LivenessConfig(double expiry_s, double task_timeout_s = 0) {
  Config cfg;
  cfg.machines.expiry_s = expiry_s;
  cfg.scheduler.task_timeout_s = task_timeout_s;
  return cfg;
}

template <typename H>
json Machine(H& h, const std::string& name) {
  const json machines = h.Ok(R"({"op":"machines"})")["machines"];
  for (const json& m : machines)
    if (m["machine"] == name) return m;
  FAIL("no machine " << name);
  return {};
}

constexpr const char* kOneTask =
    R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})";

TEST_CASE("a machine silent past machines.expiry_s is lost; its tasks requeue without a retry") {
  Config cfg = LivenessConfig(30);
  cfg.scheduler.max_task_retries = 1;
  Harness h(cfg);
  Liveness live(h.dispatcher, h.cfg);
  h.Machines(2);
  h.Ok(kOneTask);
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  CHECK(live.Check(true) == 0);  // the first check only grants grace
  h.clock.Advance(20);
  h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":0})");
  h.clock.Advance(10);
  CHECK(live.Check(true) == 0);  // m0 silent exactly 30 s: not yet past
  h.clock.Advance(1.5);
  CHECK(live.Check(true) == 1);
  json s = h.Ok(R"({"op":"status"})");
  CHECK(s["machines"] == json{{"up", 1}, {"draining", 0}, {"down", 0}, {"lost", 1}});
  CHECK(s["tasks"]["running"] == 0);
  CHECK(s["tasks"]["queued"] == 1);
  CHECK(s["tasks"]["requeued"] == 1);
  CHECK(Machine(h, "m0")["state"] == "lost");
  CHECK(live.Check(true) == 0);  // lost once, not again
  CHECK(h.Ok(R"({"op":"metrics"})")["text"].get<std::string>().find(
            "locsched_machines{state=\"lost\"} 1\n") != std::string::npos);
  // The task goes elsewhere; its lost start used no retry, so one failure is retried.
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})")["assign"].size() == 1);
  json f = h.Ok(R"({"op":"task_failed","job":"j","task":"a","machine":"m1"})");
  CHECK(f["attempts"] == 1);
  CHECK(f["retry"] == true);
}

TEST_CASE("a heartbeat or machine_up brings a lost machine back; a downed one stays down") {
  Harness h(LivenessConfig(30));
  Liveness live(h.dispatcher, h.cfg);
  h.Machines(2);
  live.Check(true);
  h.clock.Advance(31);
  CHECK(live.Check(true) == 2);
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  CHECK(Machine(h, "m0")["state"] == "up");
  h.Ok(R"({"op":"machine_up","machine":"m1","slots":1})");
  CHECK(Machine(h, "m1")["state"] == "up");
  CHECK(h.Ok(R"({"op":"status"})")["machines"]["lost"] == 0);
  // A lost machine taken down by the operator needs machine_up again.
  h.clock.Advance(31);
  CHECK(live.Check(true) == 2);
  CHECK(h.Ok(R"({"op":"machine_down","machine":"m0"})", kAdmin)["requeued"] == 0);
  CHECK(Machine(h, "m0")["state"] == "down");
  CHECK(h.Send(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["error"]["code"] ==
        "failed_precondition");
}

TEST_CASE("a draining machine that is lost and comes back is still draining") {
  Harness h(LivenessConfig(30));
  Liveness live(h.dispatcher, h.cfg);
  h.Machines(1);
  h.Ok(R"({"op":"machine_drain","machine":"m0"})", kAdmin);
  live.Check(true);
  h.clock.Advance(31);
  CHECK(live.Check(true) == 1);
  CHECK(h.Send(R"({"op":"machine_drain","machine":"m0"})", kAdmin)["error"]["message"] ==
        "machine: 'm0' is lost");
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  CHECK(Machine(h, "m0")["state"] == "draining");
}

TEST_CASE("machines announced and never heard from expire like any other") {
  Harness h(LivenessConfig(30));
  Liveness live(h.dispatcher, h.cfg);
  live.Check(true);
  h.Machines(3);  // announced (a replay's hosts), never heartbeating
  h.clock.Advance(29);
  CHECK(live.Check(true) == 0);
  h.clock.Advance(2);
  CHECK(live.Check(true) == 3);
}

TEST_CASE("machines.expiry_s = 0 never expires a machine") {
  Harness h(LivenessConfig(0));
  Liveness live(h.dispatcher, h.cfg);
  h.Machines(1);
  live.Check(true);
  h.clock.Advance(1e6);
  CHECK(live.Check(true) == 0);
}

TEST_CASE("a late task_done from a lost machine is stale: exactly one completion counts") {
  Harness h(LivenessConfig(30));
  Liveness live(h.dispatcher, h.cfg);
  h.Machines(2);
  h.Ok(kOneTask);
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  live.Check(true);
  h.clock.Advance(31);
  h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})");  // m1 runs the requeued copy
  CHECK(live.Check(true) == 1);
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})")["assign"].size() == 1);
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":0})");  // m0 is back
  json late = h.Ok(R"({"op":"task_done","job":"j","task":"a","machine":"m0"})");
  CHECK(late["stale"] == true);
  CHECK(late["job_done"] == false);
  json s = h.Ok(R"({"op":"status"})");
  CHECK(s["tasks"]["done"] == 0);
  CHECK(s["tasks"]["running"] == 1);
  CHECK(s["tasks"]["stale_reports"] == 1);
  CHECK(h.Ok(R"({"op":"task_done","job":"j","task":"a","machine":"m1"})")["job_done"] == true);
  CHECK(h.Ok(R"({"op":"status"})")["tasks"]["done"] == 1);
  // A report from a machine that never ran it is still refused.
  h.Ok(R"({"op":"job_submit","job":"k","tasks":[{"task":"b","replicas":["m0"]}]})");
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  CHECK(h.Send(R"({"op":"task_done","job":"k","task":"b","machine":"m1"})")["error"]["message"] ==
        "machine: task 'b' runs on 'm0', not 'm1'");
}

TEST_CASE("a task past scheduler.task_timeout_s fails, uses a retry, and its late done is stale") {
  Config cfg = LivenessConfig(0, /*task_timeout_s=*/100);
  cfg.scheduler.workload_speed = 10;  // 100 workload seconds: 10 on the clock
  Harness h(cfg);
  Liveness live(h.dispatcher, h.cfg);
  CHECK(live.task_timeout_wall_s() == 10);
  h.Machines(2);
  h.Ok(kOneTask);
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  live.Check(true);
  h.clock.Advance(9);
  CHECK(live.Check(true) == 0);
  h.clock.Advance(2);
  CHECK(live.Check(true) == 1);
  json s = h.Ok(R"({"op":"status"})");
  CHECK(s["tasks"]["failed"] == 1);
  CHECK(s["tasks"]["queued"] == 1);
  CHECK(h.Ok(R"({"op":"job","job":"j"})")["task_list"][0]["attempts"] == 1);
  // The first copy reports after all: stale. The retry runs on m0 again, and its report
  // counts.
  CHECK(h.Ok(R"({"op":"task_done","job":"j","task":"a","machine":"m0"})")["stale"] == true);
  REQUIRE(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  CHECK(h.Ok(R"({"op":"task_done","job":"j","task":"a","machine":"m0"})")["job_done"] == true);
  CHECK(h.Ok(R"({"op":"status"})")["tasks"]["done"] == 1);
}

// The harness on a pinnable clock, journaling to a string.
struct Node : BasicHarness<DaemonClock> {
  Node(std::string* disk, Config c) : BasicHarness(std::move(c)), journal(disk) {}
  json State() {
    json v = Ok(R"({"op":"machines"})")["machines"];
    v.push_back(Ok(R"({"op":"status"})")["tasks"]);
    return v;
  }
  MemJournal journal;
};

TEST_CASE("a replay reproduces expiries from the journal; a restart or takeover grants grace") {
  std::string disk, unused;
  Node a(&disk, LivenessConfig(30));
  a.log.Attach(&a.journal);
  Liveness live_a(a.dispatcher, a.cfg);
  a.clock.Pin(1000);
  a.Machines(2);
  a.Ok(kOneTask);
  REQUIRE(a.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  live_a.Check(true);
  a.clock.Pin(1020);
  a.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":0})");
  a.clock.Pin(1031);
  CHECK(live_a.Check(true) == 1);  // m0 lost; the event is journaled
  REQUIRE(a.log.Sync().ok());

  // Replayed much later: the same state, m0 lost from its record, nothing recomputed.
  Node b(&unused, LivenessConfig(30));
  for (const std::string& record : ScanJournal(disk).records)
    REQUIRE(ReplayRecord(record, b.dispatcher, b.clock).ok());
  b.clock.Pin(5000);
  CHECK(b.State() == a.State());
  Liveness live_b(b.dispatcher, b.cfg);
  CHECK(live_b.Check(true) == 0);  // m1's last heartbeat is long past, but not trusted
  b.clock.Pin(5029);
  CHECK(live_b.Check(true) == 0);
  b.clock.Pin(5031);
  CHECK(live_b.Check(true) == 1);  // a full expiry after the restart
  // A standby (may not write) that takes over grants grace again.
  b.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":0})");
  b.clock.Pin(6000);
  CHECK(live_b.Check(false) == 0);
  CHECK(live_b.Check(true) == 0);
  b.clock.Pin(6031);
  CHECK(live_b.Check(true) == 1);
}

// Regression: with lean journaling, a heartbeat that assigned nothing was left out of the
// journal even when it brought a lost machine back, so a replay kept the machine lost.
TEST_CASE("a heartbeat that brings a lost machine back is journaled though it assigns nothing") {
  std::string disk, unused;
  Node a(&disk, LivenessConfig(30));
  a.log.Attach(&a.journal);
  Liveness live_a(a.dispatcher, a.cfg);
  a.clock.Pin(1000);
  a.Machines(1);
  live_a.Check(true);
  a.clock.Pin(1031);
  REQUIRE(live_a.Check(true) == 1);
  a.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":0})");  // back, nothing to run
  REQUIRE(a.log.Sync().ok());
  CHECK(Machine(a, "m0")["state"] == "up");
  Node b(&unused, LivenessConfig(30));
  for (const std::string& record : ScanJournal(disk).records)
    REQUIRE(ReplayRecord(record, b.dispatcher, b.clock).ok());
  CHECK(Machine(b, "m0")["state"] == "up");
  CHECK(b.State() == a.State());
}

TEST_CASE("a lost machine stays lost through a snapshot and comes back on a heartbeat") {
  std::string disk;
  Node a(&disk, LivenessConfig(30));
  a.clock.Pin(1000);
  a.Machines(2);
  a.Ok(R"({"op":"machine_lost","machine":"m0"})", kAdmin);
  std::vector<std::string> snapshot;
  a.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
  Node b(&disk, LivenessConfig(30));
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  CHECK(b.State() == a.State());
  CHECK(b.Ok(R"({"op":"status"})")["machines"]["lost"] == 1);
  b.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  CHECK(b.Ok(R"({"op":"status"})")["machines"]["lost"] == 0);
}

}  // namespace
}  // namespace locsched
