// The Rebalancer driven through the Dispatcher and Engine (no sockets): after
// random event sequences its kept flow equals LEMON's Preflow on the same backlog,
// every move is valid, no task is lost or duplicated, stale moves are dropped,
// the triggers fire as configured, and journal replay still works with
// rebalances in between.
#include "daemon/rebalancer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "algorithms/core/jsq_maxweight.h"
#include "algorithms/hta/preflow_cover.h"
#include "base/rng.h"
#include "daemon/dispatcher.h"
#include "daemon/journal_replay.h"
#include "io/store/journal.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

constexpr int kMachines = 10;

// The shared harness with kMachines machines of 2 slots, and the tasks it saw assigned.
// The rebalancer moves tasks between JSQ+MaxWeight's queues: a config left at the default
// policy gets that one.
Config OnJsq(Config c) {
  if (c.scheduler.policy == Config{}.scheduler.policy)
    c.scheduler.policy = PolicyKind::kJsqMaxWeight;
  return c;
}

struct RebalanceHarness : BasicHarness<FakeClock> {
  explicit RebalanceHarness(Config c = Config{}) : BasicHarness(OnJsq(std::move(c))) {
    for (int m = 0; m < kMachines; ++m)
      Send(R"({"op":"machine_up","machine":"m)" + std::to_string(m) + R"(","slots":2})");
  }
  std::vector<std::pair<std::string, std::string>> running;  // (job, task) as assigned
};

std::string Q(const std::string& s) {
  return json(s).dump();
}

// A job of 1..8 tasks, each on 1..3 distinct random machines.
std::string RandomJob(Rng& rng, int step) {
  std::string tasks;
  for (uint32_t t = 0, k = 1 + rng.Below(8); t < k; ++t) {
    std::set<uint32_t> reps;
    for (uint32_t r = 0, n = 1 + rng.Below(3); r < n; ++r) reps.insert(rng.Below(kMachines));
    std::string list;
    for (uint32_t m : reps)
      list += std::string(list.empty() ? "" : ",") + "\"m" + std::to_string(m) + "\"";
    tasks += std::string(t ? "," : "") + R"({"task":"t)" + std::to_string(t) + R"(","replicas":[)" +
             list + "]}";
  }
  return R"({"op":"job_submit","job":"j)" + std::to_string(step) + R"(","tasks":[)" + tasks + "]}";
}

// One random event (its reply may be an error, e.g. a heartbeat of a down machine).
void RandomEvent(RebalanceHarness& h, Rng& rng, int step) {
  const std::string m = "m" + std::to_string(rng.Below(kMachines));
  switch (rng.Below(9)) {
    case 0:
    case 1:
      h.Send(RandomJob(rng, step));
      break;
    case 2:
    case 3: {
      const json r = h.Send(R"({"op":"heartbeat","machine":")" + m + R"(","free_slots":2})");
      if (r["ok"] == true)
        for (const json& a : r["assign"]) h.running.emplace_back(a["job"], a["task"]);
      break;
    }
    case 4:
    case 5: {
      if (h.running.empty()) break;
      const size_t k = rng.Below(static_cast<uint32_t>(h.running.size()));
      const auto [job, task] = h.running[k];
      h.running.erase(h.running.begin() + static_cast<std::ptrdiff_t>(k));
      const char* op = rng.Below(4) == 0 ? "task_failed" : "task_done";
      h.Send(std::string(R"({"op":")") + op + R"(","job":)" + Q(job) + R"(,"task":)" + Q(task) +
             "}");
      break;
    }
    case 6:
      h.Send(R"({"op":"job_cancel","job":"j)" + std::to_string(rng.Below(step + 1)) + "\"}");
      break;
    case 7:
      h.Send(R"({"op":"machine_drain","machine":")" + m + R"(","drain":)" +
             (rng.Below(2) ? "true" : "false") + "}");
      break;
    default:
      if (rng.Below(2) == 0)
        h.Send(R"({"op":"machine_down","machine":")" + m + "\"}");
      else
        h.Send(R"({"op":"machine_up","machine":")" + m + R"(","slots":2})");
  }
}

bool Usable(const Machine& m) {
  return m.up && !m.draining;
}

