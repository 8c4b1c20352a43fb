// Helpers shared by the LP solver tests: seeded random instances and a
// brute-force optimum for tiny ones. Test-only; single-threaded.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/machine_profile.h"
#include "algorithms/lp/offline_schedule.h"
#include "base/rng.h"

namespace locsched {

// The shape of a random instance.
struct RandomShape {
  uint32_t machines = 3;
  uint32_t jobs = 4;
  uint32_t max_tasks = 3;    // per job
  bool reduces = true;       // some tasks are reduces
  bool releases = true;      // jobs released at 0..6
  bool remote = true;        // some tasks have a remote penalty
  bool full_demand = false;  // every task takes a whole machine (the MapReduce papers' model)
  bool single = false;       // one placement machine per task, no remote penalty
};

inline LpInstance RandomInstance(uint64_t seed, const RandomShape& shape) {
  Rng rng(seed);
  LpInstance in;
  for (uint32_t i = 0; i < shape.machines; ++i) in.capacity.push_back(1.0 + rng.Below(2));
  const double min_cap = *std::min_element(in.capacity.begin(), in.capacity.end());
  for (uint32_t j = 0; j < shape.jobs; ++j) {
    LpJob job;
    job.weight = 1 + rng.Below(5);
    job.release = shape.releases ? rng.Below(7) : 0;
    const uint32_t tasks = 1 + rng.Below(shape.max_tasks);
    for (uint32_t k = 0; k < tasks; ++k) {
      LpTask t;
      t.demand = shape.full_demand ? min_cap : min_cap * (1 + rng.Below(4)) / 4.0;
      t.duration = 1 + rng.Below(8);
      t.placement.push_back(rng.Below(shape.machines));
      if (!shape.single && shape.machines > 1 && rng.Below(2)) {
        const uint32_t other = rng.Below(shape.machines);
        if (other != t.placement[0]) t.placement.push_back(other);
      }
      if (shape.remote && !shape.single && rng.Below(2))
        t.remote_penalty = 1.5 + rng.Below(4) * 0.5;
      if (shape.reduces && k > 0 && rng.Below(3) == 0) {
        t.kind = LpTaskKind::kReduce;
        if (rng.Below(2)) t.shuffle = 1 + rng.Below(3);  // shuffle on the reduce's machine
      }
      job.tasks.push_back(t);
    }
    in.jobs.push_back(job);
  }
  if (shape.full_demand)  // equal capacities, so a task takes any machine it may use whole
    std::fill(in.capacity.begin(), in.capacity.end(), min_cap);
  return in;
}

// The optimum sum w_j C_j by enumeration: every order of the tasks (maps of a job
// before its reduces) and every usable machine per task, each schedule built by
// serial list scheduling (earliest fit), which reaches every active schedule and so
// an optimal one. Only for a handful of tasks.
inline double BruteForceOptimum(const LpInstance& in) {
  const std::vector<TaskRef> flat = FlattenTasks(in);
  std::vector<size_t> order(flat.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<uint32_t> machine(flat.size(), 0);
  double best = std::numeric_limits<double>::infinity();
  auto kind = [&](size_t t) { return in.jobs[flat[t].job].tasks[flat[t].task].kind; };
  // Recursion over the machine of each task, then over all task orders.
  std::function<void(size_t)> choose = [&](size_t t) {
    if (t < flat.size()) {
      for (uint32_t i = 0; i < in.capacity.size(); ++i)
        if (TaskDuration(in, flat[t], i) != kNotAllowed) machine[t] = i, choose(t + 1);
      return;
    }
    std::sort(order.begin(), order.end());
    do {
      std::vector<MachineProfile> profiles;
      for (double c : in.capacity) profiles.emplace_back(c);
      std::vector<double> maps_end(in.jobs.size(), 0.0);
      std::vector<size_t> maps_left(in.jobs.size(), 0);
      for (size_t u = 0; u < flat.size(); ++u)
        maps_left[flat[u].job] += kind(u) == LpTaskKind::kMap;
      Schedule s;
      bool valid = true;
      for (size_t u : order) {
        const TaskRef r = flat[u];
        if (kind(u) == LpTaskKind::kReduce && maps_left[r.job] > 0) {
          valid = false;
          break;
        }
        const double p = TaskDuration(in, r, machine[u]);
        const double demand = in.jobs[r.job].tasks[r.task].demand;
        double ready = in.jobs[r.job].release;
        if (kind(u) == LpTaskKind::kReduce) ready = std::max(ready, maps_end[r.job]);
        const double start = profiles[machine[u]].EarliestStart(ready, p, demand);
        profiles[machine[u]].Add(start, p, demand);
        s.push_back({r.job, r.task, machine[u], start, start + p});
        if (kind(u) == LpTaskKind::kMap) {
          maps_end[r.job] = std::max(maps_end[r.job], start + p);
          --maps_left[r.job];
        }
      }
      if (valid) best = std::min(best, WeightedCompletion(in, s));
    } while (std::next_permutation(order.begin(), order.end()));
  };
  choose(0);
  return best;
}

}  // namespace locsched
