// hta_bench: Algorithm 2 (algorithms/hta/hta_flow.h) at 12,500
// machines, 100,000 queued tasks with 3 replicas each, and 1% churn (1,000 tasks
// leave, 1,000 arrive) between rebalances. Measured in the same run:
//  - Scratch: a fresh MaxCover over the backlog and the full Algorithm 2 (tau = 1, 2, ...).
//  - Incremental: apply the churn to the kept flow, then Rebalance (augment at the
//    last best tau, bal-assign; always_walk:1 also probes the neighbouring taus,
//    always_walk:0 only when the load got worse than the last run's). Churn is timed.
//  - Max-cover only: Augment after churn at a fixed tau, against LEMON's Preflow
//    from scratch on the same graph (the tests' reference).
// Counters report each run's max load so quality can be compared, not just time.
#include <benchmark/benchmark.h>

#include <vector>

#include "algorithms/hta/hta_flow.h"
#include "algorithms/hta/max_cover.h"
#include "algorithms/hta/preflow_cover.h"
#include "base/rng.h"

namespace locsched {
namespace {

constexpr int kMachines = 12500;
constexpr int kTasks = 100000;
constexpr int kChurn = kTasks / 100;
const HtaCosts kCosts{1, {3}};

std::vector<int> Replicas(Rng& rng) {
  std::vector<int> r;
  while (r.size() < 3) {
    const int s = static_cast<int>(rng.Below(kMachines));
    if (r.empty() || (s != r[0] && (r.size() < 2 || s != r[1]))) r.push_back(s);
  }
  return r;
}

// The backlog as a flow, plus the live ids so churn can pick victims.
struct Backlog {
  explicit Backlog(uint64_t seed) : rng(seed), cover(kMachines, 1) {
    for (int t = 0; t < kTasks; ++t) live.push_back(cover.AddTask(Replicas(rng)));
  }
  void Churn() {
    for (int i = 0; i < kChurn; ++i) {
      const size_t k = rng.Below(static_cast<uint32_t>(live.size()));
      cover.RemoveTask(live[k]);
      live[k] = cover.AddTask(Replicas(rng));
    }
  }
  MaxCover Fresh(int tau) const {
    MaxCover fresh(kMachines, tau);
    for (int t : live) fresh.AddTask(cover.replicas(t));
    return fresh;
  }
  Rng rng;
  MaxCover cover;
  std::vector<int> live;
};

void BM_Algorithm2FromScratch(benchmark::State& state) {
  Backlog backlog(1);
  HtaSolution s;
  for (auto _ : state) {
    state.PauseTiming();  // the same churn as the incremental run, untimed here
    backlog.Churn();
    state.ResumeTiming();
    MaxCover fresh = backlog.Fresh(1);
    s = RunAlgorithm2(fresh, kCosts);
    benchmark::DoNotOptimize(s.max_load);
  }
  state.counters["max_load"] = s.max_load;
  state.counters["tau"] = s.tau;
  state.counters["iterations"] = s.iterations;
}

void BM_RebalanceAfterChurn(benchmark::State& state) {
  Backlog backlog(1);
  const HtaSolution first = RunAlgorithm2(backlog.cover, kCosts);
  backlog.cover.SetTau(first.tau);
  backlog.cover.Augment();
  HtaSolution s = first;
  const bool walk = state.range(0) != 0;
  for (auto _ : state) {
    backlog.Churn();
    s = Rebalance(backlog.cover, kCosts, walk ? 0 : s.max_load);
    benchmark::DoNotOptimize(s.max_load);
  }
  state.counters["max_load"] = s.max_load;
  state.counters["tau"] = s.tau;
  state.counters["iterations"] = s.iterations;
  // The quality reference: full Algorithm 2 on the final backlog.
  MaxCover fresh = backlog.Fresh(1);
  state.counters["scratch_max_load"] = RunAlgorithm2(fresh, kCosts).max_load;
}

void BM_MaxCoverAugmentAfterChurn(benchmark::State& state) {
  const int tau = static_cast<int>(state.range(0));
  Backlog backlog(2);
  backlog.cover.SetTau(tau);
  backlog.cover.Augment();
  const uint64_t phases = backlog.cover.phases();
  for (auto _ : state) {
    backlog.Churn();
    benchmark::DoNotOptimize(backlog.cover.Augment());
  }
  state.counters["flow"] = backlog.cover.flow();
  state.counters["phases_per_run"] = static_cast<double>(backlog.cover.phases() - phases) /
                                     static_cast<double>(state.iterations());
}

void BM_MaxCoverPreflowFromScratch(benchmark::State& state) {
  const int tau = static_cast<int>(state.range(0));
  Backlog backlog(2);
  CoverProblem p{kMachines, tau, {}, {}, {}};
  for (int t : backlog.live) p.tasks.push_back(backlog.cover.replicas(t));
  int flow = 0;
  for (auto _ : state) benchmark::DoNotOptimize(flow = PreflowCoverValue(p));
  state.counters["flow"] = flow;
}

BENCHMARK(BM_Algorithm2FromScratch)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_RebalanceAfterChurn)
    ->ArgName("always_walk")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);
BENCHMARK(BM_MaxCoverAugmentAfterChurn)
    ->Arg(8)
    ->Arg(9)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);
BENCHMARK(BM_MaxCoverPreflowFromScratch)->Arg(8)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace locsched

BENCHMARK_MAIN();
