// locsched-sim --trace: the trace-driven mode's flags, checks and output. A recorded
// workload (tools/sim/trace_jobs.h) runs through algorithms/sim/trace_sim.h in simulated
// seconds. Called by tools/sim/main.cc; one thread.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/lp/backlog_lp.h"
#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// The flags of trace mode (--policy, --machines, --slots-per-machine, --delay-wait,
/// --remote-bias, --intra, --seed and --json are the slotted mode's own and copied in).
struct TraceModeOptions {
  std::string trace;                        ///< --trace FILE: the workload log
  std::string format = "swim";              ///< --format
  int hour = -1;                            ///< --hour (swim)
  uint32_t racks = 0;                       ///< --racks
  std::vector<double> remote_slowdowns{4};  ///< --remote-slowdown (a list runs each)
  double utilization = 0;                   ///< --utilization (0: off)
  double rack_slowdown = 0;                 ///< --rack-slowdown
  double local_mean = 25;                   ///< --local-mean
  double heartbeat = 3;                     ///< --heartbeat
  bool fixed_durations = false;             ///< --fixed-durations
  uint64_t placement_seed = 1;              ///< --placement-seed
  bool rebalance = false;                   ///< --rebalance
  double rebalance_every = 1;               ///< --rebalance-every (rebalance.base_interval_ms)
  bool lp_priority = false;                 ///< --lp-priority
  double lp_every = 5;                      ///< --lp-every (lp.base_interval_s)
  uint64_t rebalance_big_job = 1000;        ///< --rebalance-big-job (rebalance.big_job_tasks)
  double hot_share = 1;                     ///< --hot-share: data on this share of machines
  double new_rack_share = 0;                ///< --new-rack-share: empty machines added (0: none)
  std::string weights = "equal";            ///< --weights: equal, uniform or priority
  double time_scale = 1;                    ///< --time-scale: submit times multiplied by it
  double resolve_first = 10;                ///< --resolve-first (synchpack; 0: automatic)
  double resolve_growth = 1.02;             ///< --resolve-growth (synchpack)
  std::string queues;                       ///< --queues FILE: a locsched.toml's queue tree
  std::string tenants;                      ///< --tenants NAME:SHARE,...: swim's seeded draw
  double preemption_timeout = 0;            ///< --preemption-timeout S (0: no preemption)
  double preemption_kill_wait = 3;          ///< --preemption-kill-wait S
  std::string burst;                        ///< --burst QUEUE:SECONDS ("": none)
};

/// Adds the trace-mode flags to `app`.
void AddTraceFlags(CLI::App& app, TraceModeOptions& o);
/// Throws std::invalid_argument naming the flag if a trace-only flag is given without
/// --trace, or a slotted-only one with it.
void CheckTraceFlagUse(const CLI::App& app, const TraceModeOptions& o);

/// What RunTraceMode takes from the shared flags.
struct TraceRunSettings {
  /// One name or a comma list: the core's policies, or the list policies synchpack,
  /// tetris and jsq-mw (tools/sim/trace_list_mode.h).
  std::string policy = "late-binding";
  std::string intra = "fair";
  uint32_t machines = 0;  ///< 0: the trace's default (600, 3000 for FB-2010, or its hosts)
  uint32_t slots_per_machine = 1;
  std::vector<double> delay_waits{20};  ///< each runs with delay; others take the first
  /// capacity-scheduler runs each pair of these; the others take the first of each.
  std::vector<uint32_t> node_locality_delays{PolicyParams{}.node_locality_delay};
  std::vector<int32_t> rack_locality_delays{PolicyParams{}.rack_locality_delay};
  /// fair-scheduler runs each pair of these; the others take the first of each.
  std::vector<double> locality_thresholds_node{PolicyParams{}.locality_threshold_node};
  std::vector<double> locality_thresholds_rack{PolicyParams{}.locality_threshold_rack};
  uint32_t remote_bias = 0;
  /// Late binding, fair and delay; unset: each policy's DefaultJobOrder.
  std::optional<JobOrder> job_order;
  double job_aging = kDefaultJobAging;  ///< late binding's aging bound, seconds (0: off)
  bool quincy_fair = false;             ///< quincy: Quincy's fairness bound (PolicyParams)
  uint64_t seed = 1;
  bool json = false;
  BacklogLpOptions lp;      ///< --lp-priority: the LP's knobs (the daemon's defaults)
  uint32_t lp_classes = 4;  ///< ... and its machine classes
};

/// Loads the trace once and runs every policy (delay at every wait, capacity-scheduler at
/// every pair of delays, fair-scheduler at every pair of thresholds) at every remote slowdown,
/// printing text or one JSON object (line) per run; returns the exit code.
/// Throws std::invalid_argument (exit 2) for a bad flag, std::runtime_error for a bad file.
int RunTraceMode(const TraceModeOptions& o, const TraceRunSettings& s);

}  // namespace locsched
