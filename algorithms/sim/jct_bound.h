// JctBound: lower bounds on the job completion times of one simulated run, from each
// task's drawn local work (what it takes on a replica holder; anywhere else it takes at
// least as long). Every simulator reports them next to its mean: the trace simulators
// (TraceJctBound, from SummarizeJct) and the slotted model (WindowJctBound, fed as jobs
// arrive and finish). The proofs are in docs/simulator.md, "Lower bound". Pure;
// single-threaded; each object belongs to one run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// A lower bound on how long one phase of a job lasts (its maps, or its reduces: every
/// task of the phase starts after the phase begins and ends before it ends) on `slots`
/// slots that each run one task at a time, without preemption, a task holding its slot
/// at least its local work. The largest of: the longest task; the total work / slots;
/// and for every r >= 1 with r x slots < n, the r + 1 shortest of the r x slots + 1
/// longest tasks back to back (some slot runs r + 1 of those). With equal works w that
/// is ceil(n / slots) x w: the phase's waves. Reorders `works`; 0 for no task.
double PhaseBound(std::span<double> works, uint64_t slots);

/// Preemptive shortest-remaining-work-first on one server `speed` times as fast as a
/// slot: its total flow time, the least of any schedule of the same jobs on one such
/// server (Schrage 1968), hence of any schedule on `speed` slots (one server that fast
/// can run, at every instant, the same work as all of them).
class SrptFlow {
 public:
  explicit SrptFlow(double speed) : speed_(speed) {}
  /// A job of `work` released at `at` (never before the last release).
  void Release(double at, double work);
  /// Runs every released job to its end; returns the sum of (end - release).
  double Drain();

 private:
  struct Job {
    double left, release;
  };
  void RunUntil(double t);

  double speed_;
  double now_ = 0, flow_ = 0;
  std::vector<Job> heap_;  // least work left on top
};

/// The bounds of one run, over the jobs its figures count.
struct JctBound {
  uint64_t jobs = 0;              ///< jobs counted
  double critical_path_mean = 0;  ///< mean of each job's own bound (its phases)
  double srpt_mean = 0;           ///< SrptFlow's mean flow time (corrected, WindowJctBound)
  double mean = 0;                ///< the larger: a lower bound on the mean JCT
  double weighted = 0;            ///< sum of w_j x critical path_j: bounds sum w_j JCT_j
  double weight = 0;              ///< sum of w_j
  double weighted_mean() const {  ///< weighted / weight: bounds the weighted mean JCT
    return weight > 0 ? weighted / weight : 0;
  }
};

/// How fast a trace run's slots can run the local work of tasks held by given machines
/// (TraceRun::Start): a slot runs it at rate 1 on a replica holder, 1 / rack slowdown
/// elsewhere in a holder's rack (with two racks or more), and 1 / remote slowdown on any
/// other machine. So no schedule runs those tasks' local work faster than Of(holders) at
/// any instant: a skewed cluster, or a rack that holds nothing, runs below its slot count.
class HolderRate {
 public:
  explicit HolderRate(const TraceClusterModel& c);
  /// The local work per second of every slot together for tasks whose replicas are all
  /// on `holders` (machine ids, repeats allowed): between slots() / remote slowdown and
  /// slots().
  double Of(std::span<const MachineId> holders);
  uint64_t slots() const { return uint64_t{machines_} * slots_per_machine_; }

 private:
  uint32_t RackOf(MachineId m) const;

  uint32_t machines_, slots_per_machine_, racks_;
  double rack_rate_, remote_rate_;      // 1 / their slowdowns
  std::vector<uint32_t> rack_size_;     // machines per rack
  std::vector<uint32_t> machine_seen_;  // the call that last counted a machine ...
  std::vector<uint32_t> rack_seen_;     // ... and a rack
  uint32_t call_ = 0;
};

/// The bound over the jobs of a trace run that finished (jct_s[j] >= 0): each task's local
/// time is work[t] x c.local_mean_s. A job's critical path is the bound of its maps plus
/// that of its reduces (they start once every map has ended); a phase lasts at least
/// PhaseBound on c's slots and its local work over HolderRate's rate for its tasks'
/// replicas. SrptFlow runs those jobs released at their submit times, each of its whole
/// local work, on one server as fast as HolderRate's rate for every counted task's
/// replicas. Weights from w (none: 1).
JctBound TraceJctBound(const TraceWorkload& w, std::span<const double> work,
                       const TraceClusterModel& c, std::span<const double> jct_s);

/// The bound for a run that counts the jobs that arrive in its window and finish before
/// it stops, known only as they finish (the slotted model): Arrive every job of the
/// window in time order, Done those that finish. SrptFlow runs every arrived job; a job
/// left unfinished when the run stops at `end` could have been finished by end + (the
/// unfinished jobs' work) / speed, so the counted jobs' flow times sum to at least SRPT's
/// total less that much for each unfinished job (docs/simulator.md).
class WindowJctBound {
 public:
  explicit WindowJctBound(double speed) : srpt_(speed), speed_(speed) {}
  void Arrive(double at, double work);
  /// A job that arrived at `at` finished; its own bound and weight.
  void Done(double at, double work, double critical_path, double weight);
  /// The bound of the counted jobs for a run that stopped at `end`. Once.
  JctBound Finish(double end);

 private:
  SrptFlow srpt_;
  double speed_;
  uint64_t arrived_ = 0;
  double arrived_at_ = 0, arrived_work_ = 0;  // sums over the arrived jobs
  double done_at_ = 0, done_work_ = 0;        // ... and over the finished ones
  JctBound b_;
};

}  // namespace locsched
