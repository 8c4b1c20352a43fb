// Tests OrderFront (algorithms/core/order_front.h) through late binding's free slot: on
// random clusters, jobs, orders and histories of starts, ends and requeues, the task a slot
// takes is the one a brute-force reference picks: the oldest task local to the machine of
// the first of the order's first kFront jobs with one, else the machine's oldest local task.
#include "algorithms/core/order_front.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "algorithms/core/late_binding.h"
#include "algorithms/core/scheduler.h"
#include "base/rng.h"

namespace locsched {
namespace {

// The reference: every queued task with the time it (last) joined the queue.
class Reference {
 public:
  explicit Reference(const Cluster& cluster, JobOrder order) : cluster_(cluster), order_(order) {}

  void Queued(TaskId t) { since_[t] = ++clock_; }
  void Left(TaskId t) { since_.erase(t); }

  // The task a free slot of m takes if m holds one's input, else kNoId.
  TaskId Pick(MachineId m) const {
    std::vector<JobId> jobs = RunnableInOrder();
    if (jobs.size() > OrderFront::kFront) jobs.resize(OrderFront::kFront);
    for (const JobId j : jobs)
      if (const TaskId t = OldestLocal(m, j); t != kNoId) return t;
    return OldestLocal(m, kNoId);
  }

 private:
  // Jobs with a queued task, first first, sorted by the order's definition.
  std::vector<JobId> RunnableInOrder() const {
    std::vector<JobId> jobs;
    for (const auto& [t, since] : since_) jobs.push_back(cluster_.task(t).job);
    std::sort(jobs.begin(), jobs.end());
    jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
    std::sort(jobs.begin(), jobs.end(), [this](JobId a, JobId b) { return First(a, b); });
    return jobs;
  }

  bool First(JobId a, JobId b) const {
    const Job& x = cluster_.job(a);
    const Job& y = cluster_.job(b);
    const auto key = [this](const Job& job) {
      return order_ == JobOrder::kFair ? job.running
                                       : static_cast<uint32_t>(job.tasks.size()) - job.done;
    };
    if (key(x) != key(y)) return key(x) < key(y);
    return x.seq < y.seq;
  }

  // The longest-queued task local to m (of job j, or of any job if j is kNoId).
  TaskId OldestLocal(MachineId m, JobId j) const {
    TaskId best = kNoId;
    uint64_t best_since = 0;
    for (const auto& [t, since] : since_) {
      const Task& task = cluster_.task(t);
      if (j != kNoId && task.job != j) continue;
      const auto& r = task.replicas;
      if (std::find(r.begin(), r.end(), m) == r.end()) continue;
      if (best == kNoId || since < best_since) {
        best = t;
        best_since = since;
      }
    }
    return best;
  }

  const Cluster& cluster_;
  JobOrder order_;
  std::map<TaskId, uint64_t> since_;
  uint64_t clock_ = 0;
};

struct Case {
  uint32_t machines, jobs, max_tasks, steps;
};

// One random history: jobs arrive, free slots take tasks (checked against the reference
// whenever the machine holds a queued task's input), tasks end or are requeued.
void RunHistory(JobOrder order, const Case& c, uint64_t seed) {
  PolicyParams p;
  p.kind = PolicyKind::kLateBinding;
  p.job_order = order;
  p.job_aging = 0;
  Scheduler s(p);
  for (uint32_t m = 0; m < c.machines; ++m) s.AddMachine(Machine{.slots = 1000});
  Reference ref(s.cluster(), order);
  Rng rng(seed);
  std::vector<TaskId> running;
  const auto submit = [&] {
    std::vector<std::vector<MachineId>> replicas(1 + rng.Below(c.max_tasks));
    std::vector<TaskSpec> specs(replicas.size());
    for (size_t i = 0; i < replicas.size(); ++i) {
      const uint32_t n = 1 + rng.Below(3);
      for (uint32_t k = 0; k < n; ++k) {
        const MachineId m = rng.Below(c.machines);
        if (std::find(replicas[i].begin(), replicas[i].end(), m) == replicas[i].end())
          replicas[i].push_back(m);
      }
      specs[i].replicas = replicas[i];
    }
    const JobId j = s.SubmitJob(1, specs);
    for (const TaskId t : s.cluster().job(j).tasks) ref.Queued(t);
  };
  for (uint32_t j = 0; j < c.jobs; ++j) submit();
  for (uint32_t step = 0; step < c.steps; ++step) {
    const uint32_t what = rng.Below(10);
    if (what < 6 || running.empty()) {
      const MachineId m = rng.Below(c.machines);
      const TaskId want = ref.Pick(m);
      const auto a = s.Assign(m);
      if (want != kNoId) {
        REQUIRE(a);
        REQUIRE(a->task == want);
      }
      if (a) {
        ref.Left(a->task);
        running.push_back(a->task);
      }
    } else if (what < 9) {
      const size_t i = rng.Below(static_cast<uint32_t>(running.size()));
      const TaskId t = running[i];
      running[i] = running.back();
      running.pop_back();
      if (what < 8) {
        s.Finish(t);
      } else {
        s.Requeue(t);
        ref.Queued(t);
      }
    } else {
      submit();
    }
  }
}

TEST_CASE("Late binding's order front: a slot takes the first local job's oldest task",
          "[late][core]") {
  // Few jobs (all in the front), about the front's size, and many more (the front's
  // boundary moves); few machines (many jobs local to each) and many.
  const Case cases[] = {
      {4, 5, 6, 400}, {20, 60, 8, 1500}, {30, 200, 5, 3000}, {200, 120, 20, 2000}};
  for (const JobOrder order : {JobOrder::kSrpt, JobOrder::kFair}) {
    for (const Case& c : cases) {
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        INFO("order " << static_cast<int>(order) << " machines " << c.machines << " jobs " << c.jobs
                      << " seed " << seed);
        RunHistory(order, c, seed);
      }
    }
  }
}

}  // namespace
}  // namespace locsched
