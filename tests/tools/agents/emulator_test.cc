// Tests tools/agents/emulator (the cluster emulator) without sockets: a fake scheduler
// behind the Transport decodes every request with the real protocol decoder,
// assigns local tasks first, and can be told to misbehave. Checks the workload
// rates, the bookkeeping, stopping rules and the detection of bad replies.
#include "tools/agents/emulator.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "io/wire/request.h"

namespace locsched {
namespace {

using json = nlohmann::json;

// A minimal scheduler: FIFO queue, local task first, reduces held until the maps end.
class FakeScheduler : public Transport {
 public:
  struct FakeTask {
    std::vector<std::string> replicas;
    bool reduce = false;
    bool released = false;  // in the queue (or beyond)
    bool done = false;
    double started = 0;
  };
  struct FakeJob {
    std::vector<FakeTask> tasks;
    std::vector<std::string> names;
    size_t maps_left = 0;
    size_t left = 0;
    double submitted = 0;
  };

  double now = 0;                // emulated time, set by the test before each Step
  std::string refuse_op;         // reply ok:false to this op
  bool assign_twice = false;     // hand the same task out twice
  bool lie_about_local = false;  // flip every "local"
  bool release_reduces_early = false;
  std::vector<double> local_durations, remote_durations, rack_durations;
  std::map<std::string, std::string> racks;  // by machine, from machine_up
  std::map<std::string, int> op_counts;
  std::map<std::string, uint64_t> slots;   // by machine
  std::map<std::string, double> finished;  // done jobs: submit-to-done time on the fake's clock
  std::map<std::string, double> weights;   // submitted jobs' weights
  std::vector<std::string> log;            // "task_done m3", "heartbeat m3", in order

  Status Exchange(const std::vector<std::string>& requests,
                  std::vector<std::string>* replies) override {
    replies->clear();
    for (const std::string& line : requests) replies->push_back(Handle(line));
    return Status::Ok();
  }

  uint64_t InSystem() const {
    uint64_t n = 0;
    for (const auto& [name, job] : jobs_) n += job.left;
    return n;
  }

 private:
  std::string Handle(const std::string& line) {
    Request r;
    const Status s = DecodeRequest(line, &r);
    INFO(line);
    REQUIRE(s.ok());  // every request the emulator sends is valid protocol
    const std::string op(SpecOf(r.op).name);
    ++op_counts[op];
    if (op == refuse_op)
      return R"({"ok":false,"error":{"code":"invalid_argument","field":"job","message":"job: no"}})";
    switch (r.op) {
      case Op::kMachineUp:
        slots[r.machine] = r.slots;
        if (!r.rack.empty()) racks[r.machine] = r.rack;
        return R"({"ok":true})";
      case Op::kJobSubmit:
        return Submit(r);
      case Op::kHeartbeat:
        return Heartbeat(r);
      case Op::kTaskDone:
        return Done(r);
      case Op::kStatus:
        return StatusReply();
      case Op::kJob:
        return JobReply(r.job);
      default:
        FAIL("unexpected op " << op);
        return "";
    }
  }

  std::string Submit(const Request& r) {
    REQUIRE(jobs_.count(r.job) == 0);
    weights[r.job] = r.weight;
    FakeJob& job = jobs_[r.job];
    for (const TaskRequest& t : r.tasks) {
      job.tasks.push_back({t.replicas, t.kind == TaskKind::kReduce});
      job.names.push_back(t.task);
      if (t.kind == TaskKind::kMap) ++job.maps_left;
    }
    job.left = job.tasks.size();
    job.submitted = now;
    for (size_t i = 0; i < job.tasks.size(); ++i)
      if (!job.tasks[i].reduce || release_reduces_early) Release(r.job, i);
    return R"({"ok":true,"tasks":)" + std::to_string(r.tasks.size()) + "}";
  }

  void Release(const std::string& job, size_t i) {
    jobs_[job].tasks[i].released = true;
    queue_.push_back({job, i});
  }

