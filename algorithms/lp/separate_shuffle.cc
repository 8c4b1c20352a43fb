#include "algorithms/lp/separate_shuffle.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/mrs.h"

namespace locsched {
namespace {

double Shuffle(const LpInstance& in, const ScheduledTask& e) {
  const LpTask& t = in.jobs[e.job].tasks[e.task];
  return t.kind == LpTaskKind::kReduce ? t.shuffle : 0.0;
}

std::string Name(const ScheduledTask& e) {
  return "jobs[" + std::to_string(e.job) + "].tasks[" + std::to_string(e.task) + "]";
}

bool Before(double a, double b) {  // a < b beyond the checker's tolerance
  return a < b - kScheduleTolerance * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

// Every shuffle after all maps of its job; on each input processor the shuffles in
// progress never hold more than its capacity (ends before starts at equal times).
Status CheckShuffles(const LpInstance& in, const Schedule& schedule) {
  std::vector<double> maps_end(in.jobs.size(), 0.0);
  for (const ScheduledTask& e : schedule)
    if (in.jobs[e.job].tasks[e.task].kind == LpTaskKind::kMap)
      maps_end[e.job] = std::max(maps_end[e.job], e.end);
  std::vector<std::vector<std::pair<double, double>>> events(in.capacity.size());
  for (const ScheduledTask& e : schedule) {
    const double shuffle = Shuffle(in, e);
    if (shuffle <= 0) continue;
    if (Before(e.start, maps_end[e.job]))
      return Status::InvalidArgument(Name(e) + ".start",
                                     "shuffle starts before its job's maps end");
    const double demand = in.jobs[e.job].tasks[e.task].demand;
    const double end = e.start + shuffle;
    events[e.machine].push_back({e.start, demand});
    events[e.machine].push_back(
        {end - kScheduleTolerance * std::max(1.0, std::fabs(end)), -demand});
  }
  for (size_t i = 0; i < events.size(); ++i) {
    std::sort(events[i].begin(), events[i].end());
    double used = 0;
    for (const auto& [time, delta] : events[i]) {
      used += delta;
      if (used > in.capacity[i] * (1 + 1e-9) + 1e-12)
        return Status::InvalidArgument(
            "machines[" + std::to_string(i) + "]",
            "input processor over capacity at time " + std::to_string(time));
    }
  }
  return Status::Ok();
}

}  // namespace

Status SolveSeparateShuffle(const LpInstance& in, const SeparateShuffleOptions& options,
                            SolverResult* result) {
  MrsOptions mrs;
  mrs.epsilon = options.epsilon;
  mrs.max_columns = options.max_columns;
  MrsResult m;
  Status s = SolveMrs(in, mrs, &m);
  if (!s.ok()) return s;
  IntervalLpOptions lp_options;
  lp_options.epsilon = options.epsilon;
  lp_options.max_columns = options.max_columns;
  lp_options.spread = false;
  lp_options.separate_shuffle = true;
  IntervalLpResult lp;
  s = SolveIntervalLp(in, lp_options, &lp);
  if (!s.ok()) return s;
  *result = std::move(m.solved);
  result->lower_bound = lp.objective;
  return Status::Ok();
}

Status CheckSeparateShuffle(const LpInstance& in, const Schedule& schedule) {
  for (const ScheduledTask& e : schedule)
    if (e.job >= in.jobs.size() || e.task >= in.jobs[e.job].tasks.size())
      return Status::NotFound(Name(e), "no such task");
  // The machines' view: reduces without their shuffle, starting after it.
  LpInstance machines = in;
  for (LpJob& job : machines.jobs)
    for (LpTask& t : job.tasks) t.shuffle = 0;
  Schedule held = schedule;
  for (ScheduledTask& e : held) e.start += Shuffle(in, e);
  const Status s = CheckSchedule(machines, held);
  return s.ok() ? CheckShuffles(in, schedule) : s;
}

}  // namespace locsched
