// MachineProfile: the capacity in use on one machine over time, for packing tasks
// non-preemptively at the earliest instant they fit (serial list scheduling).
// Owned by one solver run (SynchPack-2, MRS stages, tests' brute force); single-threaded.
#pragma once

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
  struct Busy {
    double start, end, demand;
  };
  // The peak demand in use during [start, end).
  double PeakDuring(double start, double end) const;
  double capacity_;
  std::vector<Busy> busy_;
};

}  // namespace locsched