  std::string Heartbeat(const Request& r) {
    log.push_back("heartbeat " + r.machine);
    REQUIRE(slots.count(r.machine) == 1);
    REQUIRE(r.free_slots + running_[r.machine] <= slots[r.machine]);  // never over-offers
    json assign = json::array();
    for (uint64_t k = 0; k < r.free_slots && !queue_.empty(); ++k) {
      auto it = queue_.begin();
      for (auto j = queue_.begin(); j != queue_.end(); ++j)
        if (IsLocal(*j, r.machine)) {
          it = j;
          break;
        }
      const bool local = IsLocal(*it, r.machine);
      FakeTask& t = jobs_[it->first].tasks[it->second];
      t.started = now;
      assign.push_back({{"job", it->first},
                        {"task", jobs_[it->first].names[it->second]},
                        {"local", local != lie_about_local}});
      if (!assign_twice) queue_.erase(it);
      ++running_[r.machine];
    }
    return json{{"ok", true}, {"assign", assign}}.dump();
  }

  // True if a replica holder of t shares `machine`'s rack (machines carry racks).
  bool InRack(const FakeTask& t, const std::string& machine) const {
    const auto rack = racks.find(machine);
    if (rack == racks.end()) return false;
    for (const std::string& h : t.replicas)
      if (racks.count(h) == 1 && racks.at(h) == rack->second) return true;
    return false;
  }

  bool IsLocal(const std::pair<std::string, size_t>& q, const std::string& machine) {
    const auto& reps = jobs_[q.first].tasks[q.second].replicas;
    return std::find(reps.begin(), reps.end(), machine) != reps.end();
  }

  std::string Done(const Request& r) {
    log.push_back("task_done " + r.machine);
    FakeJob& job = jobs_.at(r.job);
    const auto it = std::find(job.names.begin(), job.names.end(), r.task);
    REQUIRE(it != job.names.end());
    FakeTask& t = job.tasks[static_cast<size_t>(it - job.names.begin())];
    REQUIRE_FALSE(t.done);
    t.done = true;
    --running_[r.machine];
    const bool local =
        std::find(t.replicas.begin(), t.replicas.end(), r.machine) != t.replicas.end();
    (local                  ? local_durations
     : InRack(t, r.machine) ? rack_durations
                            : remote_durations)
        .push_back(now - t.started);
    if (!t.reduce && --job.maps_left == 0 && !release_reduces_early)
      for (size_t i = 0; i < job.tasks.size(); ++i)
        if (job.tasks[i].reduce) Release(r.job, i);
    const bool job_done = --job.left == 0;
    if (job_done) {
      finished[r.job] = now - job.submitted;
      jobs_.erase(r.job);
    }
    return std::string(R"({"ok":true,"job_done":)") + (job_done ? "true" : "false") + "}";
  }

  std::string StatusReply() {
    uint64_t queued = queue_.size(), running = 0;
    for (const auto& [m, n] : running_) running += n;
    return json{
        {"ok", true},
        {"tasks",
         {{"queued", queued}, {"running", running}, {"blocked", InSystem() - queued - running}}},
        {"jobs", {{"live", jobs_.size()}}}}
        .dump();
  }

  // The daemon's `job` reply for a finished job, or not_found.
  std::string JobReply(const std::string& name) {
    const auto it = finished.find(name);
    if (it == finished.end())
      return R"({"ok":false,"error":{"code":"not_found","field":"job","message":"job: no"}})";
    return json{
        {"ok", true}, {"job", name}, {"state", "done"}, {"tasks", 1}, {"seconds", it->second}}
        .dump();
  }

