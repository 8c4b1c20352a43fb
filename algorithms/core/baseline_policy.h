// BaselinePolicy: the policies locsched is measured against, all choosing a
// job first and a task of it second. Naive fair sharing (fewest running tasks,
// a local task if it has one, else any), FIFO with greedy locality (Hadoop's
// default), and delay scheduling (fair order; a job without a local task is passed
// over until it has waited delay_wait since it last ran a local task or became
// runnable, then it may run remotely). Owned by the Scheduler; single-threaded.
#pragma once

#include <utility>
#include <vector>

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
  void Withdraw(TaskId t) override;
  /// Like a pick of t: under delay scheduling a local start restarts its job's wait.
  void Assigned(TaskId t, MachineId m) override;
  Pick PickFor(MachineId m) override;
  /// A slot kept for this policy's queue (QueueSharing::KeepSlot): delay scheduling runs
  /// the first job of its order there without its wait, off the holders if need be.
  Pick PickAnyFor(MachineId m) override;
  void OnJobChanged(JobId j) override;
  void OnMachineUnavailable(MachineId) override {}
  void OnMachineAvailable(MachineId) override {}
  void SetRates(double, double) override {}
  void SetNow(double now_s) override { now_ = now_s; }
  QueueStats Stats() const override { return QueueStats{queued_, 0, 0}; }
  uint64_t LocalQueueLength(MachineId) const override { return 0; }
  /// Why queued task t waits, by PickFor's rules: fair and fifo serve the first job of the
  /// order on any free slot; delay scheduling runs a job off its holders only after W.
  WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const override;
  uint32_t JobsAhead(JobId j, uint32_t cap) const override;

 private:
  Pick PickFromJob(JobId j, MachineId m);
  Pick PickDelay(MachineId m);
  void RestartWait(JobId j);
  // Delay scheduling's shortcut past a walk that must come up empty: a machine
  // that holds no queued task's input, while no job has waited delay_wait, idles.
  void CountHolders(TaskId t, int delta);
  void NoteWaitSince(JobId j);
  bool NoJobHasWaited();
  bool WaitIsLive(const std::pair<double, JobId>& e) const;
  // Delay scheduling's rule: seconds until job j may run off its holders (<= 0: it may).
  double RemoteIn(const Job& job, double now) const { return delay_wait_ - (now - job.wait_since); }
  WaitInfo ExplainDelay(TaskId t, const WaitFacts& facts, WaitInfo info) const;

  Cluster& cluster_;
  PolicyKind kind_;
  double delay_wait_;
  double now_ = 0;
  JobIndex index_;
  JobHeap order_;
  uint64_t queued_ = 0;
  std::vector<uint32_t> holders_;              // delay: queued tasks with a replica on each machine
  using WaitEntry = std::pair<double, JobId>;  // (wait_since, job); stale ones popped lazily
  std::vector<WaitEntry> waits_;               // a min-heap by wait_since
};

}  // namespace locsched
