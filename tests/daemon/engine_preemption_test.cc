// The daemon's preemption (daemon/engine_preemption.cc), driven line by line: a heartbeat
// plans victims for a queue kept below its guarantee past preemption.timeout_s, requeues
// them without using a retry, and the victim's machine hears its stop orders on its next
// heartbeat reply, with the freed slots handed to the starved queue. The orders owed
// survive a journal replay and a snapshot exactly.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "config/config_loader.h"
#include "daemon/journal_replay.h"
#include "io/store/journal.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

// Two queues of half the cluster each, jobs placed by their "queue"; preemption after
// timeout_s (0: off), victims kill_wait_s later.
Config TwoQueues(double timeout_s, double kill_wait_s = 0) {
  Config c;
  const std::string toml = R"([preemption]
timeout_s = )" + std::to_string(timeout_s) +
                           "\nkill_wait_s = " + std::to_string(kill_wait_s) + R"(

[placement]
rules = ["explicit"]

[queue.a]
capacity = 50

[queue.b]
capacity = 50
)";
  const Status s = LoadConfigText(toml, "test.toml", &c);
  REQUIRE(s.ok());
  return c;
}

struct Node : BasicHarness<DaemonClock> {
  // Journals to *disk if `journaled`.
  Node(std::string* disk, Config c, bool journaled = true)
      : BasicHarness(std::move(c)), journal(disk) {
    if (journaled) log.Attach(&journal);
  }
  json Beat(const std::string& m, int free, double at) {
    clock.Pin(at);
    return Ok(R"({"op":"heartbeat","machine":")" + m + R"(","free_slots":)" + std::to_string(free) +
              "}");
  }
  MemJournal journal;
};

std::string SubmitLine(const std::string& name, const std::string& queue, int tasks) {
  std::string line =
      R"({"op":"job_submit","job":")" + name + R"(","queue":")" + queue + R"(","tasks":[)";
  for (int t = 0; t < tasks; ++t)
    line += std::string(t ? "," : "") + R"({"task":"t)" + std::to_string(t) +
            R"(","replicas":["m0","m1"]})";
  return line + "]}";
}

// Queue a fills both machines (m1 last), then b arrives at 2 s with `late` tasks and waits.
void FillThenStarve(Node& n, int late = 2) {
  n.clock.Pin(0);
  n.Machines(2, 2);
  n.Ok(SubmitLine("big", "a", 8));
  n.Beat("m0", 2, 0);
  n.Beat("m1", 2, 1);
  n.clock.Pin(2);
  n.Ok(SubmitLine("late", "b", late));
}

}  // namespace

TEST_CASE("a queue below its guarantee past the timeout gets the latest-started runs") {
  std::string disk;
  Node n(&disk, TwoQueues(5));
  FillThenStarve(n);
  // Within the timeout nothing is preempted.
  CHECK_FALSE(n.Beat("m0", 0, 4).contains("preempt"));
  // Past it, b's deficit is 2 slots; m1's runs started last, so they go, and m0 hears
  // nothing about them.
  const json on_m0 = n.Beat("m0", 0, 9);
  CHECK_FALSE(on_m0.contains("preempt"));
  CHECK(on_m0["assign"].empty());
  json status = n.Ok(R"({"op":"status"})");
  CHECK(status["tasks"]["preempted"] == 2);
  CHECK(status["tasks"]["preempted_task_s"] == Approx(16));  // two runs of 8 s
  // m1 is told to stop both and gets b's two tasks in the same reply.
  const json on_m1 = n.Beat("m1", 0, 9.5);
  REQUIRE(on_m1["preempt"].size() == 2);
  REQUIRE(on_m1["assign"].size() == 2);
  for (const json& a : on_m1["assign"]) CHECK(a["job"] == "late");
  for (const json& p : on_m1["preempt"]) CHECK(p["job"] == "big");
  // Delivered once: the next heartbeat has no orders.
  CHECK_FALSE(n.Beat("m1", 0, 10).contains("preempt"));
  // No retry was used: the preempted tasks wait with no attempt counted against them.
  const json big = n.Ok(R"({"op":"job","job":"big"})");
  for (const json& t : big["task_list"])
    if (t["state"] == "queued") CHECK(t["attempts"] == 0);
  // The machine confirms; a late done of the stopped run is stale.
  const std::string victim = on_m1["preempt"][0]["task"];
  const json ack =
      n.Ok(R"({"op":"task_preempted","job":"big","task":")" + victim + R"(","machine":"m1"})");
  CHECK(ack["requeued"] == true);
  const json late =
      n.Ok(R"({"op":"task_done","job":"big","task":")" + victim + R"(","machine":"m1"})");
  CHECK(late["stale"] == true);
  CHECK(n.Send(R"({"op":"task_preempted","job":"big","task":"t0","machine":"m1"})")["ok"] ==
        false);  // t0 ran on m0 and was never preempted
  status = n.Ok(R"({"op":"status"})");
  CHECK(status["tasks"]["preempt_reports"] == 1);
}

