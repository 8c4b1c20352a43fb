#include "algorithms/lp/preemptive_list.h"

#include <algorithm>
#include <limits>
#include <string>

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The run's state: what is left of each item and task, and each task's open piece.
struct State {
  const LpInstance& in;
  std::vector<TaskRef> flat;
  std::vector<WorkItem> items;
  std::vector<double> left;        // per item: run time still needed
  std::vector<size_t> items_left;  // per task
  std::vector<size_t> maps_left;   // per job
  std::vector<long> open;          // per task: index of its open piece in the schedule, or -1
  Schedule* schedule;

  bool Ready(size_t t, double now) const {
    const TaskRef r = flat[t];
    if (in.jobs[r.job].release > now) return false;
    return in.jobs[r.job].tasks[r.task].kind == LpTaskKind::kMap || maps_left[r.job] == 0;
  }
  // The items that run from `now` until the next event.
  std::vector<size_t> Pick(double now) const {
    std::vector<double> free = in.capacity;
    std::vector<char> busy(flat.size(), 0);
    std::vector<size_t> run;
    for (size_t k = 0; k < items.size(); ++k) {
      const WorkItem& w = items[k];
      if (left[k] <= 0 || busy[w.task] || !Ready(w.task, now)) continue;
      const double demand = in.jobs[flat[w.task].job].tasks[flat[w.task].task].demand;
      if (demand > free[w.machine] * (1 + 1e-9)) continue;
      free[w.machine] -= demand;
      busy[w.task] = 1;
      run.push_back(k);
    }
    return run;
  }
  // Closes the pieces of tasks that stop or move, opens pieces for new ones.
  void Record(const std::vector<size_t>& run, double now) {
    std::vector<long> next(flat.size(), -1);
    for (size_t k : run) {
      const size_t t = items[k].task;
      const long o = open[t];
      if (o >= 0 && (*schedule)[static_cast<size_t>(o)].machine == items[k].machine) {
        next[t] = o;
        continue;
      }
      schedule->push_back({flat[t].job, flat[t].task, items[k].machine, now, now});
      next[t] = static_cast<long>(schedule->size() - 1);
    }
    open = std::move(next);
  }
};

}  // namespace

Status RunPreemptiveList(const LpInstance& in, std::vector<WorkItem> items, Schedule* schedule) {
  std::stable_sort(items.begin(), items.end(),
                   [](const WorkItem& a, const WorkItem& b) { return a.key < b.key; });
  schedule->clear();
  State s{in, FlattenTasks(in), std::move(items), {}, {}, {}, {}, schedule};
  s.items_left.assign(s.flat.size(), 0);
  s.maps_left.assign(in.jobs.size(), 0);
  s.open.assign(s.flat.size(), -1);
  for (const WorkItem& w : s.items) {
    s.left.push_back(w.share * TaskDuration(in, s.flat[w.task], w.machine));
    ++s.items_left[w.task];
  }
  for (const TaskRef& r : s.flat)
    s.maps_left[r.job] += in.jobs[r.job].tasks[r.task].kind == LpTaskKind::kMap;
  size_t remaining = s.items.size();
  double now = 0;
  while (remaining > 0) {
    const std::vector<size_t> run = s.Pick(now);
    s.Record(run, now);
    double next = kInf;
    for (size_t k : run) next = std::min(next, now + s.left[k]);
    for (const LpJob& job : in.jobs)
      if (job.release > now) next = std::min(next, job.release);
    if (next == kInf)
      return Status::Internal("preemptive_list", std::to_string(remaining) + " items never run");
    for (size_t k : run) {
      const size_t t = s.items[k].task;
      (*schedule)[static_cast<size_t>(s.open[t])].end = next;
      s.left[k] -= next - now;
      if (s.left[k] > 1e-9 * std::max(1.0, next)) continue;
      s.left[k] = 0;
      --remaining;
      if (--s.items_left[t] == 0 &&
          in.jobs[s.flat[t].job].tasks[s.flat[t].task].kind == LpTaskKind::kMap)
        --s.maps_left[s.flat[t].job];
    }
    now = next;
  }
  return Status::Ok();
}

}  // namespace locsched
