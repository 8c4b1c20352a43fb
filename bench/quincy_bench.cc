// quincy_bench: the time of one Quincy decision (algorithms/quincy/quincy_flow.h and the
// core's `quincy` policy) at 1,000 and 10,000 machines (2 slots each, 40 per rack), as
// Firmament reports solver time per scheduling round. Measured:
//  - FullNetwork: one solve of the whole network (build + solve): a backlog of one queued
//    task per machine (3 random replicas, waits uniform in 0-10 s), 10% of the machines
//    with a free slot; NetworkSimplex against CostScaling.
//  - PolicyDecision: the policy through the Scheduler in steady state, every slot busy
//    and a backlog of two tasks per machine: a random running task finishes, the clock
//    advances 10 ms, its machine takes a task (the pruned re-solve plus the pick) and a
//    fresh task arrives. Counter: tasks in the pruned network.
// Run from a Release build (docs/benchmarks.md).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "algorithms/core/quincy_policy.h"
#include "algorithms/core/scheduler.h"
#include "algorithms/quincy/quincy_flow.h"
#include "base/rng.h"

namespace locsched {
namespace {

constexpr int kPerRack = 40;

std::vector<int> Replicas(Rng& rng, int machines) {
  std::vector<int> r;
  while (r.size() < 3) {
    const int m = static_cast<int>(rng.Below(static_cast<uint32_t>(machines)));
    if (std::find(r.begin(), r.end(), m) == r.end()) r.push_back(m);
  }
  return r;
}

QuincyProblem FullProblem(int machines) {
  Rng rng(7);
  QuincyProblem p;
  for (int m = 0; m < machines; ++m) {
    p.rack.push_back(m / kPerRack);
    p.free_slots.push_back(rng.Below(10) == 0 ? 1 : 0);
  }
  p.rack_cost = 1250;
  p.remote_cost = 3750;
  p.jobs = machines / 10;
  for (int t = 0; t < machines; ++t) {
    QuincyTask& qt = p.tasks.emplace_back();
    qt.job = static_cast<int>(rng.Below(static_cast<uint32_t>(p.jobs)));
    qt.holders = Replicas(rng, machines);
    qt.unscheduled = 1 + rng.Below(10000);
  }
  return p;
}

void BM_FullNetwork(benchmark::State& state) {
  const QuincyProblem p = FullProblem(static_cast<int>(state.range(0)));
  const auto alg =
      state.range(1) == 0 ? QuincyAlgorithm::kNetworkSimplex : QuincyAlgorithm::kCostScaling;
  int64_t cost = 0;
  for (auto _ : state) benchmark::DoNotOptimize(cost = SolveQuincyFlow(p, alg).cost);
  state.counters["cost"] = static_cast<double>(cost);
  state.counters["tasks"] = static_cast<double>(p.tasks.size());
}
BENCHMARK(BM_FullNetwork)
    ->ArgNames({"machines", "cost_scaling"})
    ->Args({1000, 0})
    ->Args({1000, 1})
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMillisecond);

// A cluster with every slot busy and `backlog` tasks per machine queued.
struct Steady {
  Steady(int machines, int backlog) : rng(11) {
    PolicyParams p;
    p.kind = PolicyKind::kQuincy;
    s = std::make_unique<Scheduler>(p);
    for (int m = 0; m < machines; ++m) {
      Machine machine;
      machine.slots = 2;
      machine.rack = static_cast<uint32_t>(m / kPerRack);
      s->AddMachine(machine);
    }
    for (int i = 0; i < machines * (2 + backlog); ++i) Submit();
    for (MachineId m = 0; m < static_cast<MachineId>(machines); ++m)
      while (const auto a = s->Assign(m)) running.push_back(a->task);
  }
  void Submit() {
    const std::vector<int> r = Replicas(rng, static_cast<int>(s->cluster().num_machines()));
    std::vector<MachineId> replicas(r.begin(), r.end());
    TaskSpec spec;
    spec.replicas = replicas;
    s->SubmitJob(1, std::span<const TaskSpec>(&spec, 1));
  }
  Rng rng;
  std::unique_ptr<Scheduler> s;
  std::vector<TaskId> running;
  double now = 0;
};

void BM_PolicyDecision(benchmark::State& state) {
  Steady st(static_cast<int>(state.range(0)), 2);
  double network = 0;
  for (auto _ : state) {
    const size_t i = st.rng.Below(static_cast<uint32_t>(st.running.size()));
    const MachineId m = st.s->cluster().task(st.running[i]).machine;
    st.s->Finish(st.running[i]);
    st.running[i] = st.running.back();
    st.running.pop_back();
    st.now += 0.01;
    st.s->SetNow(st.now);
    st.Submit();
    if (const auto a = st.s->Assign(m)) st.running.push_back(a->task);
    network +=
        static_cast<double>(dynamic_cast<const QuincyPolicy&>(st.s->policy()).last_network_tasks());
  }
  state.counters["network_tasks"] = network / static_cast<double>(state.iterations());
  state.counters["queued"] = static_cast<double>(st.s->queued());
}
BENCHMARK(BM_PolicyDecision)
    ->ArgName("machines")
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace locsched

BENCHMARK_MAIN();
