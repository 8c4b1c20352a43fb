#include "algorithms/lp/machine_profile.h"

#include <algorithm>
#include <limits>

namespace locsched {
namespace {
constexpr double kSlack = 1e-9;  // capacity comparisons forgive rounding
}  // namespace

size_t MachineProfile::Segment(double t) const {
  const auto it = std::upper_bound(points_.begin(), points_.end(), t,
                                   [](double v, const Point& p) { return v < p.time; });
  return it == points_.begin() ? 0 : static_cast<size_t>(it - points_.begin()) - 1;
}

size_t MachineProfile::Split(double t) {
  const size_t k = Segment(t);
  if (points_[k].time == t) return k;
  points_.insert(points_.begin() + static_cast<long>(k) + 1, Point{t, points_[k].used});
  return k + 1;
}

double MachineProfile::EarliestStart(double ready, double duration, double demand) const {
  // Walk the segments from `ready`: a segment too full to add `demand` pushes the
  // candidate start to its end; the first candidate whose window [s, s + duration)
  // has crossed only segments with room is the earliest fit.
  const double room = capacity_ * (1 + kSlack) - demand;
  double s = ready;
  for (size_t k = Segment(ready); k < points_.size(); ++k) {
    const double end =
        k + 1 < points_.size() ? points_[k + 1].time : std::numeric_limits<double>::infinity();
    if (points_[k].used > room) {
      s = std::max(s, end);
      continue;
    }
    if (end >= s + duration) return s;
  }
  return s;  // unreachable: the last segment is empty and endless
}

void MachineProfile::Add(double start, double duration, double demand) {
  const size_t first = Split(start);
  const size_t last = Split(start + duration);
  for (size_t k = first; k < last; ++k) points_[k].used += demand;
}

}  // namespace locsched
