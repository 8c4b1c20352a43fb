#include "algorithms/lp/mrs.h"

#include <algorithm>
#include <limits>
#include <list>
#include <tuple>
#include <utility>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/list_scheduler.h"
#include "algorithms/lp/synchpack.h"

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One stage's schedule: solve its LP, round and pack for each lambda, keep the best.
Status StageSchedule(const LpInstance& in, const MrsOptions& options, LpStage stage,
                     Schedule* best) {
  IntervalLpResult lp;
  Status s = SolveIntervalLp(in, {options.epsilon, options.max_columns, stage}, &lp);
  if (!s.ok() || lp.tasks.empty()) return s;
  double best_objective = kInf;
  for (double lambda : options.slow_motion) {
    if (!(lambda > 0 && lambda <= 1))
      return Status::InvalidArgument("slow_motion", "lambda must be in (0, 1]");
    Schedule schedule = PackMapped(in, lp, MapToMachineIntervals(in, lp, lambda), false);
    const double objective = WeightedCompletion(in, schedule);
    if (objective < best_objective) best_objective = objective, *best = std::move(schedule);
  }
  return Status::Ok();
}

// The merge: tasks keep their stage machine; a machine with free capacity starts the
// fitting ready task of smallest width (maps before reduces at equal width); a
// reduce becomes eligible at its job's width.
class MergePolicy : public ListPolicy {
 public:
  MergePolicy(const LpInstance& in, std::vector<uint32_t> machine, std::vector<double> width)
      : in_(in), flat_(FlattenTasks(in)), machine_(std::move(machine)), width_(std::move(width)) {}

  void OnReady(size_t t, double) override { ready_.push_back(t); }

  long Pick(uint32_t i, double now, double free) override {
    auto best = ready_.end();
    for (auto it = ready_.begin(); it != ready_.end(); ++it) {
      if (machine_[*it] != i || Task(*it).demand > free * (1 + 1e-9)) continue;
      if (IsReduce(*it) && width_[flat_[*it].job] > now) continue;
      if (best == ready_.end() || Key(*it) < Key(*best)) best = it;
    }
    if (best == ready_.end()) return -1;
    const size_t t = *best;
    ready_.erase(best);
    return static_cast<long>(t);
  }

  double NextWake(double now) override {
    double wake = kInf;
    for (size_t t : ready_)
      if (IsReduce(t) && width_[flat_[t].job] > now) wake = std::min(wake, width_[flat_[t].job]);
    return wake;
  }

 private:
  const LpTask& Task(size_t t) const { return in_.jobs[flat_[t].job].tasks[flat_[t].task]; }
  bool IsReduce(size_t t) const { return Task(t).kind == LpTaskKind::kReduce; }
  std::tuple<double, bool, size_t> Key(size_t t) const {
    return {width_[flat_[t].job], IsReduce(t), t};
  }
  const LpInstance& in_;
  std::vector<TaskRef> flat_;
  std::vector<uint32_t> machine_;
  std::vector<double> width_;
  std::list<size_t> ready_;
};

}  // namespace

Status SolveMrs(const LpInstance& in, const MrsOptions& options, MrsResult* result) {
  *result = MrsResult{};
  IntervalLpResult bound;
  Status s =
      SolveIntervalLp(in, {options.epsilon, options.max_columns, LpStage::kAll, false}, &bound);
  if (!s.ok()) return s;
  Schedule maps, reduces;
  if (!(s = StageSchedule(in, options, LpStage::kMaps, &maps)).ok()) return s;
  if (!(s = StageSchedule(in, options, LpStage::kReduces, &reduces)).ok()) return s;
  // Widths from the stage schedules; each task keeps its stage machine.
  const std::vector<TaskRef> flat = FlattenTasks(in);
  std::vector<size_t> first(in.jobs.size(), 0);
  for (size_t j = 1; j < in.jobs.size(); ++j) first[j] = first[j - 1] + in.jobs[j - 1].tasks.size();
  std::vector<uint32_t> machine(flat.size(), 0);
  for (const Schedule* stage : {&maps, &reduces})
    for (const ScheduledTask& e : *stage) machine[first[e.job] + e.task] = e.machine;
  const std::vector<double> cm = JobCompletions(in, maps), cr = JobCompletions(in, reduces);
  result->width.resize(in.jobs.size());
  for (size_t j = 0; j < in.jobs.size(); ++j) result->width[j] = cm[j] + cr[j];
  MergePolicy policy(in, std::move(machine), result->width);
  if (!(s = RunListScheduler(in, policy, &result->solved.schedule)).ok()) return s;
  result->solved.lower_bound = bound.objective;
  result->solved.objective = WeightedCompletion(in, result->solved.schedule);
  return Status::Ok();
}

}  // namespace locsched
