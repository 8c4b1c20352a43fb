// Journal replay and snapshots: a daemon rebuilt from its journal (or from a
// snapshot plus the journal after it) answers every read-only command exactly
// like the one that wrote it, and remembers its event ids.
// A random event stream (submits, heartbeats, dones, failures, cancels,
// machines going down) is the input; the in-memory MemJournal is the disk.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "base/rng.h"
#include "daemon/journal_replay.h"
#include "io/store/journal.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

// The shared harness on a clock that can be pinned, journaling to a string.
struct Node : BasicHarness<DaemonClock> {
  explicit Node(std::string* disk, Config c = Config{}, HarnessOptions o = {})
      : BasicHarness(std::move(c), std::move(o)), journal(disk) {}
  json Send(const std::string& line) {
    json reply = BasicHarness::Send(line);
    if (reply["ok"] == true && reply.contains("id") && acked.size() < 50)
      acked.emplace_back(line, reply);
    return reply;
  }
  std::vector<std::pair<std::string, json>> acked;  // the first events acknowledged with an id
  MemJournal journal;
};

// Everything a reader can see, minus what depends on the wall clock.
json View(Node& n) {
  json v;
  for (const char* op : {"status", "jobs", "machines", "machine_queues"}) {
    json r = n.Send(std::string(R"({"op":")") + op + R"("})");
    r.erase("uptime_s");
    r.erase("daemon");
    if (r.contains("rates")) r.erase("rates");
    if (r.contains("jobs") && r["jobs"].is_array())
      for (json& j : r["jobs"]) j.erase("age_s");
    v[op] = r;
  }
  return v;
}

std::string Q(const std::string& s) {
  return json(s).dump();
}

// One random event; its reply may be an error (e.g. a done for a task not running).
void RandomEvent(Node& n, Rng& rng, int step,
                 std::vector<std::pair<std::string, std::string>>& running) {
  const std::string m = "m" + std::to_string(rng.Below(8));
  const std::string id = R"(,"id":"e)" + std::to_string(step) + "\"";
  switch (rng.Below(6)) {
    case 0: {
      std::string tasks;
      for (uint32_t t = 0, k = 1 + rng.Below(6); t < k; ++t)
        tasks += std::string(t ? "," : "") + R"({"task":"t)" + std::to_string(t) +
                 R"(","replicas":[")" + "m" + std::to_string(rng.Below(8)) + R"("],"kind":")" +
                 (t == k - 1 && k > 1 ? "reduce" : "map") + "\"}";
      n.Send(R"({"op":"job_submit")" + id + R"(,"job":"j)" + std::to_string(step) +
             R"(","tasks":[)" + tasks + "]}");
      break;
    }
    case 1:
    case 2: {
      const json r =
          n.Send(R"({"op":"heartbeat")" + id + R"(,"machine":")" + m + R"(","free_slots":2})");
      if (r["ok"] == true)
        for (const json& a : r["assign"]) running.emplace_back(a["job"], a["task"]);
      break;
    }
    case 3:
    case 4: {
      if (running.empty()) break;
      const size_t k = rng.Below(static_cast<uint32_t>(running.size()));
      const auto [job, task] = running[k];
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      const char* op = rng.Below(5) == 0 ? "task_failed" : "task_done";
      n.Send(std::string(R"({"op":")") + op + "\"" + id + R"(,"job":)" + Q(job) + R"(,"task":)" +
             Q(task) + "}");
      break;
    }
    default:
      if (rng.Below(4) == 0)
        n.Send(R"({"op":"machine_down")" + id + R"(,"machine":")" + m + "\"}");
      else
        n.Send(R"({"op":"machine_up")" + id + R"(,"machine":")" + m + R"(","slots":2})");
  }
}

// Journals from now on and registers the 8 machines RandomEvent uses.
void StartJournaled(Node& a) {
  a.log.Attach(&a.journal);
  for (int m = 0; m < 8; ++m)
    a.Send(R"({"op":"machine_up","machine":"m)" + std::to_string(m) + R"(","slots":2})");
}

