#include "algorithms/lp/packing_baselines.h"

#include <algorithm>
#include <deque>
#include <list>
#include <vector>

#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/list_scheduler.h"

namespace locsched {
namespace {

bool IsLocal(const LpTask& task, uint32_t i) {
  return std::find(task.placement.begin(), task.placement.end(), i) != task.placement.end();
}

class JsqMaxWeight : public ListPolicy {
 public:
  explicit JsqMaxWeight(const LpInstance& in)
      : in_(in), flat_(FlattenTasks(in)), queues_(in.capacity.size()) {}

  void OnReady(size_t t, double) override {
    const LpTask& task = Task(t);
    uint32_t best = 0;  // JSQ over the placement (over all machines if it has none)
    bool found = false;
    for (uint32_t i = 0; i < queues_.size(); ++i) {
      if (!task.placement.empty() && !IsLocal(task, i)) continue;
      if (TaskDuration(in_, flat_[t], i) == kNotAllowed) continue;
      if (!found || queues_[i].size() < queues_[best].size()) best = i, found = true;
    }
    if (!found) best = FirstUsable(t);
    queues_[best].push_back(t);
  }

  long Pick(uint32_t i, double, double free) override {
    const long local = FirstFit(i, i, free);
    // MaxWeight between the local queue and the longest other queue's remote work.
    uint32_t other = i;
    for (uint32_t k = 0; k < queues_.size(); ++k)
      if (k != i && (other == i || queues_[k].size() > queues_[other].size())) other = k;
    const long remote = other == i ? -1 : FirstFit(other, i, free);
    if (remote >= 0) {
      const LpTask& task = Task(static_cast<size_t>(remote));
      const double penalty =
          std::max(1.0, (TaskDuration(in_, flat_[static_cast<size_t>(remote)], i) - task.shuffle) /
                            task.duration);
      if (local < 0 || static_cast<double>(queues_[other].size()) / penalty >
                           static_cast<double>(queues_[i].size()))
        return Take(other, remote);
    }
    return local >= 0 ? Take(i, local) : -1;
  }

 private:
  const LpTask& Task(size_t t) const { return in_.jobs[flat_[t].job].tasks[flat_[t].task]; }
  uint32_t FirstUsable(size_t t) const {
    for (uint32_t i = 0; i < queues_.size(); ++i)
      if (TaskDuration(in_, flat_[t], i) != kNotAllowed) return i;
    return 0;
  }
  // The first task of queue q that may run on machine i within `free`.
  long FirstFit(uint32_t q, uint32_t i, double free) const {
    for (size_t t : queues_[q])
      if (Task(t).demand <= free * (1 + 1e-9) && TaskDuration(in_, flat_[t], i) != kNotAllowed)
        return static_cast<long>(t);
    return -1;
  }
  long Take(uint32_t q, long t) {
    queues_[q].erase(std::find(queues_[q].begin(), queues_[q].end(), static_cast<size_t>(t)));
    return t;
  }
  const LpInstance& in_;
  std::vector<TaskRef> flat_;
  std::vector<std::deque<size_t>> queues_;
};

class Tetris : public ListPolicy {
 public:
  explicit Tetris(const LpInstance& in)
      : in_(in), flat_(FlattenTasks(in)), remaining_(in.jobs.size(), 0) {
    for (const TaskRef& t : flat_) remaining_[t.job] += Work(t);
  }

  void OnReady(size_t t, double) override { ready_.push_back(t); }

  long Pick(uint32_t i, double, double free) override {
    // One pass for the largest remaining work per weight (the normalizer), one for the best score.
    double max_rest = 0;
    for (size_t t : ready_) max_rest = std::max(max_rest, Rest(t));
    auto best = ready_.end();
    double best_score = 0;
    for (auto it = ready_.begin(); it != ready_.end(); ++it) {
      const LpTask& task = Task(flat_[*it]);
      if (task.demand > free * (1 + 1e-9) || TaskDuration(in_, flat_[*it], i) == kNotAllowed)
        continue;
      const double align =
          task.demand * free / (in_.capacity[i] * in_.capacity[i]) * (IsLocal(task, i) ? 1.0 : 0.9);
      const double score = align - (max_rest > 0 ? Rest(*it) / max_rest : 0);
      if (best == ready_.end() || score > best_score) best = it, best_score = score;
    }
    if (best == ready_.end()) return -1;
    const size_t t = *best;
    ready_.erase(best);
    remaining_[flat_[t].job] -= Work(flat_[t]);
    return static_cast<long>(t);
  }

 private:
  const LpTask& Task(TaskRef t) const { return in_.jobs[t.job].tasks[t.task]; }
  double Work(TaskRef t) const { return Task(t).demand * (Task(t).duration + Task(t).shuffle); }
  double Rest(size_t t) const { return remaining_[flat_[t].job] / in_.jobs[flat_[t].job].weight; }
  const LpInstance& in_;
  std::vector<TaskRef> flat_;
  std::vector<double> remaining_;  // per job: demand x run time of its unstarted tasks
  std::list<size_t> ready_;
};

Status Finish(const LpInstance& in, const BaselineOptions& options, ListPolicy& policy,
              SolverResult* result) {
  *result = SolverResult{};
  if (options.lower_bound) {
    IntervalLpResult lp;
    Status s =
        SolveIntervalLp(in, {options.epsilon, options.max_columns, LpStage::kAll, false}, &lp);
    if (!s.ok()) return s;
    result->lower_bound = lp.objective;
  }
  Status s = RunListScheduler(in, policy, &result->schedule);
  if (!s.ok()) return s;
  result->objective = WeightedCompletion(in, result->schedule);
  return Status::Ok();
}

}  // namespace

Status SolveJsqMaxWeight(const LpInstance& in, const BaselineOptions& options,
                         SolverResult* result) {
  JsqMaxWeight policy(in);
  return Finish(in, options, policy, result);
}

Status SolveTetris(const LpInstance& in, const BaselineOptions& options, SolverResult* result) {
  Tetris policy(in);
  return Finish(in, options, policy, result);
}

std::unique_ptr<ListPolicy> MakeJsqMaxWeightPolicy(const LpInstance& in) {
  return std::make_unique<JsqMaxWeight>(in);
}

std::unique_ptr<ListPolicy> MakeTetrisPolicy(const LpInstance& in) {
  return std::make_unique<Tetris>(in);
}

}  // namespace locsched
