// QueueMeter: how well tenant queues get their guarantees in a simulated run. Fed each
// queue's held slots and demand at every instant the run changes them (piecewise constant
// in between), it measures per queue the time-to-guarantee episodes (from the moment the
// queue holds less than min(demand, guarantee) to the moment it holds that) and the
// share-deficit-seconds, integral of max(0, min(demand, g C) - held) / C dt. Pure and
// single-threaded; TraceSim owns one when it runs a queue tree.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace locsched {

/// One queue's guarantee figures over a run.
struct QueueMeterResult {
  std::vector<double> ttg_s;   ///< every closed time-to-guarantee episode, in order
  uint64_t open_episodes = 0;  ///< episodes still open when the run ended
  double ttg_p50_s = 0;        ///< median of ttg_s (0 without episodes)
  double ttg_p99_s = 0;        ///< 99th percentile of ttg_s
  double share_deficit_s = 0;  ///< integral of max(0, target - held) / capacity dt
};

class QueueMeter {
 public:
  /// `guarantee_slots[q]`: queue q's guarantee in slots (its fraction of the cluster times
  /// `capacity`, floored: whole slots are what a queue can hold); capacity: the cluster's slots.
  QueueMeter(std::vector<uint32_t> guarantee_slots, uint32_t capacity);
  /// The state from `now` on: held[q] slots running, demand[q] tasks running or waiting
  /// (admitted ones). Times must not decrease.
  void Observe(double now, std::span<const uint32_t> held, std::span<const uint32_t> demand);
  /// Closes the integrals at `now` and returns each queue's figures.
  std::vector<QueueMeterResult> Finish(double now);

 private:
  std::vector<uint32_t> guarantee_;
  double capacity_;
  double last_ = 0;
  std::vector<uint32_t> gap_;  // per queue: max(0, target - held) since last_
  std::vector<double> since_;  // per queue: when its open episode began (< 0: none)
  std::vector<QueueMeterResult> out_;
};

}  // namespace locsched