TEST_CASE("a daemon replayed from its journal is indistinguishable from the original") {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::string disk;
    Node a(&disk);
    StartJournaled(a);
    Rng rng(seed);
    std::vector<std::pair<std::string, std::string>> running;
    for (int step = 0; step < 400; ++step) {
      RandomEvent(a, rng, step, running);
      if (rng.Below(10) == 0) REQUIRE(a.log.Sync().ok());
    }
    REQUIRE(a.log.Sync().ok());

    std::string unused;
    Node b(&unused);
    const JournalScan scan = ScanJournal(disk);
    REQUIRE(scan.cut_bytes == 0);
    for (const std::string& record : scan.records)
      REQUIRE(ReplayRecord(record, b.dispatcher, b.clock).ok());
    b.clock.Release();
    INFO("seed " << seed);
    CHECK(View(b) == View(a));
    // Ids survive: a retried event is acknowledged, not applied again.
    const json again = b.Send(R"({"op":"machine_up","id":"e3","machine":"zz"})");
    CHECK((again.contains("duplicate") || again["ok"] == false ||
           a.Send(R"({"op":"machine_up","id":"e3","machine":"zz"})") == again));
  }
}

// RandomEvent's stream as agents send it: heartbeats without ids, and one in three
// from a machine with no free slot, so most of them change nothing.
void AgentEvent(Node& n, Rng& rng, int step,
                std::vector<std::pair<std::string, std::string>>& running) {
  if (rng.Below(2) != 0) return RandomEvent(n, rng, step, running);
  const std::string m = "m" + std::to_string(rng.Below(8));
  const int free_slots = rng.Below(3) == 0 ? 0 : 2;
  const json r = n.Send(R"({"op":"heartbeat","machine":")" + m + R"(","free_slots":)" +
                        std::to_string(free_slots) + "}");
  if (r["ok"] == true)
    for (const json& a : r["assign"]) running.emplace_back(a["job"], a["task"]);
}

// The View plus every live job in detail (task states, attempts, machines) and the rates.
json DeepView(Node& n) {
  json v = View(n);
  for (const json& j : v["jobs"]["jobs"]) {
    json detail = n.Send(R"({"op":"job","job":)" + Q(j["job"]) + "}");
    detail.erase("age_s");  // wall clock
    // Why a task waits reads the clock now, and policy state a snapshot does not keep (when
    // each job last started a task); its holders must still match.
    for (json& t : detail["task_list"]) t.erase("wait");
    v["job " + j["job"].get<std::string>()] = detail;
  }
  return v;
}

TEST_CASE("a daemon loaded from a snapshot plus the journal after it equals the original") {
  for (uint64_t seed = 11; seed <= 30; ++seed) {
    INFO("seed " << seed);
    std::string disk;
    Node a(&disk);
    StartJournaled(a);
    Rng rng(seed);
    std::vector<std::pair<std::string, std::string>> running;
    // A pinned clock: the engine and the journal see the same time, so the
    // learnt rates must come back exactly.
    for (int step = 0; step < 300; ++step) {
      a.clock.Pin(1000.0 + step * 0.25);
      RandomEvent(a, rng, step, running);
    }
    a.Send(R"({"op":"machine_up","machine":"m7","slots":2})");
    a.Send(R"({"op":"machine_drain","machine":"m7","drain":true})");
    REQUIRE(a.log.Sync().ok());
    // The snapshot, then a second journal that continues after it.
    std::vector<std::string> snapshot;
    a.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
    std::string disk2;
    MemJournal journal2(&disk2);
    a.log.Attach(&journal2);
    for (int step = 300; step < 500; ++step) {
      a.clock.Pin(1000.0 + step * 0.25);
      RandomEvent(a, rng, step, running);
    }
    REQUIRE(a.log.Sync().ok());

    std::string unused;
    Node b(&unused);
    REQUIRE(b.dispatcher.Load(snapshot).ok());
    for (const std::string& record : ScanJournal(disk2).records)
      REQUIRE(ReplayRecord(record, b.dispatcher, b.clock).ok());
    b.clock.Release();
    CHECK(DeepView(b) == DeepView(a));
    CHECK(b.Send(R"({"op":"status"})")["rates"] == a.Send(R"({"op":"status"})")["rates"]);
    CHECK(b.dispatcher.remembered_ids() == a.dispatcher.remembered_ids());
    // An id acknowledged before the snapshot is still recognised after it.
    const json again = b.Send(R"({"op":"machine_up","id":"e3","machine":"zz"})");
    CHECK(again == a.Send(R"({"op":"machine_up","id":"e3","machine":"zz"})"));
  }
}

