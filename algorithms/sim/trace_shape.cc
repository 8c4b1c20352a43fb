#include "algorithms/sim/trace_shape.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace locsched {

void ConcentrateReplicas(TraceWorkload& w, uint32_t machines, double share) {
  const auto hot = static_cast<uint32_t>(
      std::clamp(std::ceil(share * machines), 1.0, static_cast<double>(machines)));
  std::vector<MachineId> moved;
  for (uint32_t t = 0; t < w.num_tasks(); ++t) {
    const uint32_t b = w.replica_begin[t], e = w.replica_begin[t + 1];
    const uint32_t n = e - b;
    const uint32_t pool = std::max(hot, std::min(n, machines));
    moved.clear();
    for (uint32_t k = b; k < e; ++k) {
      MachineId m = w.replicas[k] % pool;
      while (std::find(moved.begin(), moved.end(), m) != moved.end()) m = (m + 1) % pool;
      moved.push_back(m);
    }
    std::copy(moved.begin(), moved.end(), w.replicas.begin() + b);
  }
}

std::string AddEmptyMachines(const ClusterShape& data, double share, ClusterShape* out) {
  if (!(share > 0 && share <= 10)) return "must be in (0, 10]";
  if (data.machines == 0) return "the cluster has no machine";
  const bool racked = data.racks > 1;
  if (racked && data.machines % data.racks != 0)
    return "with racks, the machines (" + std::to_string(data.machines) +
           ") must be a multiple of the racks (" + std::to_string(data.racks) +
           ") so that a new rack is the size of the others";
  // Whole new racks, or (without topology) machines; 1e-9 keeps 0.1 x 20 at 2, not 3.
  const double base = racked ? data.racks : data.machines;
  const double added = std::max(1.0, std::ceil(share * base - 1e-9));
  const double per = racked ? data.machines / data.racks : 1;
  if (data.machines + added * per > double{1 << 24})
    return "the grown cluster passes 2^24 machines";
  out->machines = data.machines + static_cast<uint32_t>(added * per);
  out->racks = racked ? data.racks + static_cast<uint32_t>(added) : data.racks;
  return "";
}

namespace {

// The new submit times of a burst (see Burst).
std::vector<double> BurstTimes(const TraceWorkload& w, const std::vector<uint32_t>& leaves,
                               uint32_t flood, double after_s) {
  const double start = w.jobs.front().submit_s;
  double first_other = -1;
  for (size_t j = 0; j < w.jobs.size(); ++j)
    if (leaves[j] != flood && first_other < 0) first_other = w.jobs[j].submit_s;
  std::vector<double> at(w.jobs.size());
  for (size_t j = 0; j < w.jobs.size(); ++j)
    at[j] = leaves[j] == flood ? start : start + after_s + (w.jobs[j].submit_s - first_other);
  return at;
}

// w's jobs in `order`, at times `at`.
TraceWorkload Reordered(const TraceWorkload& w, const std::vector<uint32_t>& order,
                        const std::vector<double>& at) {
  TraceWorkload out;
  std::vector<MachineId> replicas;
  for (const uint32_t j : order) {
    out.AddJob(at[j]);
    const TraceJob& job = w.jobs[j];
    for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t) {
      replicas.assign(w.replicas.begin() + w.replica_begin[t],
                      w.replicas.begin() + w.replica_begin[t + 1]);
      out.AddTask(w.kinds[t], replicas);
    }
    if (!w.weights.empty()) out.weights.push_back(w.weights[j]);
  }
  return out;
}

}  // namespace

std::string Burst(TraceWorkload& w, std::vector<uint32_t>* leaves, uint32_t flood, double after_s) {
  if (!(after_s >= 0 && after_s <= 1e6)) return "the delay must be in [0, 1e6] seconds";
  if (std::find(leaves->begin(), leaves->end(), flood) == leaves->end())
    return "the flooding queue has no job";
  const std::vector<double> at = BurstTimes(w, *leaves, flood, after_s);
  std::vector<uint32_t> order(w.jobs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return at[a] < at[b]; });
  w = Reordered(w, order, at);
  std::vector<uint32_t> moved(order.size());
  for (size_t i = 0; i < order.size(); ++i) moved[i] = (*leaves)[order[i]];
  *leaves = std::move(moved);
  return "";
}

}  // namespace locsched