// The queued tasks (ids) of the core.
std::multiset<TaskId> Backlog(const Scheduler& s) {
  std::multiset<TaskId> out;
  const Cluster& c = s.cluster();
  for (TaskId t = 0; t < c.task_capacity(); ++t)
    if (c.task(t).job != kNoId && c.task(t).state == TaskState::kQueued) out.insert(t);
  return out;
}

// The kept flow holds exactly the backlog, and its value is LEMON's on the same problem.
void CheckFlow(const Engine& e) {
  const Rebalancer& rb = *e.rebalancer();
  const MaxCover& cover = rb.cover();
  const Cluster& c = e.scheduler().cluster();
  CoverProblem p;
  p.servers = static_cast<int>(c.num_machines());
  p.tau = cover.tau();
  REQUIRE(cover.servers() == p.servers);
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    p.up.push_back(Usable(c.machine(m)) ? 1 : 0);
    p.base.push_back(static_cast<int>(c.machine(m).running));
    CHECK(cover.up(static_cast<int>(m)) == Usable(c.machine(m)));
    CHECK(cover.base(static_cast<int>(m)) == static_cast<int>(c.machine(m).running));
  }
  std::multiset<TaskId> in_cover;
  for (int id = 0; id < cover.task_slots(); ++id) {
    if (!cover.live(id)) continue;
    const TaskId t = rb.TaskOf(id);
    in_cover.insert(t);
    const std::vector<int> reps(c.task(t).replicas.begin(), c.task(t).replicas.end());
    CHECK(cover.replicas(id) == reps);
    p.tasks.push_back(reps);
  }
  CHECK(in_cover == Backlog(e.scheduler()));
  CHECK(cover.flow() == PreflowCoverValue(p));
}

// Every queued task sits in R or in the local queue of a usable replica holder,
// and the queues hold exactly the queued tasks.
void CheckQueues(const Engine& e) {
  const Scheduler& s = e.scheduler();
  const Cluster& c = s.cluster();
  for (TaskId t : Backlog(s)) {
    const Task& task = c.task(t);
    REQUIRE(task.queue != kNoId);
    if (task.queue == LocalityQueues::kRemote) continue;
    CHECK(Usable(c.machine(task.queue)));
    CHECK(task.IsLocalTo(task.queue));
  }
  CHECK(s.policy().Stats().queued == s.queued());
  uint64_t by_jobs = 0;
  for (JobId j = 0; j < c.job_capacity(); ++j)
    if (c.job(j).alive) by_jobs += c.job(j).queued;
  CHECK(by_jobs == s.queued());
}

TEST_CASE("after random events the kept flow equals a from-scratch Preflow", "[rebalance]") {
  // Automatic runs on: the flow is kept incrementally between runs from the
  // log. Off: no log is kept and every forced run starts from a full listing.
  const bool automatic = GENERATE(true, false);
  Config c;
  c.rebalance.enabled = automatic;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed << ", automatic " << automatic);
    RebalanceHarness h(c);
    Rng rng(seed);
    uint64_t moved = 0;
    for (int step = 0; step < 600; ++step) {
      RandomEvent(h, rng, step);
      if (rng.Below(25) != 0) continue;
      const uint64_t queued = h.engine.scheduler().queued();
      const std::multiset<TaskId> before = Backlog(h.engine.scheduler());
      const json r = h.Send(R"({"op":"rebalance"})", kAdmin);
      REQUIRE(r["ok"] == true);
      CHECK(r["backlog"] == queued);
      CHECK(r["stale"] == 0);  // nothing happened between snapshot and apply
      moved += r["moved"].get<uint64_t>();
      CHECK(h.engine.scheduler().queued() == queued);
      CHECK(Backlog(h.engine.scheduler()) == before);
      CheckFlow(h.engine);
      CheckQueues(h.engine);
    }
    CHECK(moved > 0);  // the runs did move tasks
  }
}

