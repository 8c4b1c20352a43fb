// MachineProfile: the capacity in use on one machine over time, for packing tasks
// non-preemptively at the earliest instant they fit (serial list scheduling).
// Owned by one solver run (SynchPack-2, MRS stages, tests' brute force); single-threaded.
#pragma once

#include <cstddef>
#include <vector>

namespace locsched {

/// Tasks already placed on a machine of capacity `capacity`.
class MachineProfile {
 public:
  /// An empty machine.
  explicit MachineProfile(double capacity) : capacity_(capacity) {}
  /// The earliest start >= `ready` at which `demand` fits for `duration` (backfills gaps).
  double EarliestStart(double ready, double duration, double demand) const;
  /// Records a task holding `demand` during [start, start + duration).
  void Add(double start, double duration, double demand);

 private:
  // The usage as a step function: from points_[k].time to the next point the
  // machine holds points_[k].used; after the last point it is empty.
  struct Point {
    double time, used;
  };
  // The index of the last point at or before `t` (t >= 0).
  size_t Segment(double t) const;
  // Makes `t` a point (splitting its segment) and returns its index.
  size_t Split(double t);
  double capacity_;
  std::vector<Point> points_{{0.0, 0.0}};
};

}  // namespace locsched
