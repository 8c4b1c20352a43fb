// BaselinePolicy: the policies locsched is measured against, all choosing a
// job first and a task of it second. Naive fair sharing (fewest running tasks,
// a local task if it has one, else any), FIFO with greedy locality (Hadoop's
// default), and delay scheduling (fair order; a job without a local task is passed
// over until it has waited delay_wait since it last ran a local task or became
// runnable, then it may run remotely). Owned by the Scheduler; single-threaded.
#pragma once

#include "algorithms/core/job_heap.h"
#include "algorithms/core/job_index.h"
#include "algorithms/core/policy.h"

namespace locsched {

/// Naive fair sharing, FIFO, or delay scheduling, by params.kind.
class BaselinePolicy final : public Policy {
 public:
  /// params.kind must be kFair, kFifo or kDelay.
  BaselinePolicy(const PolicyParams& params, Cluster& cluster);

  void AddMachine(MachineId) override {}
  void Enqueue(TaskId t) override;
  void Withdraw(TaskId t) override {
    index_.Remove(t);
    --queued_;
  }
  Pick PickFor(MachineId m) override;
  void OnJobChanged(JobId j) override;
  void OnMachineUnavailable(MachineId) override {}
  void OnMachineAvailable(MachineId) override {}
  void SetRates(double, double) override {}
  void SetNow(double now_s) override { now_ = now_s; }
  QueueStats Stats() const override { return QueueStats{queued_, 0, 0}; }
  uint64_t LocalQueueLength(MachineId) const override { return 0; }

 private:
  Pick PickFromJob(JobId j, MachineId m);
  Pick PickDelay(MachineId m);

  Cluster& cluster_;
  PolicyKind kind_;
  double delay_wait_;
  double now_ = 0;
  JobIndex index_;
  JobHeap order_;
  uint64_t queued_ = 0;
};

}  // namespace locsched