TEST_CASE("with automatic runs off no backlog log is kept (it cost 28 bytes per queued task)",
          "[rebalance]") {
  RebalanceHarness h;  // rebalance.enabled is false by default
  Rebalancer& rb = *h.engine.rebalancer();
  Rng rng(5);
  for (int step = 0; step < 20; ++step) h.Send(RandomJob(rng, step));
  CHECK(rb.logged() == 0);
  const uint64_t queued = h.engine.scheduler().queued();
  const json r = h.Send(R"({"op":"rebalance"})", kAdmin);
  REQUIRE(r["ok"] == true);
  CHECK(r["backlog"] == queued);  // the forced run listed the whole backlog
  CheckFlow(h.engine);
  h.Send(RandomJob(rng, 20));
  CHECK(rb.logged() == 0);
  // Turned on by a reload, the log starts with the next run's full listing.
  Config on;
  on.rebalance.enabled = true;
  rb.ApplyConfig(on.rebalance);
  REQUIRE(h.Send(R"({"op":"rebalance"})", kAdmin)["ok"] == true);
  h.Send(RandomJob(rng, 21));
  CHECK(rb.logged() > 0);
}

TEST_CASE("moves made stale while the solve was out are dropped", "[rebalance]") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    RebalanceHarness h;
    Rng rng(seed);
    for (int step = 0; step < 200; ++step) RandomEvent(h, rng, step);
    for (int step = 200; step < 240; ++step) h.Send(RandomJob(rng, step));
    Rebalancer& rb = *h.engine.rebalancer();
    std::unique_ptr<RebalanceRun> run = rb.Begin(h.clock.Now(), "forced", 0.8, 0.2);
    REQUIRE(run);
    CHECK(rb.Begin(h.clock.Now(), "forced", 0.8, 0.2) == nullptr);  // one at a time
    rb.Solve(*run);
    // The loop goes on meanwhile: starts, cancels, a machine lost, one drained.
    for (int m = 0; m < kMachines; m += 2)
      h.Send(R"({"op":"heartbeat","machine":"m)" + std::to_string(m) + R"(","free_slots":2})");
    h.Send(R"({"op":"job_cancel","job":"j230"})");
    h.Send(R"({"op":"machine_down","machine":"m3"})");
    h.Send(R"({"op":"machine_drain","machine":"m5"})");
    const uint64_t queued = h.engine.scheduler().queued();
    const std::multiset<TaskId> before = Backlog(h.engine.scheduler());
    while (!rb.Apply(*run, 7)) {
    }
    rb.End(*run, h.clock.Now());
    CHECK(run->stats.stale > 0);
    CHECK(h.engine.scheduler().queued() == queued);
    CHECK(Backlog(h.engine.scheduler()) == before);
    CheckQueues(h.engine);
    // The next run absorbs what happened meanwhile.
    REQUIRE(h.Send(R"({"op":"rebalance"})", kAdmin)["ok"] == true);
    CheckFlow(h.engine);
    CheckQueues(h.engine);
  }
}

// 40 tasks whose only replica is m0: max-cover covers a few, and bal-assign
// spreads the rest over the other machines, which can take them only remotely.
// Returns how many more tasks wait in the remote queue after a forced run.
int64_t RemoteGrowth(bool uncovered_to_remote) {
  Config cfg;
  cfg.rebalance.uncovered_to_remote = uncovered_to_remote;
  RebalanceHarness h(cfg);
  std::string tasks;
  for (int t = 0; t < 40; ++t)
    tasks +=
        std::string(t ? "," : "") + R"({"task":"t)" + std::to_string(t) + R"(","replicas":["m0"]})";
  REQUIRE(h.Send(R"({"op":"job_submit","job":"hot","tasks":[)" + tasks + "]}")["ok"] == true);
  const auto& queues = dynamic_cast<const JsqMaxWeight&>(h.engine.scheduler().policy()).queues();
  const auto before = static_cast<int64_t>(queues.Length(LocalityQueues::kRemote));
  REQUIRE(h.Send(R"({"op":"rebalance"})", kAdmin)["ok"] == true);
  CheckQueues(h.engine);
  CHECK(h.engine.scheduler().queued() == 40);
  return static_cast<int64_t>(queues.Length(LocalityQueues::kRemote)) - before;
}

TEST_CASE("uncovered tasks keep JSQ's queue unless rebalance.uncovered_to_remote", "[rebalance]") {
  CHECK(RemoteGrowth(false) <= 0);  // only covered tasks move, each into m0's queue
  CHECK(RemoteGrowth(true) > 0);
}