  std::map<std::string, FakeJob> jobs_;
  std::deque<std::pair<std::string, size_t>> queue_;
  std::map<std::string, uint64_t> running_;
};

AgentsParams Small() {
  AgentsParams p;
  p.machines = 20;
  p.slots = 2;
  p.load = 10;
  p.job_size_mean = 5;
  p.duration = 100;
  p.seed = 3;
  return p;
}

// Steps the emulator every `dt` emulated seconds until it is finished.
void RunToEnd(Emulator& emu, FakeScheduler& fake, double dt = 0.01) {
  REQUIRE(emu.Start().ok());
  for (double t = 0; !emu.Finished(t); t += dt) {
    fake.now = t;
    const Status s = emu.Step(t);
    INFO(s.message());
    REQUIRE(s.ok());
  }
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / v.size();
}

TEST_CASE("Start registers every machine with its slots", "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.prefix = "x-";
  Emulator emu(p, &fake);
  REQUIRE(emu.Start().ok());
  REQUIRE(fake.slots.size() == 20);
  CHECK(fake.slots.at("x-m0") == 2);
  CHECK(fake.slots.at("x-m19") == 2);
}

TEST_CASE("A run completes tasks and agrees with the scheduler's counts", "[agents]") {
  FakeScheduler fake;
  Emulator emu(Small(), &fake);
  RunToEnd(emu, fake);
  const AgentsStats& s = emu.stats();
  CHECK(s.anomalies == 0);
  CHECK(s.tasks_done > 500);
  CHECK(s.jobs_done > 100);
  CHECK(s.Locality() > 0.2);  // the fake is greedy: idle machines take remote work
  CHECK(s.MeanJobDelay() > 0);
  CHECK(fake.InSystem() == s.tasks_submitted - s.tasks_done);
  DaemonCounts d;
  REQUIRE(emu.QueryStatus(&d).ok());
  CHECK(d.InSystem() == s.tasks_submitted - s.tasks_done);
  CHECK(d.running == emu.running());
  CHECK(d.queued + d.blocked == emu.unassigned());
}

TEST_CASE("Arrivals and job sizes follow --load and --job-size-mean", "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.machines = 100;
  p.slots = 10;  // far above the load: nothing waits long
  p.load = 100;
  p.job_size_mean = 10;
  p.duration = 200;
  Emulator emu(p, &fake);
  RunToEnd(emu, fake, 0.05);
  const AgentsStats& s = emu.stats();
  CHECK(s.tasks_submitted == Approx(20000).epsilon(0.06));
  CHECK(double(s.tasks_submitted) / s.jobs_submitted == Approx(10).epsilon(0.08));
}

TEST_CASE("Local tasks last Exp(alpha), remote ones Exp(gamma)", "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.alpha = 1.0;
  p.gamma = 0.25;
  p.data_fraction = 0.5;  // many tasks end up remote
  p.duration = 400;
  p.load = 8;
  Emulator emu(p, &fake);
  RunToEnd(emu, fake);
  REQUIRE(fake.local_durations.size() > 1000);
  REQUIRE(fake.remote_durations.size() > 300);
  // Completions are seen on the 0.01 s step grid: half a step late on average.
  CHECK(Mean(fake.local_durations) == Approx(1.0 + 0.005).epsilon(0.08));
  CHECK(Mean(fake.remote_durations) == Approx(4.0 + 0.005).epsilon(0.12));
  CHECK(emu.stats().anomalies == 0);
}

TEST_CASE("With racks, machines join their rack and rack-local tasks last Exp(beta)",
          "[agents][racks]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.alpha = 1.0;
  p.gamma = 0.25;         // beta defaults to sqrt(1 * 0.25) = 0.5
  p.racks = 2;            // m0-m9 in r0, m10-m19 in r1
  p.data_fraction = 0.5;  // every replica in r0: r0's other machines run rack-local
  p.duration = 400;
  p.load = 8;
  Emulator emu(p, &fake);
  RunToEnd(emu, fake);
  CHECK(fake.racks.at("m0") == "r0");
  CHECK(fake.racks.at("m9") == "r0");
  CHECK(fake.racks.at("m10") == "r1");
  REQUIRE(fake.rack_durations.size() > 300);
  REQUIRE(fake.remote_durations.size() > 300);
  // 5 standard errors of a mean of n Exp draws (sd = mean), plus the half-step grid lag.
  CHECK(std::abs(Mean(fake.rack_durations) - 2.005) <=
        5 * 2 / std::sqrt(double(fake.rack_durations.size())));
  CHECK(std::abs(Mean(fake.remote_durations) - 4.005) <=
        5 * 4 / std::sqrt(double(fake.remote_durations.size())));
  CHECK(emu.stats().anomalies == 0);
  p.beta = 2;  // faster than local
  CHECK(ValidateAgentsParams(p).find("beta") == 0);
  p.beta = 0;
  p.racks = 21;
  CHECK(ValidateAgentsParams(p).find("racks") == 0);
}

TEST_CASE("Reduces run only after their job's maps", "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.reduces = 2;
  p.drain = true;
  Emulator emu(p, &fake);
  RunToEnd(emu, fake);
  CHECK(emu.stats().anomalies == 0);
  CHECK(emu.stats().tasks_done == emu.stats().tasks_submitted);
  CHECK(fake.op_counts["job_submit"] > 0);
}

TEST_CASE("Draining runs until every task is done; a task count stops early", "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.drain = true;
  Emulator drained(p, &fake);
  RunToEnd(drained, fake);
  CHECK(drained.stats().tasks_done == drained.stats().tasks_submitted);
  CHECK(drained.now() >= p.duration);
  CHECK(fake.InSystem() == 0);

  FakeScheduler fake2;
  p.drain = false;
  p.max_tasks = 50;
  Emulator capped(p, &fake2);
  RunToEnd(capped, fake2);
  CHECK(capped.stats().tasks_done == 50);
  CHECK(capped.now() < p.duration);
}

TEST_CASE("Tasks of other clients' jobs run and are reported, not flagged", "[agents]") {
  FakeScheduler fake;
  std::vector<std::string> replies;
  REQUIRE(fake.Exchange(
                  {R"({"op":"job_submit","job":"other","tasks":[)"
                   R"({"task":"a","replicas":["m0"]},{"task":"b","replicas":["m1"]}]})",
                   // A name like the emulator's own, from an earlier run of it.
                   R"({"op":"job_submit","job":"j99","tasks":[{"task":"t0","replicas":["m2"]}]})"},
                  &replies)
              .ok());
  AgentsParams p = Small();
  p.drain = true;
  Emulator emu(p, &fake);
  RunToEnd(emu, fake);
  CHECK(emu.stats().anomalies == 0);
  CHECK(emu.stats().foreign_assigned == 3);
  CHECK(emu.stats().foreign_done == 3);
  CHECK(fake.InSystem() == 0);
}

// A job_submit line for `job` with `maps` maps on replicas m<i % 16>, as a tailer would send.
std::string TailedJob(const std::string& job, int maps) {
  std::string line = R"({"op":"job_submit","job":")" + job + R"(","tasks":[)";
  for (int i = 0; i < maps; ++i)
    line += std::string(i ? "," : "") + R"({"task":"map)" + std::to_string(i) +
            R"(","replicas":["m)" + std::to_string(i % 16) + R"("]})";
  return line + "]}";
}

