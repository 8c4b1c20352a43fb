#include "algorithms/sim/workload.h"

#include <algorithm>
#include <cmath>

namespace locsched {
namespace {

// 1 / ln(1 - rate): a geometric draw is 1 + floor(ln U / ln(1 - rate)).
double InvLog(double rate) {
  return rate >= 1 ? 0 : 1 / std::log1p(-rate);
}

// A geometric draw on {1, 2, ...} from ln U (U uniform in (0, 1]).
uint32_t Geometric(double log_u, double inv_log) {
  if (inv_log == 0) return 1;
  return static_cast<uint32_t>(std::min(1 + std::floor(log_u * inv_log), 4e9));
}

}  // namespace

Workload::Workload(const SimParams& p)
    : p_(p),
      rng_(p.seed * 0x9e3779b97f4a7c15ULL + 7),
      weight_rng_(p.seed * 0x9e3779b97f4a7c15ULL + 0x5eed),
      job_arrivals_(p.load / MeanJobSize(p)),
      inv_log_local_(InvLog(p.policy.alpha)),
      inv_log_remote_(InvLog(p.policy.gamma)),
      inv_log_size_(InvLog(1 / p.job_size_mean)),
      pareto_xm_(p.job_size_mean * (p.pareto_shape - 1) / p.pareto_shape),
      pareto_cap_(ParetoCap(p)) {}

uint32_t Workload::DrawJobSize() {
  switch (p_.size_dist) {
    case JobSizeDist::kFixed:
      return static_cast<uint32_t>(std::max(1.0, std::round(p_.job_size_mean)));
    case JobSizeDist::kGeometric:
      return Geometric(std::log(rng_.Unit()), inv_log_size_);
    case JobSizeDist::kPareto: {
      const double x = pareto_xm_ * std::pow(rng_.Unit(), -1 / p_.pareto_shape);
      return static_cast<uint32_t>(std::min<double>(std::ceil(x), pareto_cap_));
    }
  }
  return 1;
}

void Workload::DrawReplicas(std::vector<MachineId>& out) {
  const size_t first = out.size();
  while (out.size() - first < p_.replicas) {
    const MachineId m = rng_.Below(p_.data_machines);
    if (std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), m) == out.end())
      out.push_back(m);
  }
}

void Workload::Fill(uint64_t first, uint64_t count, ArrivalBatch& b) {
  b.first_slot = first;
  b.jobs_per_slot.clear();
  b.job_sizes.clear();
  b.job_weights.clear();
  b.replicas.clear();
  b.runs.clear();
  b.wide.clear();
  for (uint64_t s = 0; s < count; ++s) {
    const auto jobs = static_cast<uint32_t>(job_arrivals_(rng_));
    b.jobs_per_slot.push_back(jobs);
    for (uint32_t j = 0; j < jobs; ++j) {
      const uint32_t size = DrawJobSize();
      b.job_sizes.push_back(size);
      b.job_weights.push_back(p_.weight_max > 1 ? 1 + weight_rng_.Below(p_.weight_max) : 1);
      for (uint32_t k = 0; k < size; ++k) {
        DrawReplicas(b.replicas);
        // One uniform per task, read at both rates: the local and remote
        // durations of the same task are coupled, as in a speed-scaled run.
        const double log_u = std::log(rng_.Unit());
        const uint32_t local = Geometric(log_u, inv_log_local_);
        const uint32_t remote = Geometric(log_u, inv_log_remote_);
        b.runs.push_back(PackRuns(local, remote));
        if (b.runs.back() == kWideRuns)
          b.wide.push_back(WideRuns{b.runs.size() - 1, local, remote});
      }
    }
  }
}

}  // namespace locsched
