#include "algorithms/lp/synchpack_list.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "algorithms/lp/machine_profile.h"

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Per flat task: its job's first flat index, so flat = first[job] + task.
std::vector<size_t> FirstFlat(const LpInstance& in) {
  std::vector<size_t> first(in.jobs.size(), 0);
  for (size_t j = 1; j < in.jobs.size(); ++j) first[j] = first[j - 1] + in.jobs[j - 1].tasks.size();
  return first;
}

// The packing state: one usage profile per machine and each job's maps still unpacked.
struct Packer {
  const LpInstance& in;
  std::vector<MachineProfile> machines;
  std::vector<size_t> maps_left;
  std::vector<double> maps_end;
  Schedule schedule;

  explicit Packer(const LpInstance& instance)
      : in(instance), maps_left(instance.jobs.size(), 0), maps_end(instance.jobs.size(), 0.0) {
    for (double c : in.capacity) machines.emplace_back(c);
    for (size_t j = 0; j < in.jobs.size(); ++j)
      for (const LpTask& t : in.jobs[j].tasks) maps_left[j] += t.kind == LpTaskKind::kMap;
  }
  // The earliest finish over the usable machines; ties go to the lower index.
  void Place(TaskRef ref) {
    const LpTask& task = in.jobs[ref.job].tasks[ref.task];
    double ready = in.jobs[ref.job].release;
    if (task.kind == LpTaskKind::kReduce) ready = std::max(ready, maps_end[ref.job]);
    double best_end = kInf, best_start = 0;
    uint32_t best = 0;
    for (uint32_t i = 0; i < in.capacity.size(); ++i) {
      const double p = TaskDuration(in, ref, i);
      if (p == kNotAllowed) continue;
      const double start = machines[i].EarliestStart(ready, p, task.demand);
      if (start + p < best_end) best_end = start + p, best_start = start, best = i;
    }
    machines[best].Add(best_start, best_end - best_start, task.demand);
    schedule.push_back({ref.job, ref.task, best, best_start, best_end});
    if (task.kind == LpTaskKind::kMap) {
      maps_end[ref.job] = std::max(maps_end[ref.job], best_end);
      --maps_left[ref.job];
    }
  }
};

// Job keys shared by the orders: LP completion, then weight per unit of work (higher first).
std::vector<std::pair<double, double>> JobKeys(const LpInstance& in, const IntervalLpResult& lp) {
  std::vector<std::pair<double, double>> key(in.jobs.size());
  for (size_t j = 0; j < in.jobs.size(); ++j) {
    double work = 0;
    for (const LpTask& t : in.jobs[j].tasks) work += t.demand * (t.duration + t.shuffle);
    key[j] = {lp.completion[j], -in.jobs[j].weight / work};
  }
  return key;
}

// When task t's LP fraction reaches alpha (linear inside the interval that crosses it).
double AlphaPoint(const IntervalLpResult& lp, size_t t, double alpha) {
  std::map<uint32_t, double> per_interval;
  for (const LpFraction& f : lp.z[t]) per_interval[f.interval] += f.value;
  double done = 0;
  for (const auto& [l, v] : per_interval) {
    if (done + v >= alpha - 1e-12) {
      const double from = lp.endpoints[l - 1], to = lp.endpoints[l];
      return from + (to - from) * std::clamp((alpha - done) / v, 0.0, 1.0);
    }
    done += v;
  }
  return lp.endpoints.back();
}

}  // namespace

Schedule PackInOrder(const LpInstance& in, const std::vector<size_t>& order) {
  const std::vector<TaskRef> flat = FlattenTasks(in);
  Packer packer(in);
  std::vector<std::vector<TaskRef>> waiting(in.jobs.size());  // reduces met too early
  for (size_t t : order) {
    const TaskRef ref = flat[t];
    if (in.jobs[ref.job].tasks[ref.task].kind == LpTaskKind::kReduce &&
        packer.maps_left[ref.job] > 0) {
      waiting[ref.job].push_back(ref);
      continue;
    }
    packer.Place(ref);
    if (packer.maps_left[ref.job] == 0 && !waiting[ref.job].empty()) {
      for (const TaskRef& r : waiting[ref.job]) packer.Place(r);
      waiting[ref.job].clear();
    }
  }
  return std::move(packer.schedule);
}

std::vector<std::pair<std::string, std::vector<size_t>>> LpOrders(
    const LpInstance& in, const IntervalLpResult& lp, const std::vector<double>& alphas) {
  const std::vector<TaskRef> flat = FlattenTasks(in);
  const std::vector<size_t> first = FirstFlat(in);
  const auto job = JobKeys(in, lp);
  std::vector<std::pair<std::string, std::vector<size_t>>> orders;
  std::vector<size_t> order(flat.size());
  std::iota(order.begin(), order.end(), 0);
  // Job order; inside a job, longer tasks first (they bound the job's completion).
  auto duration = [&](size_t t) { return in.jobs[flat[t].job].tasks[flat[t].task].duration; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(job[flat[a].job], flat[a].job, -duration(a)) <
           std::make_tuple(job[flat[b].job], flat[b].job, -duration(b));
  });
  orders.push_back({"lp-completion", order});
  for (double alpha : alphas) {
    std::vector<double> point(flat.size(), 0.0);
    for (size_t t = 0; t < lp.tasks.size(); ++t)
      point[first[lp.tasks[t].job] + lp.tasks[t].task] = AlphaPoint(lp, t, alpha);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::make_tuple(point[a], job[flat[a].job], flat[a].job) <
             std::make_tuple(point[b], job[flat[b].job], flat[b].job);
    });
    char name[32];
    std::snprintf(name, sizeof name, "alpha=%g", alpha);
    orders.push_back({name, order});
  }
  return orders;
}

Status SolveSynchPackList(const LpInstance& in, const SynchPackListOptions& options,
                          SynchPackListResult* result) {
  for (double alpha : options.alphas)
    if (!(alpha > 0 && alpha <= 1))
      return Status::InvalidArgument("alphas", "every alpha must be in (0, 1]");
  IntervalLpResult lp;
  size_t columns = 0;
  if (options.use_classes) {
    ClassLpOptions knobs = options.classes;
    knobs.epsilon = options.epsilon;
    ClassLpResult classes;
    const Status s = SolveClassLp(in, knobs, &classes);
    if (!s.ok()) return s;
    lp = ClassLpAsTaskLp(classes);
    columns = classes.columns;
  } else {
    const IntervalLpOptions knobs{options.epsilon, options.max_columns, LpStage::kAll};
    const Status s = SolveIntervalLp(in, knobs, &lp);
    if (!s.ok()) return s;
    columns = IntervalLpColumns(in, knobs);
  }
  *result = SynchPackListResult{};
  result->lp_columns = columns;
  result->solved.lower_bound = lp.objective;
  result->solved.objective = kInf;
  for (auto& [name, order] : LpOrders(in, lp, options.alphas)) {
    Schedule schedule = PackInOrder(in, order);
    const double objective = WeightedCompletion(in, schedule);
    if (objective < result->solved.objective) {
      result->solved.schedule = std::move(schedule);
      result->solved.objective = objective;
      result->order = name;
    }
  }
  return Status::Ok();
}

}  // namespace locsched