TEST_CASE("With submit_jobs off, another client's jobs run and are timed by its clock",
          "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.submit_jobs = false;
  p.load = 0;  // unused without jobs of its own
  p.drain = true;
  p.duration = 30;
  p.time_scale = 2;  // the fake's clock runs at half the emulated speed
  REQUIRE(ValidateAgentsParams(p).empty());
  Emulator emu(p, &fake);
  REQUIRE(emu.Start().ok());
  std::vector<std::string> replies;
  int submitted = 0;
  double t = 0;
  for (; !emu.Finished(t); t += 0.01) {
    fake.now = t / p.time_scale;
    if (t < 5) CHECK(fake.op_counts["heartbeat"] == 0);  // nothing queued: no heartbeats
    // A job of 1 to 6 maps every 0.5 s from t = 5 to t = 25.
    if (t >= 5 + 0.5 * submitted && t < 25) {
      REQUIRE(fake.Exchange({TailedJob("tailed" + std::to_string(submitted), 1 + submitted % 6)},
                            &replies)
                  .ok());
      ++submitted;
    }
    const Status s = emu.Step(t);
    INFO(s.message());
    REQUIRE(s.ok());
  }
  const AgentsStats& st = emu.stats();
  CHECK(t >= p.duration);
  CHECK(fake.op_counts["job_submit"] == submitted);  // the tailer's only, none of its own
  CHECK(fake.op_counts["status"] > 0);
  CHECK(st.anomalies == 0);
  CHECK(st.jobs_submitted == 0);
  CHECK(fake.InSystem() == 0);
  REQUIRE(st.foreign_jobs_done == static_cast<uint64_t>(submitted));
  CHECK(st.foreign_jobs_unmeasured == 0);
  CHECK(st.AllDone() == st.foreign_done);
  CHECK(st.AllLocality() > 0);
  // Each job's time is the fake scheduler's submit-to-done time, scaled to emulated seconds.
  std::vector<double> expected;
  for (const auto& [name, seconds] : fake.finished) expected.push_back(seconds * p.time_scale);
  std::vector<double> got = st.foreign_job_delays;
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]));
  CHECK(Quantile(got, 0.95) >= MeanOf(got));
}

