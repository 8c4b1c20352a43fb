#include "algorithms/lp/list_scheduler.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <utility>

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The engine's state: ready bookkeeping, running tasks and free capacity.
struct Engine {
  const LpInstance& in;
  ListPolicy& policy;
  std::vector<TaskRef> flat;
  std::vector<size_t> first;               // per job: flat index of its first task
  std::vector<size_t> maps_left;           // per job
  std::vector<double> free;                // per machine
  using Done = std::pair<double, size_t>;  // (end, flat task)
  std::priority_queue<Done, std::vector<Done>, std::greater<Done>> running;
  std::vector<uint32_t> machine_of;
  size_t started = 0;

  const LpTask& Task(size_t t) const { return in.jobs[flat[t].job].tasks[flat[t].task]; }
  void ReadyKind(uint32_t j, LpTaskKind kind, double now) {
    for (size_t k = 0; k < in.jobs[j].tasks.size(); ++k)
      if (in.jobs[j].tasks[k].kind == kind) policy.OnReady(first[j] + k, now);
  }
  void Release(uint32_t j, double now) {
    ReadyKind(j, LpTaskKind::kMap, now);
    if (maps_left[j] == 0) ReadyKind(j, LpTaskKind::kReduce, now);
  }
  void Finish(size_t t, double now) {
    free[machine_of[t]] += Task(t).demand;
    const uint32_t j = flat[t].job;
    if (Task(t).kind == LpTaskKind::kMap && --maps_left[j] == 0)
      ReadyKind(j, LpTaskKind::kReduce, now);
  }
  // Every machine starts tasks until its policy has none that fits.
  void Dispatch(double now, Schedule* schedule) {
    for (uint32_t i = 0; i < free.size(); ++i)
      for (long pick; (pick = policy.Pick(i, now, free[i])) >= 0;) {
        const size_t t = static_cast<size_t>(pick);
        const double p = TaskDuration(in, flat[t], i);
        free[i] -= Task(t).demand;
        machine_of[t] = i;
        running.push({now + p, t});
        schedule->push_back({flat[t].job, flat[t].task, i, now, now + p});
        ++started;
      }
  }
};

}  // namespace

Status RunListScheduler(const LpInstance& in, ListPolicy& policy, Schedule* schedule) {
  Engine e{in, policy, FlattenTasks(in), {}, {}, in.capacity, {}, {}, 0};
  e.machine_of.assign(e.flat.size(), 0);
  std::vector<uint32_t> releases(in.jobs.size());
  for (uint32_t j = 0; j < in.jobs.size(); ++j) {
    e.first.push_back(j == 0 ? 0 : e.first[j - 1] + in.jobs[j - 1].tasks.size());
    e.maps_left.push_back(static_cast<size_t>(
        std::count_if(in.jobs[j].tasks.begin(), in.jobs[j].tasks.end(),
                      [](const LpTask& t) { return t.kind == LpTaskKind::kMap; })));
    releases[j] = j;
  }
  std::stable_sort(releases.begin(), releases.end(),
                   [&](uint32_t a, uint32_t b) { return in.jobs[a].release < in.jobs[b].release; });
  schedule->clear();
  // Event loop: jump to the next release, completion or wake-up; apply every
  // event at that instant, then let each machine pack what fits.
  size_t next_release = 0;
  double now = 0;
  while (e.started < e.flat.size()) {
    const double t_release =
        next_release < releases.size() ? in.jobs[releases[next_release]].release : kInf;
    const double t_done = e.running.empty() ? kInf : e.running.top().first;
    now = std::min({t_release, t_done, policy.NextWake(now)});
    if (now == kInf)
      return Status::Internal("list_scheduler",
                              std::to_string(e.flat.size() - e.started) + " tasks never started");
    while (!e.running.empty() && e.running.top().first <= now) {
      const size_t t = e.running.top().second;
      e.running.pop();
      e.Finish(t, now);
    }
    for (; next_release < releases.size() && in.jobs[releases[next_release]].release <= now;
         ++next_release)
      e.Release(releases[next_release], now);
    e.Dispatch(now, schedule);
  }
  return Status::Ok();
}

}  // namespace locsched
