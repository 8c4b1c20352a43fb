// Tests the trace simulator's centralized mode (algorithms/sim/list_trace_sim.h) with each
// list policy: no task is lost or started twice, runs repeat per seed, no run goes below
// its JCT bound, and a hand-worked trace gives the JCTs worked out below.
#include "algorithms/sim/list_trace_sim.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "algorithms/lp/online_synchpack.h"
#include "algorithms/lp/packing_baselines.h"
#include "algorithms/sim/trace_shape.h"
#include "base/rng.h"

namespace locsched {
namespace {

// Wraps a policy and checks the engine's side: a task is started only once it is ready,
// and at most once.
class Recorder : public ListPolicy {
 public:
  Recorder(ListPolicy& inner, size_t tasks) : inner_(inner), ready_(tasks, 0), picks_(tasks, 0) {}
  void OnReady(size_t t, double now) override {
    ++ready_[t];
    inner_.OnReady(t, now);
  }
  long Pick(uint32_t m, double now, double free) override {
    const long t = inner_.Pick(m, now, free);
    if (t >= 0) {
      CHECK(ready_[static_cast<size_t>(t)] == 1);
      ++picks_[static_cast<size_t>(t)];
    }
    return t;
  }
  double NextWake(double now) override { return inner_.NextWake(now); }
  const std::vector<int>& picks() const { return picks_; }

 private:
  ListPolicy& inner_;
  std::vector<int> ready_, picks_;
};

// `jobs` jobs of 1-12 tasks (some reduces) over 20 machines, submitted over ~`span` s.
TraceWorkload RandomWorkload(uint64_t seed, uint32_t jobs, double span) {
  Rng rng(seed);
  TraceWorkload w;
  double at = 0;
  for (uint32_t j = 0; j < jobs; ++j) {
    at += span / jobs * 2 * rng.Unit();
    w.AddJob(at);
    const uint32_t tasks = 1 + rng.Below(12);
    for (uint32_t k = 0; k < tasks; ++k) {
      std::vector<MachineId> replicas;
      for (uint32_t r = 0; r < 3; ++r) {
        const MachineId m = rng.Below(20);
        if (std::find(replicas.begin(), replicas.end(), m) == replicas.end()) replicas.push_back(m);
      }
      w.AddTask(k > 0 && rng.Below(4) == 0 ? TaskKind::kReduce : TaskKind::kMap, replicas);
    }
  }
  return w;
}

std::unique_ptr<ListPolicy> MakePolicy(const std::string& name, const LpInstance& model) {
  if (name == "tetris") return MakeTetrisPolicy(model);
  if (name == "jsq-mw") return MakeJsqMaxWeightPolicy(model);
  OnlineSynchPackOptions o;
  o.first_interval = 20;
  return std::make_unique<OnlineSynchPack>(model, o);
}

TEST_CASE("list trace sim: every task runs once, and runs repeat per seed", "[list_trace_sim]") {
  TraceClusterModel c;
  c.machines = 20;
  c.slots_per_machine = 2;
  c.local_mean_s = 10;
  for (const std::string name : {"synchpack", "tetris", "jsq-mw"}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const TraceWorkload w = RandomWorkload(seed, 40, 200);
      std::vector<double> weights;
      for (size_t j = 0; j < w.jobs.size(); ++j) weights.push_back(1 + static_cast<double>(j % 4));
      const LpInstance model = TraceListModel(w, c, weights);
      REQUIRE(ValidateInstance(model).ok());
      std::vector<double> first_jct;
      for (int run = 0; run < 2; ++run) {
        const std::unique_ptr<ListPolicy> inner = MakePolicy(name, model);
        Recorder policy(*inner, w.num_tasks());
        TraceSimResult r;
        INFO(name << " seed " << seed);
        REQUIRE(SimulateTraceList(w, c, seed, policy, &r).ok());
        REQUIRE(r.tasks_done == w.num_tasks());
        REQUIRE(r.jobs_done == w.jobs.size());
        for (const int n : policy.picks()) REQUIRE(n == 1);
        if (run == 0) first_jct = r.jct_s;
        REQUIRE(r.jct_s == first_jct);
      }
    }
  }
}

TEST_CASE("list trace sim: no list policy's run goes below its JCT bound", "[list_trace_sim]") {
  // Uniform placement and every replica on 30% of the machines; drawn and fixed works.
  TraceClusterModel c;
  c.machines = 20;
  c.slots_per_machine = 2;
  c.local_mean_s = 10;
  for (const std::string name : {"synchpack", "tetris", "jsq-mw"}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      for (const double share : {1.0, 0.3}) {
        TraceWorkload w = RandomWorkload(seed, 40, 150);
        if (share < 1) ConcentrateReplicas(w, c.machines, share);
        for (size_t j = 0; j < w.jobs.size(); ++j)
          w.weights.push_back(1 + static_cast<double>(j % 3));
        c.fixed_durations = seed == 2;
        const LpInstance model = TraceListModel(w, c, w.weights);  // the policy keeps it
        const std::unique_ptr<ListPolicy> policy = MakePolicy(name, model);
        TraceSimResult r;
        INFO(name << " seed " << seed << " hot share " << share);
        REQUIRE(SimulateTraceList(w, c, seed, *policy, &r).ok());
        REQUIRE(r.lower_bound_mean_jct_s > 0);
        CHECK(r.mean_jct_s >= r.lower_bound_mean_jct_s * (1 - 1e-9));
        CHECK(r.weighted_jct_s >= r.lower_bound_weighted_jct_s * (1 - 1e-9));
      }
    }
  }
}

TEST_CASE("list trace sim: hand-worked trace", "[list_trace_sim]") {
  // Two one-slot machines; at 0 s two one-task jobs, both held by machine 0; a task takes
  // 10 s there and 40 s on machine 1. Online SynchPack runs one on machine 0 and keeps the
  // other there (a queue of one is shorter than 1 x (4 - 1) tasks): JCTs 10 and 20 s.
  // Tetris and JSQ+MaxWeight run the second at once on machine 1: 10 and 40 s.
  TraceWorkload w;
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  w.AddJob(0);
  w.AddTask(TaskKind::kMap, {0});
  TraceClusterModel c;
  c.machines = 2;
  c.local_mean_s = 10;
  c.remote_slowdown = 4;
  c.fixed_durations = true;
  const LpInstance model = TraceListModel(w, c, {});
  for (const std::string name : {"synchpack", "tetris", "jsq-mw"}) {
    const std::unique_ptr<ListPolicy> policy = MakePolicy(name, model);
    TraceSimResult r;
    REQUIRE(SimulateTraceList(w, c, 1, *policy, &r).ok());
    INFO(name);
    REQUIRE(r.jobs_done == 2);
    const double worse = name == "synchpack" ? 20 : 40;
    REQUIRE(r.mean_jct_s == Approx((10 + worse) / 2));
    REQUIRE(r.locality == Approx(name == "synchpack" ? 1.0 : 0.5));
  }
}

}  // namespace
}  // namespace locsched
