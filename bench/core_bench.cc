// core_bench: route + serve decisions per second of the scheduling core at
// 10,000 machines with 1,000,000 queued tasks (target: >= 5 million
// decisions/s), for JSQ+MaxWeight (fair and fifo inside queues) and, as the
// baseline measured in the same run, Hadoop's FIFO with greedy locality.
//
// One decision is either filling a free slot (MaxWeight picks a queue, the
// intra-queue policy a job, the task leaves its queue) or routing a runnable
// task (JSQ picks a queue, the task joins its job's subqueue there).
// Two loops, both with a steady backlog of 1,000,000 queued tasks:
//  - Decisions: serve one slot, then requeue that same task (as after a
//    failure), which routes it again: exactly one serve and one route.
//  - Lifecycle: serve one slot and finish its task at once; every `job_size`
//    serves a new job of `job_size` tasks arrives. This adds job creation and
//    completion bookkeeping, so it is the end-to-end figure.
// Both loops start after one untimed pass that serves and requeues a task on every
// machine, and Lifecycle after one untimed round of its own shape over every machine,
// so that they measure the steady state. The first pass is a third figure:
//  - FirstPass: the first serve and requeue on every machine after the backlog is
//    queued, where a policy pays for the work it put off while routing (late binding
//    builds a front job's machine lists on its first look-up); it reports the pass's
//    time and its slowest serve.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "base/rng.h"

namespace locsched {
namespace {

constexpr uint32_t kMachines = 10000;
constexpr uint32_t kQueued = 1000000;
constexpr uint32_t kReplicas = 3;

// Replica triples drawn once, reused cyclically so the timed loop draws nothing.
std::vector<MachineId> MakeReplicaPool(uint32_t tasks, uint64_t seed) {
  Rng rng(seed);
  std::vector<MachineId> pool;
  pool.reserve(size_t{tasks} * kReplicas);
  for (uint32_t t = 0; t < tasks; ++t) {
    const MachineId a = rng.Below(kMachines);
    MachineId b = rng.Below(kMachines), c = rng.Below(kMachines);
    while (b == a) b = rng.Below(kMachines);
    while (c == a || c == b) c = rng.Below(kMachines);
    pool.insert(pool.end(), {a, b, c});
  }
  return pool;
}

class Backlog {
 public:
  // With `warm`, one pass (FirstPass) runs before the caller's timed loop.
  Backlog(const PolicyParams& params, uint32_t job_size, bool warm)
      : sched_(params), job_size_(job_size), pool_(MakeReplicaPool(kQueued, 42)), specs_(job_size) {
    for (uint32_t m = 0; m < kMachines; ++m) sched_.AddMachine(Machine{});
    while (sched_.queued() < kQueued) SubmitJob();
    if (warm) FirstPass();
  }

  // One serve and requeue on every machine; returns the slowest serve, in seconds.
  double FirstPass() {
    double slowest = 0;
    for (uint32_t m = 0; m < kMachines; ++m) {
      const auto start = std::chrono::steady_clock::now();
      const std::optional<Assignment> a = Serve();
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      slowest = std::max(slowest, took.count());
      if (a) sched_.Requeue(a->task);
    }
    return slowest;
  }

  // One job of job_size_ tasks: job_size_ routing decisions.
  void SubmitJob() {
    for (TaskSpec& spec : specs_) {
      spec.replicas = std::span<const MachineId>(pool_.data() + cursor_, kReplicas);
      cursor_ = (cursor_ + kReplicas) % pool_.size();
    }
    sched_.SubmitJob(1.0, specs_);
  }

  // One round of the Lifecycle loop: job_size_ serves, each task finishing at once, then
  // one job of job_size_ routes.
  void LifecycleRound() {
    for (uint32_t i = 0; i < job_size_; ++i)
      if (const std::optional<Assignment> a = Serve()) sched_.Finish(a->task);
    SubmitJob();
  }

  // One serving decision, then the task is requeued: one routing decision.
  void ServeAndRequeue() {
    if (const std::optional<Assignment> a = Serve()) sched_.Requeue(a->task);
  }

  uint32_t job_size() const { return job_size_; }
  uint64_t queued() const { return sched_.queued(); }

 private:
  // One serving decision on the next machine.
  std::optional<Assignment> Serve() {
    const std::optional<Assignment> a = sched_.Assign(next_machine_);
    next_machine_ = (next_machine_ + 1) % kMachines;
    return a;
  }

