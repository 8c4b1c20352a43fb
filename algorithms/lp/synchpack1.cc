#include "algorithms/lp/synchpack1.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/preemptive_list.h"

namespace locsched {
namespace {

Status SolveLp1(const LpInstance& in, const SynchPack1Options& options, IntervalLpResult* lp) {
  IntervalLpOptions o;
  o.epsilon = options.epsilon;
  o.max_columns = options.max_columns;
  o.preemptive = true;
  return SolveIntervalLp(in, o, lp);
}

// Each job's rank by LP completion, ties by weight per unit of work (higher first).
std::vector<size_t> JobRanks(const LpInstance& in, const IntervalLpResult& lp) {
  std::vector<size_t> jobs(in.jobs.size()), rank(in.jobs.size());
  std::iota(jobs.begin(), jobs.end(), 0);
  auto density = [&](size_t j) {
    double work = 0;
    for (const LpTask& t : in.jobs[j].tasks) work += t.demand * (t.duration + t.shuffle);
    return in.jobs[j].weight / work;
  };
  std::stable_sort(jobs.begin(), jobs.end(), [&](size_t a, size_t b) {
    if (lp.completion[a] != lp.completion[b]) return lp.completion[a] < lp.completion[b];
    return density(a) > density(b);
  });
  for (size_t r = 0; r < jobs.size(); ++r) rank[jobs[r]] = r;
  return rank;
}

Status Finish(const LpInstance& in, const IntervalLpResult& lp, std::vector<WorkItem> items,
              SolverResult* result) {
  *result = SolverResult{};
  result->lower_bound = lp.objective;
  Status s = RunPreemptiveList(in, std::move(items), &result->schedule);
  if (s.ok()) result->objective = WeightedCompletion(in, result->schedule);
  return s;
}

}  // namespace

Status SolveSynchPack1(const LpInstance& in, const SynchPack1Options& options,
                       SolverResult* result) {
  IntervalLpResult lp;
  Status s = SolveLp1(in, options, &lp);
  if (!s.ok()) return s;
  const std::vector<size_t> rank = JobRanks(in, lp);
  std::vector<size_t> first(in.jobs.size(), 0);
  for (size_t j = 1; j < in.jobs.size(); ++j) first[j] = first[j - 1] + in.jobs[j - 1].tasks.size();
  // The task fractions, by interval, then by the job's LP rank; shares sum to 1 per task.
  std::vector<WorkItem> items;
  for (size_t t = 0; t < lp.tasks.size(); ++t) {
    double total = 0;
    for (const LpFraction& f : lp.z[t]) total += f.value;
    for (const LpFraction& f : lp.z[t])
      items.push_back({first[lp.tasks[t].job] + lp.tasks[t].task, f.machine, f.value / total,
                       static_cast<double>(f.interval) * static_cast<double>(in.jobs.size() + 1) +
                           static_cast<double>(rank[lp.tasks[t].job])});
  }
  return Finish(in, lp, std::move(items), result);
}

Status SolveSynchPack1Single(const LpInstance& in, const SynchPack1Options& options,
                             SolverResult* result) {
  for (uint32_t j = 0; j < in.jobs.size(); ++j)
    for (uint32_t k = 0; k < in.jobs[j].tasks.size(); ++k) {
      const LpTask& task = in.jobs[j].tasks[k];
      if (task.placement.size() != 1 || task.remote_penalty != 0.0)
        return Status::InvalidArgument(
            "jobs[" + std::to_string(j) + "].tasks[" + std::to_string(k) + "].placement",
            "the single-machine variant needs exactly one machine and no remote_penalty");
    }
  IntervalLpResult lp;
  Status s = SolveLp1(in, options, &lp);
  if (!s.ok()) return s;
  const std::vector<size_t> rank = JobRanks(in, lp);
  std::vector<WorkItem> items;
  const std::vector<TaskRef> flat = FlattenTasks(in);
  for (size_t t = 0; t < flat.size(); ++t)
    items.push_back({t, in.jobs[flat[t].job].tasks[flat[t].task].placement[0], 1.0,
                     static_cast<double>(rank[flat[t].job])});
  return Finish(in, lp, std::move(items), result);
}

}  // namespace locsched
