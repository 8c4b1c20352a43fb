// OnlineSynchPack: SynchPack-L run online (the SynchPack paper's §7). At the start of
// geometrically growing intervals it solves the class LP of the jobs that have arrived and
// still hold unstarted tasks, and until the next re-solve starts ready tasks in that LP
// order on machines holding their input. A ListPolicy: driven by RunListScheduler (an
// instance with releases) or by the trace simulator (sim/list_trace_sim.h). Pure; one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/lp/class_lp.h"
#include "algorithms/lp/list_scheduler.h"
#include "algorithms/lp/lp_instance.h"

namespace locsched {

/// Knobs of online SynchPack.
struct OnlineSynchPackOptions {
  /// Re-solves at tau_0 = 0 and tau_k = tau_{k-1} + first_interval * growth^(k-1).
  double first_interval = 10;
  double growth = 1.02;  ///< >= 1
  /// A machine without a ready task of its own takes one from the longest queue of ready
  /// tasks local to another machine, if that queue holds more than k = spill x
  /// (remote_penalty - 1) x (that machine's capacity / demand) tasks: the task at position
  /// k, whose wait there would be about spill times what its remote run costs extra.
  /// 0: never.
  double spill = 2;
  /// The class LP solved at each re-solve; one machine group by default (its size does
  /// not grow with the machines).
  ClassLpOptions lp = {.epsilon = 1.0, .groups = 1};
};

/// The policy. Tasks the last solve did not see (their job arrived since) rank after the
/// ranked ones, by weight per task of their job (Smith's rule), then by index.
class OnlineSynchPack : public ListPolicy {
 public:
  OnlineSynchPack(const LpInstance& instance, const OnlineSynchPackOptions& options);
  void OnReady(size_t t, double now) override;
  long Pick(uint32_t machine, double now, double free) override;
  double NextWake(double now) override;

  size_t solves() const { return solves_; }      ///< LPs solved
  size_t failures() const { return failures_; }  ///< LPs that failed (the old order stayed)
  /// The job order of the last solve (input indices), for tests and reports.
  const std::vector<uint32_t>& last_order() const { return last_order_; }

 private:
  using Key = std::tuple<int, double, size_t>;  // (unranked?, rank or -Smith, flat task)
  Key KeyOf(size_t t) const;
  void Insert(size_t t);
  void Erase(size_t t);
  void Resolve(double now);
  long Best(const std::set<Key>& set, uint32_t machine, double free) const;
  long Spill(uint32_t machine, double free) const;
  void Resize(uint32_t m, size_t before);
  const LpTask& Task(size_t t) const { return in_.jobs[flat_[t].job].tasks[flat_[t].task]; }

  const LpInstance& in_;
  OnlineSynchPackOptions options_;
  std::vector<TaskRef> flat_;
  std::vector<size_t> first_;                    // per job: flat index of its first task
  std::vector<uint8_t> arrived_;                 // per job: a task of it was ready
  std::vector<uint8_t> ready_;                   // per task: ready, not started
  std::vector<uint8_t> started_;                 // per task
  std::vector<double> rank_;                     // per task: position in the last LP order, or -1
  std::vector<std::set<Key>> local_;             // per machine: ready tasks whose input it holds
  std::set<Key> anywhere_;                       // ready tasks without a placement
  std::set<std::pair<size_t, uint32_t>> sizes_;  // (|local_[m]|, m) for non-empty queues
  double next_solve_ = 0, interval_ = 0;
  size_t ready_count_ = 0, solves_ = 0, failures_ = 0;
  std::vector<uint32_t> last_order_;
};

}  // namespace locsched