  Scheduler sched_;
  uint32_t job_size_;
  std::vector<MachineId> pool_;
  std::vector<TaskSpec> specs_;
  size_t cursor_ = 0;
  MachineId next_machine_ = 0;
};

void RunDecisions(benchmark::State& state, const PolicyParams& params) {
  Backlog backlog(params, static_cast<uint32_t>(state.range(0)), /*warm=*/true);
  uint64_t decisions = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) backlog.ServeAndRequeue();
    decisions += 2000;
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["queued"] = static_cast<double>(backlog.queued());
}

void RunLifecycle(benchmark::State& state, const PolicyParams& params) {
  const auto job_size = static_cast<uint32_t>(state.range(0));
  Backlog backlog(params, job_size, /*warm=*/true);
  // Untimed, one round of the loop's shape over every machine (at least one job's
  // arrival): new tasks' records and queues grow their arrays before the timing starts.
  for (uint32_t done = 0; done < std::max(kMachines, job_size); done += job_size)
    backlog.LifecycleRound();
  uint64_t decisions = 0;
  for (auto _ : state) {
    backlog.LifecycleRound();
    decisions += 2 * job_size;
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["queued"] = static_cast<double>(backlog.queued());
}

// Each iteration queues a fresh backlog (untimed) and times its first pass.
void RunFirstPass(benchmark::State& state, const PolicyParams& params) {
  const auto job_size = static_cast<uint32_t>(state.range(0));
  std::optional<Backlog> backlog;
  double slowest = 0;
  for (auto _ : state) {
    state.PauseTiming();
    backlog.reset();
    backlog.emplace(params, job_size, /*warm=*/false);
    state.ResumeTiming();
    slowest = std::max(slowest, backlog->FirstPass());
  }
  state.counters["slowest_serve_ms"] = slowest * 1e3;
}

PolicyParams Params(PolicyKind kind, IntraQueue intra) {
  PolicyParams p;
  p.kind = kind;
  p.intra = intra;
  return p;
}

// The default: late binding, shortest remaining work first.
PolicyParams LateBindingSrpt() {
  PolicyParams p = Params(PolicyKind::kLateBinding, IntraQueue::kFair);
  p.job_order = JobOrder::kSrpt;
  return p;
}

void BM_Decisions_BaselineFifo(benchmark::State& s) {
  RunDecisions(s, Params(PolicyKind::kFifo, IntraQueue::kFifo));
}
void BM_Decisions_JsqMaxWeightFifo(benchmark::State& s) {
  RunDecisions(s, Params(PolicyKind::kJsqMaxWeight, IntraQueue::kFifo));
}
void BM_Decisions_JsqMaxWeightFair(benchmark::State& s) {
  RunDecisions(s, Params(PolicyKind::kJsqMaxWeight, IntraQueue::kFair));
}
void BM_Decisions_LateBindingFair(benchmark::State& s) {
  RunDecisions(s, Params(PolicyKind::kLateBinding, IntraQueue::kFair));
}
void BM_Decisions_LateBindingSrpt(benchmark::State& s) {
  RunDecisions(s, LateBindingSrpt());
}
void BM_Decisions_BalancedPandas(benchmark::State& s) {
  RunDecisions(s, Params(PolicyKind::kBalancedPandas, IntraQueue::kFair));
}
void BM_Lifecycle_LateBindingSrpt(benchmark::State& s) {
  RunLifecycle(s, LateBindingSrpt());
}
void BM_FirstPass_JsqMaxWeightFair(benchmark::State& s) {
  RunFirstPass(s, Params(PolicyKind::kJsqMaxWeight, IntraQueue::kFair));
}
void BM_FirstPass_LateBindingSrpt(benchmark::State& s) {
  RunFirstPass(s, LateBindingSrpt());
}
void BM_Lifecycle_BaselineFifo(benchmark::State& s) {
  RunLifecycle(s, Params(PolicyKind::kFifo, IntraQueue::kFifo));
}
void BM_Lifecycle_JsqMaxWeightFifo(benchmark::State& s) {
  RunLifecycle(s, Params(PolicyKind::kJsqMaxWeight, IntraQueue::kFifo));
}
void BM_Lifecycle_JsqMaxWeightFair(benchmark::State& s) {
  RunLifecycle(s, Params(PolicyKind::kJsqMaxWeight, IntraQueue::kFair));
}

// Arg: tasks per job, from 10 jobs of 100,000 tasks to 10,000 jobs of 100 tasks: the
// fewer tasks per job, the more jobs share each queue (up to ~100 per local queue).
BENCHMARK(BM_Decisions_BaselineFifo)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decisions_JsqMaxWeightFifo)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decisions_JsqMaxWeightFair)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decisions_LateBindingFair)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decisions_LateBindingSrpt)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decisions_BalancedPandas)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lifecycle_LateBindingSrpt)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lifecycle_BaselineFifo)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lifecycle_JsqMaxWeightFifo)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lifecycle_JsqMaxWeightFair)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FirstPass_JsqMaxWeightFair)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FirstPass_LateBindingSrpt)
    ->Arg(100000)
    ->Arg(10000)
    ->Arg(1000)
    ->Arg(100)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace locsched

BENCHMARK_MAIN();