TEST_CASE("Regression: a batch reported every completion before any freed machine asked",
          "[agents]") {
  // Two machines each run a task of a tailed job that keeps work queued; one Step late
  // enough that both tasks are done must pair each report with its machine's heartbeat.
  FakeScheduler fake;
  AgentsParams p = Small();
  p.machines = 2;
  p.slots = 1;
  p.submit_jobs = false;
  p.load = 0;
  p.drain = true;
  p.heartbeat = 1;
  p.alpha = p.gamma = 0.001;  // tasks last about 1,000 s
  Emulator emu(p, &fake);
  REQUIRE(emu.Start().ok());
  std::vector<std::string> replies;
  REQUIRE(fake.Exchange({TailedJob("tailed", 6)}, &replies).ok());
  for (double t = 0; t < 2; t += 0.01) {  // both machines take a task
    fake.now = t;
    REQUIRE(emu.Step(t).ok());
  }
  REQUIRE(fake.op_counts["heartbeat"] >= 2);
  REQUIRE(emu.stats().foreign_assigned == 2);
  fake.log.clear();
  fake.now = 1e6;
  REQUIRE(emu.Step(1e6).ok());  // both tasks ended long ago
  CHECK(fake.log.size() == 4);
  REQUIRE(fake.log.size() >= 4);
  for (size_t i = 0; i < 4; i += 2) {
    const std::string machine = fake.log[i].substr(fake.log[i].find(' '));
    CHECK(fake.log[i] == "task_done" + machine);
    CHECK(fake.log[i + 1] == "heartbeat" + machine);
  }
  CHECK(fake.log[0] != fake.log[2]);
}

TEST_CASE("Regression: a full or idle machine was silent; each heartbeats every keepalive",
          "[agents]") {
  // Two one-slot machines run tasks that outlast the run, a third has nothing to do and
  // nothing waits: none of them would ask for work, yet each must say it is alive.
  FakeScheduler fake;
  AgentsParams p = Small();
  p.machines = 3;
  p.slots = 1;
  p.submit_jobs = false;
  p.drain = false;
  p.duration = 1e9;
  p.heartbeat = 0.25;
  p.keepalive = 2;
  p.time_scale = 1.5;        // the keepalive is 3 emulated seconds
  p.alpha = p.gamma = 1e-6;  // the tasks never end here
  Emulator emu(p, &fake);
  REQUIRE(emu.Start().ok());
  std::vector<std::string> replies;
  REQUIRE(fake.Exchange({TailedJob("tailed", 2)}, &replies).ok());
  std::map<std::string, double> last{{"m0", 0}, {"m1", 0}, {"m2", 0}};
  std::map<std::string, double> longest;
  size_t seen = 0;
  for (double t = 0; t < 30; t += 0.01) {
    fake.now = t;
    REQUIRE(emu.Step(t).ok());
    for (; seen < fake.log.size(); ++seen) {
      if (fake.log[seen].rfind("heartbeat ", 0) != 0) continue;
      const std::string m = fake.log[seen].substr(10);
      longest[m] = std::max(longest[m], t - last[m]);
      last[m] = t;
    }
  }
  CHECK(emu.stats().foreign_assigned == 2);
  for (const auto& [m, heard] : last) {
    INFO(m);
    CHECK(std::max(longest[m], 30 - heard) <= 3.02);
  }
  p = Small();
  p.keepalive = -1;
  CHECK(ValidateAgentsParams(p).rfind("keepalive:", 0) == 0);
}

TEST_CASE("The same seed gives the same run", "[agents]") {
  auto run = [](uint64_t seed) {
    FakeScheduler fake;
    AgentsParams p = Small();
    p.seed = seed;
    Emulator emu(p, &fake);
    RunToEnd(emu, fake);
    const AgentsStats& s = emu.stats();
    return std::vector<double>{double(s.tasks_submitted), double(s.tasks_done), s.job_delay_sum,
                               s.Locality()};
  };
  CHECK(run(7) == run(7));
  CHECK(run(7) != run(8));
}

