// The daemon's backlog LP re-solve at 100, 1,000, 10,000 and 100,000 queued tasks: the
// planner's snapshot plus both LPs, through the real Engine and Dispatcher (no
// sockets), cold and then warm. Prints one JSON line per run; docs/benchmarks.md
// records the figures. Usage: lp_resolve_bench [repeats]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "base/rng.h"
#include "daemon/dispatcher.h"
#include "daemon/lp_planner.h"

namespace locsched {
namespace {

class WallClock final : public Clock {
 public:
  double Now() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

struct Shape {
  uint32_t tasks;
  uint32_t jobs;
  uint32_t machines;  // 2 slots each, in 10 racks
};

void Send(Dispatcher& d, const std::string& line) {
  std::string out;
  d.HandleLine(line, Caller{}, &out);
  if (out.rfind("{\"ok\":true", 0) != 0) {
    std::fprintf(stderr, "refused: %s -> %s", line.c_str(), out.c_str());
    std::exit(1);
  }
}

// s.machines machines (2 slots) in 10 racks; jobs of random sizes (mean
// tasks/jobs), each task with 3 distinct random replicas.
void Load(Dispatcher& d, const Shape& s, uint64_t seed) {
  Rng rng(seed);
  for (uint32_t m = 0; m < s.machines; ++m)
    Send(d, R"({"op":"machine_up","machine":"m)" + std::to_string(m) + R"(","rack":"r)" +
                std::to_string(m % 10) + R"(","slots":2})");
  uint32_t left = s.tasks;
  for (uint32_t j = 0; j < s.jobs && left > 0; ++j) {
    const uint32_t mean = s.tasks / s.jobs;
    uint32_t n = j + 1 == s.jobs ? left : std::min(left, 1 + rng.Below(2 * mean));
    left -= n;
    std::string tasks;
    const uint32_t half = s.machines / 2;
    for (uint32_t t = 0; t < n; ++t) {  // distinct replicas: offsets 0, 1..half-1, half..2half-2
      const uint32_t a = rng.Below(s.machines), b = (a + 1 + rng.Below(half - 1)) % s.machines,
                     c = (a + half + rng.Below(half - 1)) % s.machines;
      tasks += std::string(t ? "," : "") + R"({"task":"t)" + std::to_string(t) +
               R"(","replicas":["m)" + std::to_string(a) + R"(","m)" + std::to_string(b) +
               R"(","m)" + std::to_string(c) + R"("]})";
    }
    Send(d, R"({"op":"job_submit","job":"j)" + std::to_string(j) + R"(","weight":)" +
                std::to_string(1 + rng.Below(5)) + R"(,"tasks":[)" + tasks + "]}");
  }
}

nlohmann::json Run(const Shape& s, int repeat) {
  Config cfg;
  cfg.scheduler.intra_queue = IntraQueue::kPriority;
  WallClock clock;
  ArrivalWindow arrivals(cfg.lp.headroom_window_s);
  Engine engine(cfg, clock, nullptr, &arrivals);
  LpPlanner planner(engine, arrivals, cfg.lp);
  Dispatcher dispatcher(engine, cfg, /*log=*/nullptr, &planner);
  Load(dispatcher, s, 7 + static_cast<uint64_t>(repeat));
  nlohmann::json runs = nlohmann::json::array();
  for (int pass = 0; pass < 2; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    planner.Start();  // inline: snapshot, both LPs, apply the order
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string out;
    JsonWriter w(&out);
    w.BeginObject();
    planner.WriteStatus(w);
    w.EndObject();
    nlohmann::json lp = nlohmann::json::parse(out)["lp"];
    runs.push_back({{"pass", pass ? "warm" : "cold"},
                    {"total_ms", total * 1e3},
                    {"solve_ms", lp["last_solve_ms"]},
                    {"backlog_ms", lp["last_backlog_ms"]},
                    {"loop_ms", lp["last_loop_ms"]},
                    {"warm", lp["warm_starts"].get<int>() > 0 && pass == 1},
                    {"rows", lp["rows"]},
                    {"columns", lp["columns"]},
                    {"intervals", lp["intervals"]},
                    {"lp_jobs", lp["lp_jobs"]},
                    {"ordered_jobs", lp["ordered_jobs"]},
                    {"failures", lp["failures"]},
                    {"overruns", lp["overruns"]}});
  }
  return {{"queued_tasks", engine.scheduler().queued()},
          {"jobs", s.jobs},
          {"machines", s.machines},
          {"runs", runs}};
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  const locsched::Shape shapes[] = {
      {100, 5, 100}, {1000, 20, 100}, {10000, 100, 100}, {10000, 1000, 100}, {100000, 1000, 10000}};
  for (const locsched::Shape& s : shapes)
    for (int r = 0; r < repeats; ++r) std::printf("%s\n", locsched::Run(s, r).dump().c_str());
  return 0;
}