TEST_CASE("a forced rebalance over the wire: admin only, control socket, jsq-maxweight",
          "[rebalance]") {
  RebalanceHarness h;
  h.Send(R"({"op":"job_submit","job":"a","tasks":[{"task":"0","replicas":["m0","m1"]},)"
         R"({"task":"1","replicas":["m0","m1"]},{"task":"2","replicas":["m0","m1"]},)"
         R"({"task":"3","replicas":["m0","m1"]}]})");
  json r = h.Send(R"({"op":"rebalance"})", kAdmin);
  REQUIRE(r["ok"] == true);
  CHECK(r["trigger"] == "forced");
  CHECK(r["backlog"] == 4);
  CHECK(r["covered"] == 4);
  CHECK(r["local"] == 4);
  CHECK(r["locality_after"] == 1.0);
  const json st = h.Send(R"({"op":"status"})");
  CHECK(st["rebalance"]["runs"] == 1);
  CHECK(st["rebalance"]["last"]["backlog"] == 4);
  const std::string metrics = h.Send(R"({"op":"metrics"})")["text"];
  CHECK(metrics.find("locsched_rebalance_runs_total 1\n") != std::string::npos);
  CHECK(h.Send(R"({"op":"rebalance"})")["error"]["code"] == "failed_precondition");  // event socket
  CHECK(h.Send(R"({"op":"rebalance"})", Caller{true, false, 7})["error"]["code"] ==
        "permission_denied");
  Config fair;
  fair.scheduler.policy = PolicyKind::kFair;
  RebalanceHarness f(fair);
  CHECK(f.engine.rebalancer() == nullptr);
  r = f.Send(R"({"op":"rebalance"})", kAdmin);
  CHECK(r["error"]["code"] == "failed_precondition");
  CHECK(r["error"]["field"] == "scheduler.policy");
}

TEST_CASE("triggers: a big job, then the adaptive timer within max_share", "[rebalance]") {
  Config c;
  c.rebalance.enabled = true;
  c.rebalance.big_job_tasks = 8;
  c.rebalance.base_interval_ms = 1000;
  c.rebalance.max_interval_ms = 4000;
  c.rebalance.max_share = 0.5;
  c.rebalance.imbalance = 1000;  // this test is about the other triggers
  RebalanceHarness h(c);
  Rebalancer& rb = *h.engine.rebalancer();
  Rng rng(3);
  h.Send(RandomJob(rng, 0));  // at most 8 tasks: may or may not be big
  RebalanceStats s;
  REQUIRE(rb.RunNow(h.clock.Now(), "forced", 0.8, 0.2, &s).ok());
  CHECK(rb.Due(h.clock.Now() + 100) == nullptr);  // nothing changed since
  std::string tasks;
  for (int t = 0; t < 8; ++t)
    tasks += std::string(t ? "," : "") + R"({"task":")" + std::to_string(t) +
             R"(","replicas":["m1","m2"]})";
  h.Send(R"({"op":"job_submit","job":"big","tasks":[)" + tasks + "]}");
  const double after = h.clock.Now() + 10;  // past max_share's pause
  CHECK(std::string(rb.Due(after)) == "big_job");
  REQUIRE(rb.RunNow(after, "big_job", 0.8, 0.2, &s).ok());
  // A small job: the timer fires only once its interval has passed.
  h.Send(R"({"op":"job_submit","job":"small","tasks":[{"task":"x","replicas":["m4"]}]})");
  CHECK(rb.Due(after + 0.5) == nullptr);
  CHECK(std::string(rb.Due(after + 1.0)) == "timer");
  c.rebalance.enabled = false;
  rb.ApplyConfig(c.rebalance);
  CHECK(rb.Due(after + 1.0) == nullptr);
}

