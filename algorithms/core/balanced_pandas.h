// BalancedPandas: Balanced-PANDAS (Xie, Yekkehkhany and Lu; GB-PANDAS). Each
// machine keeps a local, a rack-local and a remote queue; its weighted workload
// is W_m = (Q_local/alpha + Q_rack/beta + Q_remote/gamma) / slots. An arriving
// task joins the machine minimising W_m / (the task's rate on m); a free slot
// serves local, then rack-local, then remote. Owned by the Scheduler;
// single-threaded.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/core/machine_heap.h"
#include "algorithms/core/policy.h"

namespace locsched {

/// Balanced-PANDAS routing and prioritised serving over three locality levels.
class BalancedPandas final : public Policy {
 public:
  /// Locality levels, in serving order; a task's queue is machine * kLevels + level.
  enum Level : uint32_t { kLocal = 0, kRack = 1, kRemote = 2, kLevels = 3 };

  BalancedPandas(const PolicyParams& params, Cluster& cluster);

  void AddMachine(MachineId m) override;
  void Enqueue(TaskId t) override;
  void EnqueueTo(TaskId t, uint32_t queue) override;
  void Withdraw(TaskId t) override;
  Pick PickFor(MachineId m) override;
  void OnJobChanged(JobId) override {}
  void OnMachineUnavailable(MachineId m) override;
  void OnMachineAvailable(MachineId m) override;
  void SetRates(double alpha, double gamma) override;
  void SetRackRate(double beta) override;
  QueueStats Stats() const override;
  uint64_t LocalQueueLength(MachineId m) const override { return length_[m * kLevels]; }

  /// Tasks in machine m's queue of `level`.
  uint32_t QueueLength(MachineId m, Level level) const { return length_[m * kLevels + level]; }
  /// Machine m's weighted workload W_m under the current rates.
  double Workload(MachineId m) const;
  /// True once the machines span more than one rack (the rack level is in use).
  bool racks_in_use() const { return racks_in_use_; }

 private:
  // task.queue of a task parked while no machine is usable.
  static constexpr uint32_t kParked = kNoId - 1;

  bool Usable(MachineId m) const;
  double Rate(Level level) const { return rate_[level]; }
  // The queue an arriving task t joins: machine * kLevels + level.
  uint32_t Route(TaskId t) const;
  // Expected wait at m before a task joining it starts: W_m, plus a slot's wait if full.
  double Wait(MachineId m) const;
  void Push(TaskId t, uint32_t queue);
  void Unlink(TaskId t);
  void Rekey(MachineId m);
  void RekeyAll();

  Cluster& cluster_;
  std::array<double, kLevels> rate_{};
  std::array<double, kLevels> keyed_rate_{};  // the rates the heap keys were computed with
  std::vector<TaskId> head_, tail_;           // by queue
  std::vector<uint32_t> length_;              // by queue
  std::vector<uint32_t> rack_;                // by machine, as added
  MachineHeap all_;                           // usable machines by W_m
  std::vector<MachineHeap> by_rack_;          // usable machines of each rack by W_m
  bool racks_in_use_ = false;
  std::vector<TaskId> parked_;  // tasks waiting for any usable machine
  uint64_t queued_ = 0;
};

}  // namespace locsched