TEST_CASE("a damaged snapshot record is refused with the record's number") {
  std::string disk;
  Node a(&disk);
  a.Send(R"({"op":"machine_up","machine":"m0","slots":1})");
  a.Send(R"({"op":"job_submit","job":"j","tasks":[{"task":"t","replicas":["m0"]}]})");
  std::vector<std::string> snapshot;
  a.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
  REQUIRE(snapshot.size() == 3);  // counters, one machine, one job
  snapshot[2] = R"({"j":"j","w":1,"at":0,"t":[["t",[5],0,0,0,0,0,null,null]]})";
  Node b(&disk);
  const Status s = b.dispatcher.Load(snapshot);
  CHECK(s.message() == "snapshot record 3: snapshot: replica out of range");
}

TEST_CASE("a finished task keeps its machine through a snapshot; older snapshots still load") {
  std::string disk;
  Node a(&disk);
  a.Send(R"({"op":"machine_up","machine":"m0","slots":1})");
  a.Send(R"({"op":"machine_up","machine":"m1","slots":1})");
  a.Send(R"({"op":"job_submit","job":"j","tasks":[{"task":"t0","replicas":["m1"]},)"
         R"({"task":"t1","replicas":["m1"]}]})");
  REQUIRE(a.Send(R"({"op":"heartbeat","machine":"m1","free_slots":1})")["assign"].size() == 1);
  const json first = a.Send(R"({"op":"job","job":"j"})")["task_list"][0];
  REQUIRE(a.Send(R"({"op":"task_done","job":"j","task":)" + Q(first["task"]) + "}")["ok"] == true);
  const json done = a.Send(R"({"op":"job","job":"j"})")["task_list"][0];
  CHECK(done["state"] == "done");
  CHECK(done["machine"] == "m1");
  CHECK(done["local"] == true);
  std::vector<std::string> snapshot;
  a.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
  REQUIRE(snapshot.size() == 4);  // counters, two machines, one job
  Node b(&disk);
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  CHECK(b.Send(R"({"op":"job","job":"j"})")["task_list"][0] == done);
  // A snapshot written before finished tasks kept their machine: done, no machine.
  json job = json::parse(snapshot[3]);
  for (json& t : job["t"])
    if (t[5] == 2) t[7] = nullptr;  // state 2 is done; [7] its machine
  snapshot[3] = job.dump();
  Node c(&disk);
  REQUIRE(c.dispatcher.Load(snapshot).ok());
  const json old = c.Send(R"({"op":"job","job":"j"})")["task_list"][0];
  CHECK(old["state"] == "done");
  CHECK_FALSE(old.contains("machine"));
  CHECK(c.Send(R"({"op":"machines"})")["machines"][0]["running"] == 0);
}

TEST_CASE("events are refused while the journal's disk is nearly full") {
  std::string disk;
  uint64_t free_bytes = 1u << 20;
  Config cfg;
  cfg.journal.min_free_mb = 64;
  HarnessOptions options;
  options.free_bytes = [&] { return free_bytes; };
  Node n(&disk, cfg, options);
  n.log.Attach(&n.journal);
  const json r = n.Send(R"({"op":"machine_up","machine":"a"})");
  CHECK(r["error"]["code"] == "resource_exhausted");
  CHECK(r["error"]["field"] == "journal.min_free_mb");
  CHECK(n.Send(R"({"op":"status"})")["ok"] == true);  // reads still work
  CHECK(n.log.unsynced() == 0);                       // nothing was journaled
}

