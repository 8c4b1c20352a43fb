// LateBinding: a queued task is bound to no machine until a slot frees. It is
// indexed under every replica holder, and the first holder with a free slot
// takes it; a free slot prefers, by job order, a job with a task local to it.
// A task runs off its holders only when that is expected to end its job sooner
// than waiting for a holder (waits derived from the learnt rates and the job
// order, the job's last task weighed by task_time.h, and the delay to the tasks
// local to the slot's machine that arrive while it runs; no tuned constant). When
// the machines span racks, a slot with no local task prefers a task with a
// replica in its rack (RackIndex), under a rack-level wait. Owned by the
// Scheduler; single-threaded.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "algorithms/core/job_heap.h"
#include "algorithms/core/job_index.h"
#include "algorithms/core/job_ranks.h"
#include "algorithms/core/machine_fifos.h"
#include "algorithms/core/order_front.h"
#include "algorithms/core/policy.h"
#include "algorithms/core/rack_index.h"
#include "algorithms/core/remote_permits.h"

namespace locsched {

/// Late binding with a job-aware order and a rate-derived locality wait.
class LateBinding final : public Policy {
 public:
  LateBinding(const PolicyParams& params, Cluster& cluster);

  void AddMachine(MachineId m) override;
  void Enqueue(TaskId t) override;
  void Withdraw(TaskId t) override;
  /// Like a pick of t: its job's wait starts afresh (the longest-waiting order).
  void Assigned(TaskId t, MachineId m) override;
  Pick PickFor(MachineId m) override;
  /// PickFor, else the longest-waiting job's task even off its holders.
  Pick PickAnyFor(MachineId m) override;
  JobId FirstLocalJob(MachineId m) override;
  void OnJobChanged(JobId j) override;
  void OnMachineUnavailable(MachineId) override {}
  void OnMachineAvailable(MachineId) override {}
  void SetRates(double alpha, double gamma) override;
  void SetRackRate(double beta) override;
  void SetNow(double now_s) override { now_ = now_s; }
  QueueStats Stats() const override { return QueueStats{queued_, 0, 0}; }
  uint64_t LocalQueueLength(MachineId m) const override { return local_.count(m); }
  /// With job order `lp`: takes the LP's ranks and re-sorts the jobs; false otherwise.
  bool SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) override;
  /// Tasks a rebalance plan lets run off their holders (taken before the remote rule).
  RemotePermits& permits() { return permits_; }

  /// The wait after which running remotely is expected to finish sooner: 1/gamma - 1/alpha.
  double remote_wait() const { return remote_wait_; }
  /// The wait after which running in a holder's rack is expected to finish sooner:
  /// 1/beta - 1/alpha.
  double rack_wait() const { return rack_wait_; }
  /// True once the machines span more than one rack (the rack level is on).
  bool racks_in_use() const { return racks_in_use_; }
  /// Entries of the longest-waiting list, live or superseded (for tests).
  size_t progress_entries() const { return progress_.size(); }
  /// Expected wait of queued task t for a slot on one of its replica holders.
  double ExpectedLocalWait(TaskId t) const;
  /// Why queued task t waits, by PickFor's rules: a holder's free slot takes a local task
  /// by the job order; off its holders only the order's last job and the job waiting
  /// longest run, by MayRunOff; a job past the aging bound runs anywhere.
  WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const override;
  uint32_t JobsAhead(JobId j, uint32_t cap) const override;

 private:
  Pick Take(TaskId t, JobId j);
  void Unqueue(TaskId t);
  JobId LongestWaiting();
  JobId OldestWaiting() const;
  bool Aged(JobId oldest, double now) const;
  void MarkProgress(JobId j);
  bool Waiting(JobId j, double stamp) const;
  double AheadShare(JobId j) const;
  double OthersEnd(JobId j, double wait) const;
  bool MayRunOff(TaskId t, double off_mean, MachineId on) const;
  double DisplacedLocal(MachineId m, TaskId t, double off_mean) const;
  Pick OffHolder(MachineId m, JobId* from, TaskId* any);
  TaskId RackLocal(JobId j, MachineId m);
  bool QuickRemote(TaskId t) const;

  Cluster& cluster_;
  JobOrder job_order_;
  JobIndex index_;
  JobRanks ranks_;      // the `lp` order's ranks (read by order_'s comparator)
  MachineFifos local_;  // each machine's local tasks, oldest first
  OrderFront order_;    // the job order; finds a machine's first local job
  JobHeap back_;        // the same jobs, the order's last first
  RemotePermits permits_;
  std::vector<double> since_;                      // by job: last start, or when it queued
  std::deque<std::pair<JobId, double>> progress_;  // (job, since_) in time order, lazy
  std::vector<uint32_t> swept_;                    // by job: the last sweep that kept it
  uint32_t sweep_ = 0;
  std::vector<uint32_t> order_key_;  // by job: JobOrderKey when last placed
  double alpha_, gamma_, remote_wait_ = 0;
  // The rack level (rack_index.h): on once a machine's rack differs from machine 0's.
  RackIndex racks_;
  bool racks_in_use_ = false;
  double beta_, rack_wait_ = 0;
  double aging_;
  double cv_;  // task times' coefficient of variation (PolicyParams::duration_cv)
  double now_ = 0;
  uint64_t queued_ = 0;
  std::vector<double> joined_;  // by machine: when it was added (DisplacedLocal's rates)
};

}  // namespace locsched