TEST_CASE("victims wait preemption.kill_wait_s past the timeout, free slots do not") {
  std::string disk;
  Node n(&disk, TwoQueues(5, 3));
  FillThenStarve(n, 3);
  n.Ok(R"({"op":"task_done","job":"big","task":"t0","machine":"m0"})");  // m0 frees a slot
  // At 8 s (past 2 + 5), b is starved: m0's free slot is kept for it, nothing is stopped.
  json on_m0 = n.Beat("m0", 1, 8);
  CHECK_FALSE(on_m0.contains("preempt"));
  REQUIRE(on_m0["assign"].size() == 1);
  CHECK(on_m0["assign"][0]["job"] == "late");
  CHECK(n.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 0);
  CHECK_FALSE(n.Beat("m1", 0, 9.5).contains("preempt"));  // within the kill wait
  // Past 10 s (2 + 5 + 3; rounds at most once a second) b still lacks one slot: one of
  // m1's runs goes.
  n.Beat("m0", 0, 10.5);
  CHECK(n.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 1);
  const json on_m1 = n.Beat("m1", 0, 11);
  REQUIRE(on_m1["preempt"].size() == 1);
  REQUIRE(on_m1["assign"].size() == 1);
  CHECK(on_m1["assign"][0]["job"] == "late");
}

TEST_CASE("preemption is off at timeout 0, and takes no queue below its guarantee") {
  std::string disk;
  Node off(&disk, TwoQueues(0));
  FillThenStarve(off);
  CHECK_FALSE(off.Beat("m1", 0, 100).contains("preempt"));
  CHECK(off.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 0);

  // b asks for 4 tasks but a holds exactly its guarantee of 2 slots plus 2: only 2 go.
  std::string disk2;
  Node n(&disk2, TwoQueues(5));
  FillThenStarve(n, 4);
  n.Beat("m0", 0, 9);
  CHECK(n.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 2);
  n.Beat("m0", 0, 20);  // the freed slots count against b's deficit, and a is at its guarantee
  CHECK(n.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 2);
}

TEST_CASE("stop orders owed survive a journal replay and a snapshot") {
  std::string disk;
  Node a(&disk, TwoQueues(5));
  FillThenStarve(a);
  a.Beat("m0", 0, 9);  // plans: m1 owes two stop orders, not delivered yet
  REQUIRE(a.log.Sync().ok());
  std::vector<std::string> snapshot;
  a.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });

  std::string unused, unused2;
  Node replayed(&unused, TwoQueues(5), false);
  for (const std::string& record : ScanJournal(disk).records)
    REQUIRE(ReplayRecord(record, replayed.dispatcher, replayed.clock).ok());
  Node loaded(&unused2, TwoQueues(5), false);
  REQUIRE(loaded.dispatcher.Load(snapshot).ok());

  const json want = a.Beat("m1", 0, 9.5);
  REQUIRE(want["preempt"].size() == 2);
  CHECK(replayed.Beat("m1", 0, 9.5)["preempt"] == want["preempt"]);
  CHECK(loaded.Beat("m1", 0, 9.5)["preempt"] == want["preempt"]);
  CHECK(loaded.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 2);
  CHECK(replayed.Ok(R"({"op":"status"})")["tasks"]["preempted"] == 2);
}

}  // namespace locsched
