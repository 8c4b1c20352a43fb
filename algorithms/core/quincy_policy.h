// QuincyPolicy: Quincy (Isard et al., SOSP 2009) as a pull policy. On the first
// free slot after the queue, the free slots or the clock changed, it solves one
// min-cost flow (algorithms/quincy/quincy_flow.h) over the queued tasks and the
// machines with free slots: a run on a holder costs nothing, one in a holder's
// rack or anywhere else the time it loses at the learnt rates (1/beta - 1/alpha,
// 1/gamma - 1/alpha), and leaving a task queued its wait so far. PickFor(m)
// hands out what the flow placed on m. Only the tasks that can be placed in an
// optimal flow enter the network (the oldest per entry node, see Candidates).
// Fairness (PolicyParams::quincy_fair): a job running fewer tasks than its fair
// share of the slots must have that many more placed, as far as free slots allow
// (Quincy's lower bound on a job's running tasks; no preemption).
// Owned by the Scheduler (through MakePolicy); single-threaded.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "algorithms/core/policy.h"

namespace locsched {

struct QuincyProblem;

/// Quincy's flow, re-solved when stale, as a Policy.
class QuincyPolicy final : public Policy {
 public:
  QuincyPolicy(const PolicyParams& params, Cluster& cluster);

  void AddMachine(MachineId m) override;
  void Enqueue(TaskId t) override;
  void Withdraw(TaskId t) override;
  Pick PickFor(MachineId m) override;
  /// A slot kept for this policy's queue (QueueSharing::KeepSlot): what the flow placed on
  /// m, else the task queued longest, wherever its input is.
  Pick PickAnyFor(MachineId m) override;
  void OnJobChanged(JobId j) override;
  /// Its queued local tasks left without a live holder join the orphans (see AddTask).
  void OnMachineUnavailable(MachineId m) override;
  void OnMachineAvailable(MachineId) override { dirty_ = true; }
  /// New rates change the costs of the next solve (they do not force one).
  void SetRates(double alpha, double gamma) override;
  void SetRackRate(double beta) override;
  void SetNow(double now_s) override { now_ = now_s; }
  QueueStats Stats() const override { return QueueStats{queued_, 0, 0}; }
  uint64_t LocalQueueLength(MachineId m) const override;
  /// By the last solve: placed on a machine (it starts on that machine's heartbeat), or
  /// left unscheduled: its holders busy or down, their free slots given to tasks that
  /// waited longer, or its wait still below the cost of a run off its holders.
  WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const override;

  /// Flows solved so far (for tests and the benchmark).
  uint64_t solves() const { return solves_; }
  /// Tasks in the last solve's network.
  size_t last_network_tasks() const { return last_tasks_; }
  /// Where the last flow placed queued task t (kNoId: unscheduled, or taken since).
  MachineId planned(TaskId t) const { return t < planned_.size() ? planned_[t] : kNoId; }

 private:
  // A queued task as an index entry: live while serial_[task] == serial.
  struct Entry {
    TaskId task;
    uint32_t serial;
    double since;
  };
  struct Fifo {
    std::deque<Entry> q;
    uint32_t dead = 0;
  };

  bool Live(const Entry& e) const { return serial_[e.task] == e.serial; }
  bool HasLiveHolder(TaskId t) const;
  void Remove(TaskId t);
  Pick Picked(TaskId t, MachineId m);
  void Bury(Fifo& f);
  void Solve();
  size_t ScanMachines(QuincyProblem& p, size_t* slots);
  void Take(Fifo& f, size_t k, double min_wait, std::vector<TaskId>& out);
  std::vector<TaskId> Candidates(const QuincyProblem& p, size_t k);
  void AddTask(QuincyProblem& p, TaskId t, std::vector<JobId>& jobs);
  void AddOrphans(std::vector<TaskId>& out);
  void FairShares(size_t free, size_t slots);
  void AddForced(std::vector<TaskId>& out);
  void BoundUnscheduled(QuincyProblem& p, const std::vector<JobId>& jobs) const;
  double NextThreshold() const;
  int64_t Cost(double seconds) const;

  Cluster& cluster_;
  double alpha_, gamma_, beta_;
  double remote_wait_ = 0, rack_wait_ = 0;  // seconds a run off holders loses
  double now_ = 0;
  bool racks_in_use_ = false;
  bool fair_;
  bool dirty_ = true;
  double next_solve_ = std::numeric_limits<double>::infinity();
  uint64_t queued_ = 0, solves_ = 0;
  size_t last_tasks_ = 0;
  uint32_t stamp_ = 0;
  std::vector<uint32_t> serial_;     // by task: bumped on enqueue and on removal
  std::vector<double> since_;        // by task: when it was queued
  std::vector<MachineId> planned_;   // by task: where the last flow placed it
  std::vector<uint32_t> seen_;       // by task: stamp_ of the last solve that took it
  std::vector<uint32_t> running_;    // by job: running count last seen
  std::vector<uint32_t> job_slot_;   // by job: dense index in the solve (stamped)
  std::vector<uint32_t> job_stamp_;  // by job: stamp_ of that index
  std::vector<uint32_t> active_at_;  // by job: its index in active_, kNoId if none
  std::vector<JobId> active_;        // jobs with tasks queued or running
  std::vector<Fifo> by_job_;         // by job: its queued tasks, oldest first
  std::vector<std::pair<JobId, uint32_t>> forced_;  // (job, tasks it must place) this solve
  std::vector<std::vector<TaskId>> plan_;           // by machine: tasks the flow put there
  std::vector<MachineId> planned_machines_;
  std::vector<uint32_t> free_seen_;  // by machine: free slots at the last solve, less picks
  std::deque<Entry> orphans_;  // queued tasks that had no live holder (few; rebuilt each solve)
  Fifo all_;                   // every queued task, oldest first
  std::vector<Fifo> local_;    // by machine: its queued local tasks, oldest first
  std::vector<Fifo> rack_;     // by rack: queued tasks with a replica there, oldest first
};

}  // namespace locsched
