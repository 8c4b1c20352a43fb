#include "algorithms/machine_profile.h"

#include <algorithm>

namespace locsched {
namespace {
constexpr double kSlack = 1e-9;  // capacity comparisons forgive rounding
}  // namespace

double MachineProfile::PeakDuring(double start, double end) const {
  // The usage is piecewise constant and only rises at task starts, so the peak
  // over [start, end) is attained at `start` or at a task start inside it.
  double peak = 0;
  auto usage_at = [&](double t) {
    double used = 0;
    for (const Busy& b : busy_)
      if (b.start <= t && t < b.end) used += b.demand;
    return used;
  };
  peak = usage_at(start);
  for (const Busy& b : busy_)
    if (b.start > start && b.start < end) peak = std::max(peak, usage_at(b.start));
  return peak;
}

double MachineProfile::EarliestStart(double ready, double duration, double demand) const {
  // Candidates: `ready` and every end of a placed task after it, in time order;
  // the first at which the task fits is the earliest (usage only drops at ends).
  std::vector<double> candidates{ready};
  for (const Busy& b : busy_)
    if (b.end > ready) candidates.push_back(b.end);
  std::sort(candidates.begin(), candidates.end());
  for (double s : candidates)
    if (PeakDuring(s, s + duration) + demand <= capacity_ * (1 + kSlack)) return s;
  return candidates.back();  // unreachable: after the last end the machine is empty
}

void MachineProfile::Add(double start, double duration, double demand) {
  busy_.push_back({start, start + duration, demand});
}

}  // namespace locsched
