// The daemon's per-event CPU cost without sockets: decoding one line, and one
// heartbeat plus the task_done it leads to, through the real Dispatcher and
// Engine with 1,000 or 10,000 machines and 100,000 queued tasks. The socket
// benchmark (daemon_bench.sh) measures the same path end to end. Also the LP
// planner's arrival window, which counts every submitted task.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "base/rng.h"
#include "daemon/arrival_window.h"
#include "daemon/clock.h"
#include "daemon/dispatcher.h"
#include "io/wire/request.h"

namespace locsched {
namespace {

constexpr int kQueued = 100000;
constexpr int kTasksPerJob = 100;

// A daemon core with `machines` machines (data on the first 80%) and kQueued
// tasks of 3 replicas each.
struct Setup {
  explicit Setup(int machines) : engine(cfg, clock), dispatcher(engine, cfg) {
    for (int m = 0; m < machines; ++m)
      Send(R"({"op":"machine_up","machine":"n)" + std::to_string(m) + R"(","slots":4})");
    for (int j = 0; j < kQueued / kTasksPerJob; ++j) SubmitJob(machines);
  }
  void SubmitJob(int machines) {
    std::string line =
        R"({"op":"job_submit","job":"j)" + std::to_string(next_job++) + R"(","tasks":[)";
    for (int t = 0; t < kTasksPerJob; ++t) {
      line += std::string(t ? "," : "") + R"({"task":"t)" + std::to_string(t) + R"(","replicas":[)";
      for (int r = 0; r < 3; ++r)
        line += std::string(r ? "," : "") + "\"n" +
                std::to_string(rng.Below(static_cast<uint32_t>(machines) * 4 / 5)) + "\"";
      line += "]}";
    }
    Send(line + "]}");
  }
  std::string Send(const std::string& line) {
    std::string out;
    dispatcher.HandleLine(line, Caller{}, &out);
    return out;
  }
  Config cfg;
  SteadyClock clock;
  Engine engine;
  Dispatcher dispatcher;
  Rng rng{7};
  int next_job = 0;
};

// Decoding the two lines agents send most, with the fast path for flat lines
// (DecodeRequest) and without it (DecodeRequestGeneral, the baseline).
template <Status (*Decode)(std::string_view, Request*)>
void BM_Decode(benchmark::State& state) {
  const std::string lines[] = {R"({"op":"heartbeat","machine":"n123","free_slots":1})",
                               R"({"op":"task_done","job":"j1234","task":"t56"})"};
  const std::string& line = lines[state.range(0)];
  Request r;
  for (auto _ : state) benchmark::DoNotOptimize(Decode(line, &r));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Decode<DecodeRequest>)->ArgName("task_done")->Arg(0)->Arg(1);
BENCHMARK(BM_Decode<DecodeRequestGeneral>)->ArgName("task_done")->Arg(0)->Arg(1);

// One heartbeat (free_slots 1) and the task_done for what it assigned: two
// events. A new job keeps the queue at its size after every kTasksPerJob
// events; with the second argument 1 its job_submit is timed too, as in the
// socket benchmark's mix.
void BM_HeartbeatAndDone(benchmark::State& state) {
  const int machines = static_cast<int>(state.range(0));
  const bool time_submits = state.range(1) != 0;
  Setup s(machines);
  int m = 0, finished = 0;
  std::string reply, done;
  for (auto _ : state) {
    const std::string name = "n" + std::to_string(m);
    m = (m + 1) % machines;
    reply.clear();
    s.dispatcher.HandleLine(R"({"op":"heartbeat","machine":")" + name + R"(","free_slots":1})",
                            Caller{}, &reply);
    const size_t job = reply.find("\"job\":\"");
    if (job == std::string::npos) continue;
    const size_t job_end = reply.find('"', job + 7);
    const size_t task = reply.find("\"task\":\"", job_end);
    const size_t task_end = reply.find('"', task + 8);
    done = R"({"op":"task_done","job":")" + reply.substr(job + 7, job_end - job - 7) +
           R"(","task":")" + reply.substr(task + 8, task_end - task - 8) + R"("})";
    reply.clear();
    s.dispatcher.HandleLine(done, Caller{}, &reply);
    if (++finished % kTasksPerJob != 0) continue;
    if (!time_submits) state.PauseTiming();
    s.SubmitJob(machines);
    if (!time_submits) state.ResumeTiming();
  }
  state.SetItemsProcessed(2 * state.iterations());  // events
}
BENCHMARK(BM_HeartbeatAndDone)
    ->ArgNames({"machines", "submits"})
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({1000, 1})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

// The arrival window counting submitted jobs of 100 tasks, each with 3 distinct random
// replicas among `machines`: nearly every type is new, so the window's table of exact
// types fills and most arrivals are folded. 50 jobs a second into a 60 s window: a
// replica set recurs only after 82 s, so none is ever held twice.
void BM_ArrivalWindowAdd(benchmark::State& state) {
  const auto machines = static_cast<uint32_t>(state.range(0));
  constexpr size_t kJobs = 4096;  // replica sets drawn ahead, reused cyclically
  Rng rng(11);
  std::vector<MachineId> pool(kJobs * kTasksPerJob * 3);
  for (size_t i = 0; i < pool.size(); i += 3) {
    pool[i] = rng.Below(machines);
    do pool[i + 1] = rng.Below(machines);
    while (pool[i + 1] == pool[i]);
    do pool[i + 2] = rng.Below(machines);
    while (pool[i + 2] == pool[i] || pool[i + 2] == pool[i + 1]);
  }
  std::vector<std::vector<TaskSpec>> jobs(kJobs, std::vector<TaskSpec>(kTasksPerJob));
  for (size_t j = 0; j < kJobs; ++j)
    for (size_t t = 0; t < kTasksPerJob; ++t)
      jobs[j][t].replicas = std::span<const MachineId>(&pool[(j * kTasksPerJob + t) * 3], 3);
  ArrivalWindow window(60);
  double now = 0;
  size_t j = 0;
  for (auto _ : state) {
    now += 0.02;
    window.Add(now, jobs[j]);
    j = (j + 1) % kJobs;
  }
  state.SetItemsProcessed(state.iterations() * kTasksPerJob);  // tasks
}
BENCHMARK(BM_ArrivalWindowAdd)->ArgName("machines")->Arg(10000);

}  // namespace
}  // namespace locsched

BENCHMARK_MAIN();