TEST_CASE("Weights are uniform on 1..weight_max and weigh the mean job delay", "[agents]") {
  FakeScheduler fake;
  AgentsParams p = Small();
  p.weight_max = 4;
  Emulator emu(p, &fake);
  RunToEnd(emu, fake);
  std::map<double, int> counts;
  for (const auto& [job, w] : fake.weights) ++counts[w];
  CHECK(counts.size() == 4);  // every weight 1..4 occurs in a few hundred jobs, no other
  CHECK(counts.begin()->first == 1);
  CHECK(counts.rbegin()->first == 4);
  const AgentsStats& s = emu.stats();
  CHECK(s.weight_sum > s.jobs_done);  // not all weights are 1
  CHECK(s.WeightedMeanJobDelay() > 0);
  CHECK(s.WeightedMeanJobDelay() != s.MeanJobDelay());
}

TEST_CASE("The workload does not depend on the scheduler's timing", "[agents]") {
  // A slower heartbeat changes when tasks start, hence completions (and, before each
  // task's duration was drawn at submission, the arrivals); the jobs that arrive and
  // their weights must stay the same.
  auto run = [](double heartbeat) {
    FakeScheduler fake;
    AgentsParams p = Small();
    p.weight_max = 10;
    p.heartbeat = heartbeat;
    Emulator emu(p, &fake);
    RunToEnd(emu, fake);
    return std::tuple(emu.stats().tasks_submitted, fake.weights, emu.stats().job_delay_sum);
  };
  const auto fast = run(0.25), slow = run(2);
  CHECK(std::get<0>(fast) == std::get<0>(slow));
  CHECK(std::get<1>(fast) == std::get<1>(slow));
  CHECK(std::get<2>(fast) != std::get<2>(slow));  // the timing did change the run
}

TEST_CASE("A refused request stops the run, naming the request and the reply", "[agents]") {
  FakeScheduler fake;
  fake.refuse_op = "job_submit";
  Emulator emu(Small(), &fake);
  REQUIRE(emu.Start().ok());
  Status s;
  for (double t = 0; t < 10 && s.ok(); t += 0.1) s = emu.Step(t);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains(R"({"op":"job_submit","job":"j1")"));
  CHECK_THAT(s.message(), Catch::Contains("job: no"));
}

TEST_CASE("Replies that contradict the bookkeeping are anomalies", "[agents]") {
  auto anomalies = [](void (*misbehave)(FakeScheduler&), const char* expect) {
    FakeScheduler fake;
    misbehave(fake);
    AgentsParams p = Small();
    p.duration = 20;
    p.reduces = 1;
    Emulator emu(p, &fake);
    RunToEnd(emu, fake);
    REQUIRE_FALSE(emu.anomaly_log().empty());
    CHECK_THAT(emu.anomaly_log().front(), Catch::Contains(expect));
    CHECK_THAT(emu.anomaly_log().front(), Catch::Contains("request: {\"op\":\"heartbeat\""));
    return emu.stats().anomalies;
  };
  CHECK(anomalies([](FakeScheduler& f) { f.lie_about_local = true; }, "\"local\" disagrees") > 0);
  CHECK(anomalies([](FakeScheduler& f) { f.release_reduces_early = true; }, "reduce") > 0);
  FakeScheduler twice;
  twice.assign_twice = true;
  AgentsParams p = Small();
  p.duration = 5;
  p.slots = 1;
  p.load = 1;
  Emulator emu(p, &twice);
  REQUIRE(emu.Start().ok());
  for (double t = 0; t < 5 && emu.stats().anomalies == 0; t += 0.01) {
    twice.now = t;
    emu.Step(t);
  }
  REQUIRE(emu.stats().anomalies > 0);
  CHECK_THAT(emu.anomaly_log().front(), Catch::Contains("unknown, running or done"));
}

TEST_CASE("Bad parameters are named by their flag", "[agents]") {
  AgentsParams p = Small();
  CHECK(ValidateAgentsParams(p).empty());
  p.data_fraction = 0.1;  // 2 data machines for 3 replicas
  CHECK(ValidateAgentsParams(p).rfind("data-machines:", 0) == 0);
  p = Small();
  p.gamma = 0;
  CHECK(ValidateAgentsParams(p).rfind("gamma:", 0) == 0);
  p = Small();
  p.machines = 1000;
  p.slots = 1;
  CHECK(AgentsCapacity(p) == Approx(680));  // the paper's bound
}

}  // namespace
}  // namespace locsched