TEST_CASE(
    "replay counts a journaled heartbeat like every other op (requests_total after a "
    "restart)") {
  std::string disk, unused;
  Node a(&disk);
  a.log.Attach(&a.journal);
  a.Machines(2, 2);
  a.Send(R"({"op":"job_submit","job":"j","tasks":[{"task":"t0","replicas":["m0"]},)"
         R"({"task":"t1","replicas":["m0"]},{"task":"t2","replicas":["m1"]}]})");
  CHECK(a.Send(R"({"op":"heartbeat","machine":"m0","free_slots":2,"id":7})")["assign"].size() == 2);
  CHECK(a.Send(R"({"op":"heartbeat","machine":"m1","free_slots":0})")["assign"].empty());
  a.Send(R"({"op":"task_done","job":"j","task":"t0"})");
  REQUIRE(a.log.Sync().ok());

  Node b(&unused);
  for (const std::string& record : ScanJournal(disk).records)
    REQUIRE(ReplayRecord(record, b.dispatcher, b.clock).ok());
  b.clock.Release();
  // m1's heartbeat assigned nothing and had no id: it left no record, so only m0's counts.
  CHECK(b.dispatcher.counters(Op::kHeartbeat).calls == 1);
  for (const CommandSpec& c : CommandTable()) {
    INFO(c.name);
    CHECK(b.dispatcher.counters(c.op).calls ==
          a.dispatcher.counters(c.op).calls - (c.op == Op::kHeartbeat ? 1 : 0));
  }
  CHECK(b.dispatcher.counters().lines() == a.dispatcher.counters().lines() - 1);
  // The retried heartbeat gets the reply it got before the restart.
  CHECK(b.Send(R"({"op":"heartbeat","machine":"m0","free_slots":2,"id":7})")["assign"] ==
        a.Send(R"({"op":"heartbeat","machine":"m0","free_slots":2,"id":7})")["assign"]);
}

TEST_CASE("a heartbeat's journal record lists its assignments, not its reply text") {
  std::string disk;
  Node a(&disk);
  a.log.Attach(&a.journal);
  a.Machines(1);
  a.Send(R"({"op":"job_submit","job":"j","tasks":[{"task":"t","replicas":["m0"]}]})");
  a.Send(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  REQUIRE(a.log.Sync().ok());
  const std::vector<std::string> records = ScanJournal(disk).records;
  REQUIRE(records.size() == 3);
  const json beat = json::parse(records[2]);
  CHECK(beat["assign"] == json::array({json::array({"j", "t"})}));
  CHECK(!beat.contains("body"));
  // A record holding the reply's text is refused, saying what to do.
  std::string unused;
  Node b(&unused);
  const Status s =
      ReplayRecord(R"({"t":1,"line":"{\"op\":\"heartbeat\",\"machine\":\"m0\",\"free_slots\":1}",)"
                   R"("body":",\"assign\":[]"})",
                   b.dispatcher, b.clock);
  CHECK(s.message().find("stop the daemon that wrote it cleanly") != std::string::npos);
}

TEST_CASE(
    "a lean journal (no record for heartbeats that changed nothing) recovers the same "
    "state") {
  for (uint64_t seed = 41; seed <= 50; ++seed) {
    INFO("seed " << seed);
    std::string disk;
    Node a(&disk);
    StartJournaled(a);
    Rng rng(seed);
    std::vector<std::pair<std::string, std::string>> running;
    // The pinned clock makes the learnt rates and the wait timers comparable exactly.
    for (int step = 0; step < 600; ++step) {
      a.clock.Pin(1000.0 + step * 0.25);
      AgentEvent(a, rng, step, running);
    }
    REQUIRE(a.log.Sync().ok());
    REQUIRE(a.log.skipped() > 50);  // the stream did have heartbeats that changed nothing

    std::string unused;
    Node b(&unused);
    for (const std::string& record : ScanJournal(disk).records)
      REQUIRE(ReplayRecord(record, b.dispatcher, b.clock).ok());
    b.clock.Pin(1000.0 + 600 * 0.25);
    CHECK(DeepView(b) == DeepView(a));
    CHECK(b.Send(R"({"op":"status"})")["rates"] == a.Send(R"({"op":"status"})")["rates"]);
    CHECK(b.dispatcher.remembered_ids() == a.dispatcher.remembered_ids());
    // The snapshot of the recovered daemon is the live one's, record for record.
    std::vector<std::string> live, recovered;
    a.dispatcher.Save([&](std::string_view r) { live.emplace_back(r); });
    b.dispatcher.Save([&](std::string_view r) { recovered.emplace_back(r); });
    CHECK(recovered == live);
    // And both go on alike: the same heartbeat gets the same tasks.
    for (int m = 0; m < 8; ++m) {
      const std::string beat =
          R"({"op":"heartbeat","machine":"m)" + std::to_string(m) + R"(","free_slots":2})";
      CHECK(b.Send(beat) == a.Send(beat));
    }
  }
}

}  // namespace
}  // namespace locsched
