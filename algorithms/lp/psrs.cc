#include "algorithms/lp/psrs.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/preemptive_list.h"

namespace locsched {

Status SolvePsrs(const LpInstance& in, const BaselineOptions& options, SolverResult* result) {
  *result = SolverResult{};
  if (options.lower_bound) {
    IntervalLpOptions o;
    o.epsilon = options.epsilon;
    o.max_columns = options.max_columns;
    o.spread = false;
    o.preemptive = true;
    IntervalLpResult lp;
    Status s = SolveIntervalLp(in, o, &lp);
    if (!s.ok()) return s;
    result->lower_bound = lp.objective;
  }
  const std::vector<TaskRef> flat = FlattenTasks(in);
  std::vector<double> ratio(flat.size());
  for (size_t t = 0; t < flat.size(); ++t) {
    const LpTask& task = in.jobs[flat[t].job].tasks[flat[t].task];
    ratio[t] = in.jobs[flat[t].job].weight / (task.demand * (task.duration + task.shuffle));
  }
  std::vector<size_t> order(flat.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ratio[a] > ratio[b]; });
  std::vector<double> load(in.capacity.size(), 0.0);  // work per capacity assigned
  std::vector<WorkItem> items;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const size_t t = order[rank];
    const double demand = in.jobs[flat[t].job].tasks[flat[t].task].demand;
    uint32_t best = 0;
    double best_load = -1;
    for (uint32_t i = 0; i < in.capacity.size(); ++i) {
      const double p = TaskDuration(in, flat[t], i);
      if (p == kNotAllowed) continue;
      const double after = load[i] + demand * p / in.capacity[i];
      if (best_load < 0 || after < best_load) best = i, best_load = after;
    }
    load[best] = best_load;
    items.push_back({t, best, 1.0, static_cast<double>(rank)});
  }
  Status s = RunPreemptiveList(in, std::move(items), &result->schedule);
  if (s.ok()) result->objective = WeightedCompletion(in, result->schedule);
  return s;
}

}  // namespace locsched