TEST_CASE("replay from the journal works with rebalances in between", "[rebalance]") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    std::string disk, unused;
    MemJournal journal(&disk);
    RebalanceHarness a;
    a.log.Attach(&journal);
    Rng rng(seed);
    for (int step = 0; step < 400; ++step) {
      RandomEvent(a, rng, step);
      if (rng.Below(20) == 0) REQUIRE(a.Send(R"({"op":"rebalance"})", kAdmin)["ok"] == true);
    }
    REQUIRE(a.log.Sync().ok());
    const Config cfg = OnJsq(Config{});
    DaemonClock clock;
    Engine engine(cfg, clock);
    Dispatcher b(engine, cfg);
    std::string out;
    for (int m = 0; m < kMachines; ++m)  // the harness added these before the journal
      b.HandleLine(R"({"op":"machine_up","machine":"m)" + std::to_string(m) + R"(","slots":2})",
                   Caller{}, &out);
    for (const std::string& record : ScanJournal(disk).records) {
      const Status s = ReplayRecord(record, b, clock);
      INFO(s.message());
      REQUIRE(s.ok());
    }
    clock.Release();
    // Same jobs, tasks and states; queue placement may differ until the next rebalance.
    for (const char* op : {R"({"op":"jobs"})", R"({"op":"status"})"}) {
      std::string x, y;
      a.dispatcher.HandleLine(op, Caller{}, &x);
      b.HandleLine(op, Caller{}, &y);
      json jx = json::parse(x), jy = json::parse(y);
      for (json* j : {&jx, &jy}) {
        for (const char* k : {"uptime_s", "daemon", "rates", "rebalance"}) j->erase(k);
        if (j->contains("jobs") && (*j)["jobs"].is_array())
          for (json& job : (*j)["jobs"]) job.erase("age_s");
      }
      CHECK(jx == jy);
    }
    CheckQueues(engine);
    RebalanceStats s;
    REQUIRE(engine.rebalancer()->RunNow(clock.Now(), "forced", 0.8, 0.2, &s).ok());
    CheckFlow(engine);
  }
}

}  // namespace
}  // namespace locsched

namespace locsched {
namespace {

// Late binding: four one-slot machines, a job of six tasks held by m0 alone.
struct PermitHarness : BasicHarness<FakeClock> {
  explicit PermitHarness(Config c) : BasicHarness(std::move(c)) {
    Machines(4);
    std::string tasks;
    for (int t = 0; t < 6; ++t)
      tasks += std::string(t ? "," : "") + R"({"task":")" + std::to_string(t) +
               R"(","replicas":["m0"]})";
    Ok(R"({"op":"job_submit","job":"big","tasks":[)" + tasks + "]}");
  }
};

Config LateBindingRebalance(bool enabled) {
  Config c;
  c.scheduler.policy = PolicyKind::kLateBinding;
  c.scheduler.learn_rates = false;
  c.scheduler.alpha = 1;
  c.scheduler.gamma = 0.5;  // a remote task costs two local ones
  c.rebalance.enabled = enabled;
  c.rebalance.big_job_tasks = 6;
  return c;
}

TEST_CASE("late binding: a forced rebalance gives the planned tasks remote permits",
          "[rebalance]") {
  PermitHarness h(LateBindingRebalance(false));
  REQUIRE(h.engine.rebalancer() == nullptr);
  REQUIRE(h.engine.permit_rebalancer() != nullptr);
  h.engine.RebalancePermits();  // automatic runs are off
  CHECK(h.engine.permit_rebalancer()->runs() == 0);
  // Three local on m0 and three remote, one each on m1-m3 (max load 3; the hand-worked
  // case of tests/algorithms/hta/remote_plan_test.cc).
  const json r = h.Ok(R"({"op":"rebalance"})", kAdmin);
  CHECK(r["trigger"] == "forced");
  CHECK(r["jobs"] == 1);
  CHECK(r["backlog"] == 6);
  CHECK(r["permits"] == 3);
  for (const char* m : {"m1", "m2", "m3"}) {
    const json hb =
        h.Ok(std::string(R"({"op":"heartbeat","machine":")") + m + R"(","free_slots":1})");
    REQUIRE(hb["assign"].size() == 1);
    CHECK(hb["assign"][0]["job"] == "big");
  }
  const json st = h.Ok(R"({"op":"status"})");
  CHECK(st["rebalance"]["runs"] == 1);
  CHECK(st["rebalance"]["permits"] == 3);
}

TEST_CASE("late binding: rebalance.enabled runs the plan when a large job arrives", "[rebalance]") {
  PermitHarness h(LateBindingRebalance(true));
  h.engine.RebalancePermits();
  CHECK(h.engine.permit_rebalancer()->runs() == 1);
  CHECK(h.engine.permit_rebalancer()->granted() == 3);
  h.engine.RebalancePermits();  // nothing new, and the timer's interval has not passed
  CHECK(h.engine.permit_rebalancer()->runs() == 1);
}

}  // namespace
}  // namespace locsched
