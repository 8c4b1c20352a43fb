#include "algorithms/lp/synchpack.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "algorithms/lp/machine_profile.h"

namespace locsched {
namespace {

constexpr double kTiny = 1e-12;

// Slow motion (the paper's (15)): per task and machine, the fraction in stretched
// interval l is z/lambda, capped once the task's total on that machine is reached.
std::vector<std::vector<LpFraction>> SlowMotion(const IntervalLpResult& lp, double lambda) {
  std::vector<std::vector<LpFraction>> out(lp.z.size());
  for (size_t t = 0; t < lp.z.size(); ++t) {
    std::map<uint32_t, double> total, done;
    for (const LpFraction& f : lp.z[t]) total[f.machine] += f.value;
    std::vector<LpFraction> by_interval = lp.z[t];
    std::sort(by_interval.begin(), by_interval.end(),
              [](const LpFraction& a, const LpFraction& b) { return a.interval < b.interval; });
    for (const LpFraction& f : by_interval) {
      const double v = std::min(f.value / lambda, total[f.machine] - done[f.machine]);
      done[f.machine] += v;
      if (v > kTiny) out[t].push_back({f.machine, f.interval, v});
    }
  }
  return out;
}

// The bipartite graph: tasks on the left, copies of machine-intervals on the right.
struct Graph {
  std::vector<std::vector<uint32_t>> edges;  // per task: copy ids
  std::vector<MachineInterval> copy;         // per copy: its machine-interval
};

// Per machine, tasks by non-increasing volume fill the copies of each interval in
// turn, each copy taking total weight at most 1 (the paper's Substep 3.1 (i)).
Graph BuildGraph(const LpInstance& in, const IntervalLpResult& lp,
                 const std::vector<std::vector<LpFraction>>& zbar) {
  Graph g;
  g.edges.resize(zbar.size());
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, double>>
      cursor;  // (i,l) -> copy, load
  for (uint32_t i = 0; i < in.capacity.size(); ++i) {
    std::vector<std::pair<double, size_t>> order;  // (volume, task)
    for (size_t t = 0; t < zbar.size(); ++t)
      for (const LpFraction& f : zbar[t])
        if (f.machine == i) {
          const TaskRef ref = lp.tasks[t];
          order.push_back({in.jobs[ref.job].tasks[ref.task].demand * TaskDuration(in, ref, i), t});
          break;
        }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [volume, t] : order)
      for (const LpFraction& f : zbar[t]) {
        if (f.machine != i) continue;
        double left = f.value;
        while (left > kTiny) {
          auto it = cursor.find({i, f.interval});
          if (it == cursor.end() || it->second.second >= 1 - kTiny) {
            g.copy.push_back({i, f.interval});
            it = cursor
                     .insert_or_assign(
                         {i, f.interval},
                         std::pair<uint32_t, double>{static_cast<uint32_t>(g.copy.size() - 1), 0.0})
                     .first;
          }
          const double take = std::min(left, 1 - it->second.second);
          if (g.edges[t].empty() || g.edges[t].back() != it->second.first)
            g.edges[t].push_back(it->second.first);
          it->second.second += take;
          left -= take;
        }
      }
  }
  // Any integral matching keeps the paper's bound; trying each task's earliest
  // interval (then its faster machine) first keeps the schedule short in practice.
  for (size_t t = 0; t < g.edges.size(); ++t)
    std::stable_sort(g.edges[t].begin(), g.edges[t].end(), [&](uint32_t a, uint32_t b) {
      const TaskRef ref = lp.tasks[t];
      return std::make_pair(g.copy[a].interval, TaskDuration(in, ref, g.copy[a].machine)) <
             std::make_pair(g.copy[b].interval, TaskDuration(in, ref, g.copy[b].machine));
    });
  return g;
}

// Kuhn's augmenting path from task t; `seen` marks copies visited in this search.
bool Augment(const Graph& g, size_t t, std::vector<int>& owner, std::vector<char>& seen) {
  for (uint32_t c : g.edges[t]) {
    if (seen[c]) continue;
    seen[c] = 1;
    if (owner[c] < 0 || Augment(g, static_cast<size_t>(owner[c]), owner, seen)) {
      owner[c] = static_cast<int>(t);
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<MachineInterval> MapToMachineIntervals(const LpInstance& in, const IntervalLpResult& lp,
                                                   double lambda) {
  const std::vector<std::vector<LpFraction>> zbar = SlowMotion(lp, lambda);
  const Graph g = BuildGraph(in, lp, zbar);
  std::vector<int> owner(g.copy.size(), -1);
  std::vector<MachineInterval> mapping(zbar.size(), MachineInterval{0, 0});
  for (size_t t = 0; t < zbar.size(); ++t) {
    std::vector<char> seen(g.copy.size(), 0);
    Augment(g, t, owner, seen);
  }
  for (size_t c = 0; c < owner.size(); ++c)
    if (owner[c] >= 0) mapping[static_cast<size_t>(owner[c])] = g.copy[c];
  // The fractional matching is perfect on the task side, so an integral one exists;
  // should rounding leave a task out, it takes its largest fraction.
  for (size_t t = 0; t < zbar.size(); ++t)
    if (mapping[t].interval == 0) {
      const auto best = std::max_element(
          zbar[t].begin(), zbar[t].end(),
          [](const LpFraction& a, const LpFraction& b) { return a.value < b.value; });
      mapping[t] = {best->machine, best->interval};
    }
  return mapping;
}

Schedule PackMapped(const LpInstance& in, const IntervalLpResult& lp,
                    const std::vector<MachineInterval>& mapping, bool precedence) {
  // Order: maps before reduces (when they wait for maps), then by mapped interval,
  // then by the LP's completion time of the job, then input order.
  std::vector<size_t> order(lp.tasks.size());
  std::iota(order.begin(), order.end(), 0);
  auto is_reduce = [&](size_t t) {
    return precedence &&
           in.jobs[lp.tasks[t].job].tasks[lp.tasks[t].task].kind == LpTaskKind::kReduce;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(is_reduce(a), mapping[a].interval, lp.completion[lp.tasks[a].job]) <
           std::make_tuple(is_reduce(b), mapping[b].interval, lp.completion[lp.tasks[b].job]);
  });
  std::vector<MachineProfile> machines;
  for (double c : in.capacity) machines.emplace_back(c);
  std::vector<double> maps_end(in.jobs.size(), 0.0);
  Schedule schedule;
  for (size_t t : order) {
    const TaskRef ref = lp.tasks[t];
    const LpTask& task = in.jobs[ref.job].tasks[ref.task];
    const uint32_t i = mapping[t].machine;
    const double p = TaskDuration(in, ref, i);
    double ready = in.jobs[ref.job].release;
    if (is_reduce(t)) ready = std::max(ready, maps_end[ref.job]);
    const double start = machines[i].EarliestStart(ready, p, task.demand);
    machines[i].Add(start, p, task.demand);
    schedule.push_back({ref.job, ref.task, i, start, start + p});
    if (task.kind == LpTaskKind::kMap) maps_end[ref.job] = std::max(maps_end[ref.job], start + p);
  }
  return schedule;
}

Status SolveSynchPack(const LpInstance& in, const SynchPackOptions& options, SolverResult* result) {
  IntervalLpResult lp;
  Status s = SolveIntervalLp(in, {options.epsilon, options.max_columns, LpStage::kAll}, &lp);
  if (!s.ok()) return s;
  *result = SolverResult{};
  result->lower_bound = lp.objective;
  bool have = false;
  for (double lambda : options.slow_motion) {
    if (!(lambda > 0 && lambda <= 1))
      return Status::InvalidArgument("slow_motion", "lambda must be in (0, 1]");
    Schedule schedule = PackMapped(in, lp, MapToMachineIntervals(in, lp, lambda), true);
    const double objective = WeightedCompletion(in, schedule);
    if (!have || objective < result->objective) {
      result->schedule = std::move(schedule);
      result->objective = objective;
      have = true;
    }
  }
  if (!have) return Status::InvalidArgument("slow_motion", "must not be empty");
  return Status::Ok();
}

}  // namespace locsched
