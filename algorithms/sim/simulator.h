// Simulator: the discrete-time model of Wang et al. (M machines, data on the
// first K, each task local to `replicas` distinct data machines, geometric
// service at rate alpha local / gamma remote, non-preemptive, Poisson job
// arrivals). It drives the same Scheduler the daemon uses. Pure and
// single-threaded: the caller measures wall time and prints.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/core/policy.h"

namespace locsched {

/// How many tasks a job brings.
enum class JobSizeDist {
  kFixed,      ///< always the mean (rounded)
  kGeometric,  ///< geometric on {1, 2, ...} with the given mean
  kPareto,     ///< heavy-tailed: ceil of a Pareto draw with the given mean and shape, capped
};

struct SimParams {
  PolicyParams policy;             ///< policy, intra order, alpha, gamma, delay wait (slots), seed
  uint32_t machines = 1000;        ///< M
  uint32_t data_machines = 800;    ///< K: machines 0..K-1 hold data
  uint32_t replicas = 3;           ///< replicas per task, distinct, <= K
  uint32_t slots_per_machine = 1;  ///< task slots on each machine
  double load = 640;               ///< mean task arrivals per time slot
  uint64_t slots = 100000;         ///< time slots to simulate
  uint64_t seed = 1;               ///< seeds arrivals and service times
  JobSizeDist size_dist = JobSizeDist::kGeometric;
  double job_size_mean = 300;    ///< mean tasks per job (see docs/simulator.md)
  double pareto_shape = 1.5;     ///< Pareto tail index (> 1)
  uint32_t job_size_max = 0;     ///< cap on a Pareto job's size; 0 means 100 x mean
  double warmup_fraction = 0.2;  ///< leading share of slots excluded from the figures
  uint64_t max_backlog = 0;      ///< stop early above this many tasks in system; 0 means 200 x M
  bool pipeline = true;          ///< generate arrivals on a second thread (same results)
  uint32_t weight_max = 1;       ///< job weights: uniform integers 1..weight_max (1: all weight 1)
  uint32_t replan_interval = 1;  ///< slots between calls of the replan hook (priority's LP)
};

/// The figures of one run; means are over the measurement window (after warm-up).
struct SimResult {
  double mean_tasks_in_system = 0;   ///< queued + running, time-averaged
  double mean_jobs_in_system = 0;    ///< concurrent jobs, time-averaged
  uint64_t tasks_in_system_end = 0;  ///< queued + running at the last slot
  bool measured = false;       ///< the run reached its measurement window (else figures are 0)
  bool stable = true;          ///< reached the end under the cap, without a sustained rise
  bool stopped_early = false;  ///< the backlog cap ended the run
  double growth = 0;           ///< fitted rise of tasks in system over the window
  double mean_job_delay = 0;   ///< slots from arrival to last task done (jobs arrived in window)
  double mean_task_delay = 0;  ///< slots from arrival to done (tasks of those jobs)
  double weighted_mean_job_delay = 0;  ///< sum w_j C_j / sum w_j over the same jobs
  /// Lower bounds over the same jobs, from each task's drawn local run (WindowJctBound):
  /// on mean_job_delay (the larger of its two parts: the mean critical path, and SRPT on
  /// one server as fast as every slot) and on weighted_mean_job_delay.
  double lower_bound_mean_job_delay = 0;
  double lower_bound_critical_path = 0, lower_bound_srpt = 0;
  double lower_bound_weighted_mean_job_delay = 0;
  double throughput = 0;      ///< tasks finished per slot in the window (any arrival)
  double locality = 0;        ///< share of tasks started in the window that ran local
  double offered_load = 0;    ///< measured task arrivals per slot
  double mean_job_size = 0;   ///< the size distribution's exact mean
  uint64_t slots = 0;         ///< slots actually simulated
  double capacity = 0;        ///< K*alpha + (M-K)*gamma, times slots per machine
  uint64_t jobs_arrived = 0;  ///< over the whole run
  uint64_t jobs_done = 0;     ///< jobs that arrived in the window and finished
  uint64_t tasks_done = 0;    ///< over the whole run
  std::vector<double> trace;  ///< tasks in system, averaged over 100 equal blocks of the run
};

/// A live view of a run, handed to the progress callback.
struct SimSnapshot {
  uint64_t slot = 0;             ///< slots done
  uint64_t total = 0;            ///< slots to do
  uint64_t tasks_in_system = 0;  ///< queued + running now
  uint64_t jobs_in_system = 0;   ///< jobs alive now
  double locality = 0;           ///< share of local starts in the window so far
};

/// Called about 200 times per run, and once at the end.
using SimProgress = std::function<void(const SimSnapshot&)>;

class Scheduler;
/// Called every replan_interval slots, after that slot's arrivals and before its free
/// slots are filled, with the core, the slot and each task's start slot (by task id;
/// meaningful for running tasks). The `priority` policy's LP re-solve plugs in here.
using SimReplan =
    std::function<void(Scheduler& sched, uint64_t slot, std::span<const uint64_t> started)>;

/// Checks params; returns an empty string or a message naming the bad field.
std::string ValidateSimParams(const SimParams& params);
/// The capacity bound of the paper's model: the most tasks per slot any policy can serve.
double Capacity(const SimParams& params);
/// Runs one simulation (params must be valid); `replan`, if set, is called as SimReplan says.
SimResult Simulate(const SimParams& params, const SimProgress& progress = {},
                   const SimReplan& replan = {});
/// The largest Pareto job size: job_size_max, or 100 x the mean when that is 0.
uint32_t ParetoCap(const SimParams& params);
/// The exact mean job size the arrival process uses for params.
double MeanJobSize(const SimParams& params);

}  // namespace locsched
