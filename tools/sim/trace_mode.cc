#include "tools/sim/trace_mode.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "algorithms/sim/job_weights.h"
#include "algorithms/sim/trace_shape.h"
#include "config/config.h"
#include "config/queue_config.h"
#include "tools/sim/trace_jobs.h"
#include "tools/sim/trace_list_mode.h"
#include "tools/sim/trace_rebalance.h"

namespace locsched {
namespace {

// Flags of the slotted model that mean nothing in trace mode.
constexpr const char* kSlottedOnly[] = {
    "--load",       "--slots",         "--data-machines", "--replicas",     "--alpha",
    "--gamma",      "--job-size-dist", "--job-size-mean", "--pareto-shape", "--job-size-max",
    "--weight-max", "--warmup",        "--max-backlog",   "--sweep",        "--csv",
    "--chart",      "--threads",       "--lp-interval",   "--lp-classes",   "--lp-max-jobs",
    "--lp-epsilon", "--priority-slack"};
constexpr const char* kTraceOnly[] = {"--format",
                                      "--hour",
                                      "--racks",
                                      "--remote-slowdown",
                                      "--rack-slowdown",
                                      "--local-mean",
                                      "--heartbeat",
                                      "--fixed-durations",
                                      "--placement-seed",
                                      "--utilization",
                                      "--rebalance",
                                      "--rebalance-every",
                                      "--lp-priority",
                                      "--lp-every",
                                      "--weights",
                                      "--time-scale",
                                      "--resolve-first",
                                      "--resolve-growth",
                                      "--hot-share",
                                      "--rebalance-big-job",
                                      "--new-rack-share",
                                      "--queues",
                                      "--tenants",
                                      "--preemption-timeout",
                                      "--preemption-kill-wait",
                                      "--burst"};

// "1", "2-10", ">1000": a bucket's job sizes.
std::string BucketName(const JctBucket& b) {
  if (b.max_tasks == UINT32_MAX) return ">" + std::to_string(b.min_tasks - 1);
  if (b.min_tasks == b.max_tasks) return std::to_string(b.min_tasks);
  return std::to_string(b.min_tasks) + "-" + std::to_string(b.max_tasks);
}

// The rebalancing hook of one run: the daemon's rebalancer for jsq-maxweight, remote
// permits for late binding.
struct RebalanceHook {
  std::unique_ptr<TraceRebalance> queues;
  std::unique_ptr<TracePermitRebalance> permits;
  uint64_t runs() const { return queues ? queues->runs() : permits ? permits->runs() : 0; }
  uint64_t moved() const { return queues ? queues->moved() : 0; }
  uint64_t granted() const { return permits ? permits->granted() : 0; }
  bool on() const { return queues || permits; }
};

// The locality parameters of one run: a policy's own from its comma lists, the first of
// each list for the others.
struct LocalityKnobs {
  double delay_wait = 0;
  uint32_t node_delay = 0;
  int32_t rack_delay = 0;
  double threshold_node = 0;
  double threshold_rack = 0;
};

// Each run of `kind` (core policies only sweep): delay at every wait, capacity-scheduler
// at every (node, rack) delay pair, fair-scheduler at every (node, rack) threshold pair.
std::vector<LocalityKnobs> Sweep(PolicyKind kind, bool core, const TraceRunSettings& s) {
  const LocalityKnobs first{s.delay_waits[0], s.node_locality_delays[0], s.rack_locality_delays[0],
                            s.locality_thresholds_node[0], s.locality_thresholds_rack[0]};
  std::vector<LocalityKnobs> out;
  if (core && kind == PolicyKind::kDelay) {
    for (double w : s.delay_waits) out.push_back(first), out.back().delay_wait = w;
  } else if (core && kind == PolicyKind::kCapacityScheduler) {
    for (uint32_t n : s.node_locality_delays)
      for (int32_t r : s.rack_locality_delays)
        out.push_back(first), out.back().node_delay = n, out.back().rack_delay = r;
  } else if (core && kind == PolicyKind::kFairScheduler) {
    for (double n : s.locality_thresholds_node)
      for (double r : s.locality_thresholds_rack)
        out.push_back(first), out.back().threshold_node = n, out.back().threshold_rack = r;
  } else {
    out.push_back(first);
  }
  return out;
}

// Throws std::invalid_argument naming the flag if a value of the YARN knobs' lists is bad,
// before any run prints.
void CheckKnobs(const TraceRunSettings& s) {
  PolicyParams p;
  auto check = [&] {
    if (const std::string err = CheckYarnLocality(p); !err.empty())
      throw std::invalid_argument("--" + err);
  };
  for (int32_t r : s.rack_locality_delays) p.rack_locality_delay = r, check();
  for (double t : s.locality_thresholds_node) p.locality_threshold_node = t, check();
  p.locality_threshold_node = -1;
  for (double t : s.locality_thresholds_rack) p.locality_threshold_rack = t, check();
}

// The knobs' part of a text report's first line ("" for a policy without them).
std::string KnobsText(const PolicyParams& p) {
  std::ostringstream out;
  if (p.kind == PolicyKind::kDelay) out << "  delay-wait " << p.delay_wait << " s";
  if (p.kind == PolicyKind::kCapacityScheduler)
    out << "  node-locality-delay " << p.node_locality_delay << ", rack-locality-delay "
        << p.rack_locality_delay;
  if (p.kind == PolicyKind::kFairScheduler)
    out << "  locality-threshold-node " << p.locality_threshold_node << ", locality-threshold-rack "
        << p.locality_threshold_rack;
  return out.str();
}

// What every run reports beside its result: the policy's name and the jobs' weights.
struct RunLabel {
  std::string policy;
  const std::vector<double>* weights = nullptr;
  uint32_t data_machines = 0;  // the machines replicas are placed on (before new racks)
  ListRunStats list;           // list policies only
};

// sum w_j over the done jobs.
double DoneWeight(const TraceSimResult& r, const std::vector<double>& w) {
  double weight = 0;
  for (size_t j = 0; j < r.jct_s.size(); ++j)
    if (r.jct_s[j] >= 0) weight += w[j];
  return weight;
}

// sum w_j JCT_j / sum w_j over the done jobs.
double WeightedMeanJct(const TraceSimResult& r, const std::vector<double>& w) {
  const double weight = DoneWeight(r, w);
  return weight > 0 ? WeightedJct(r.jct_s, w) / weight : 0;
}

// sum w_j C_j: completion times from the start of the (scaled) trace.
double WeightedCompletion(const TraceSimResult& r, const TraceWorkload& wl,
                          const std::vector<double>& w) {
  double sum = 0;
  for (size_t j = 0; j < r.jct_s.size(); ++j)
    if (r.jct_s[j] >= 0) sum += w[j] * (wl.jobs[j].submit_s + r.jct_s[j]);
  return sum;
}

// lower_bound_weighted_jct / sum w_j over the done jobs: bounds weighted_mean_jct_s.
double WeightedMeanBound(const TraceSimResult& r, const std::vector<double>& w) {
  const double weight = DoneWeight(r, w);
  return weight > 0 ? r.lower_bound_weighted_jct_s / weight : 0;
}

// value / bound; null where no job finished (no bound).
nlohmann::json OverBound(double value, double bound) {
  return bound > 0 ? nlohmann::json(value / bound) : nlohmann::json(nullptr);
}

nlohmann::json ToJson(const TraceSimResult& r, const TraceModeOptions& o, const TraceSimParams& p,
                      const RebalanceHook& rebalance, double wall, const RunLabel& label,
                      const TraceWorkload& wl) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const JctBucket& b : r.buckets) {
    const std::string name = BucketName(b);
    buckets.push_back({{"tasks", name},
                       {"jobs", b.jobs},
                       {"mean_jct_s", b.mean_jct_s},
                       {"p95_jct_s", b.p95_jct_s}});
  }
  const double started = static_cast<double>(std::max<uint64_t>(1, r.tasks_done));
  const bool capacity = p.policy.kind == PolicyKind::kCapacityScheduler;
  const bool fair = p.policy.kind == PolicyKind::kFairScheduler;
  return {{"mode", "trace"},
          {"trace", o.trace},
          {"format", o.format},
          {"hour", o.hour >= 0 ? nlohmann::json(o.hour) : nlohmann::json(nullptr)},
          {"policy", label.policy},
          {"intra", IntraQueueName(p.policy.intra)},
          {"remote_bias", p.policy.remote_bias},
          {"job_order", JobOrderName(p.policy.job_order)},
          {"job_aging_s", p.policy.job_aging},
          {"quincy_fair", p.policy.quincy_fair},
          {"delay_wait_s", p.policy.kind == PolicyKind::kDelay ? nlohmann::json(p.policy.delay_wait)
                                                               : nlohmann::json(nullptr)},
          {"node_locality_delay",
           capacity ? nlohmann::json(p.policy.node_locality_delay) : nlohmann::json(nullptr)},
          {"rack_locality_delay",
           capacity ? nlohmann::json(p.policy.rack_locality_delay) : nlohmann::json(nullptr)},
          {"locality_threshold_node",
           fair ? nlohmann::json(p.policy.locality_threshold_node) : nlohmann::json(nullptr)},
          {"locality_threshold_rack",
           fair ? nlohmann::json(p.policy.locality_threshold_rack) : nlohmann::json(nullptr)},
          {"machines", p.cluster.machines},
          {"racks", p.cluster.racks},
          {"slots_per_machine", p.cluster.slots_per_machine},
          {"remote_slowdown", p.cluster.remote_slowdown},
          {"rack_slowdown",
           p.cluster.racks > 1 ? nlohmann::json(RackSlowdown(p.cluster)) : nlohmann::json(nullptr)},
          {"local_mean_s", p.cluster.local_mean_s},
          {"heartbeat_s", p.cluster.heartbeat_s},
          {"seed", p.seed},
          {"jobs", r.jobs},
          {"jobs_done", r.jobs_done},
          {"tasks", r.tasks},
          {"tasks_done", r.tasks_done},
          {"mean_jct_s", r.mean_jct_s},
          {"p95_jct_s", r.p95_jct_s},
          {"lower_bound_mean_jct_s", r.lower_bound_mean_jct_s},
          {"lower_bound_critical_path_s", r.lower_bound_critical_path_s},
          {"lower_bound_srpt_s", r.lower_bound_srpt_s},
          {"mean_jct_over_bound", OverBound(r.mean_jct_s, r.lower_bound_mean_jct_s)},
          {"mean_task_wait_s", r.mean_task_wait_s},
          {"locality", r.locality},
          {"node_local", r.locality},
          {"rack_local", r.rack_local},
          {"locality_rack", r.rack_local},
          {"off_rack", r.off_rack},
          {"learnt_rates",
           {{"alpha", r.learnt_alpha},
            {"beta", r.learnt_beta},
            {"gamma", r.learnt_gamma},
            {"local_done", r.local_done},
            {"rack_done", r.rack_done},
            {"off_rack_done", r.off_rack_done}}},
          {"throughput", r.throughput},
          {"offered_load", r.offered_load},
          {"span_s", r.span_s},
          {"makespan_s", r.makespan_s},
          {"stable", r.stable},
          {"idle_holder_task_s", r.idle_holder_task_s},
          {"idle_holder_per_task_s", r.idle_holder_task_s / started},
          {"heartbeats", r.heartbeats},
          {"rebalance", rebalance.on()},
          {"rebalance_runs", rebalance.runs()},
          {"rebalance_moved", rebalance.moved()},
          {"rebalance_permits", rebalance.granted()},
          {"hot_share", o.hot_share},
          {"new_rack_share", o.new_rack_share},
          {"data_machines", label.data_machines},
          {"lp_priority", p.lp.enabled},
          {"lp_solves", r.lp_solves},
          {"lp_failures", r.lp_failures},
          {"preemption_timeout_s", p.preemption_timeout_s},
          {"preemption_kill_wait_s", p.preemption_kill_wait_s},
          {"burst", o.burst},
          {"preempted_tasks", r.preempted_tasks},
          {"preempted_task_s", r.preempted_task_s},
          {"preempted_share", r.preempted_share},
          {"jct_buckets", buckets},
          {"weights", o.weights},
          {"time_scale", o.time_scale},
          {"weighted_jct", WeightedJct(r.jct_s, *label.weights)},
          {"weighted_mean_jct_s", WeightedMeanJct(r, *label.weights)},
          {"weighted_completion", WeightedCompletion(r, wl, *label.weights)},
          {"lower_bound_weighted_jct", r.lower_bound_weighted_jct_s},
          {"lower_bound_weighted_mean_jct_s", WeightedMeanBound(r, *label.weights)},
          {"lower_bound_weighted_completion", WeightedCompletion(r, wl, *label.weights) -
                                                  WeightedJct(r.jct_s, *label.weights) +
                                                  r.lower_bound_weighted_jct_s},
          {"resolves", label.list.lp_solves},
          {"resolve_failures", label.list.lp_failures},
          {"resolve_first_s", label.list.first_interval_s},
          {"wall_seconds", wall}};
}

void PrintText(const TraceSimResult& r, const TraceSimParams& p, double wall,
               const RunLabel& label) {
  std::printf("policy %s%s  %u machines  %llu jobs (%llu done), %llu tasks  wall %.2fs\n",
              label.policy.c_str(), KnobsText(p.policy).c_str(), p.cluster.machines,
              static_cast<unsigned long long>(r.jobs), static_cast<unsigned long long>(r.jobs_done),
              static_cast<unsigned long long>(r.tasks), wall);
  std::printf("  %s  JCT mean %.1f s  p95 %.1f s  task wait mean %.1f s\n",
              r.stable ? "STABLE" : "UNSTABLE", r.mean_jct_s, r.p95_jct_s, r.mean_task_wait_s);
  std::printf("  locality %.4f (rack-local %.4f, off-rack %.4f)  offered load %.2f\n", r.locality,
              r.rack_local, r.off_rack, r.offered_load);
  std::printf("  queued beside an idle replica holder: %.0f task-s  makespan %.0f s\n",
              r.idle_holder_task_s, r.makespan_s);
  std::printf("  weighted JCT sum %.6g s (weighted mean %.1f s)\n",
              WeightedJct(r.jct_s, *label.weights), WeightedMeanJct(r, *label.weights));
  if (r.lower_bound_mean_jct_s > 0)
    std::printf(
        "  lower bound on mean JCT %.1f s (critical path %.1f s, SRPT %.1f s): mean %.2fx "
        "bound; on weighted JCT sum %.6g s\n",
        r.lower_bound_mean_jct_s, r.lower_bound_critical_path_s, r.lower_bound_srpt_s,
        r.mean_jct_s / r.lower_bound_mean_jct_s, r.lower_bound_weighted_jct_s);
  for (const JctBucket& b : r.buckets) {
    if (b.jobs == 0) continue;
    std::printf("  jobs of %s tasks: %llu, JCT mean %.1f s  p95 %.1f s\n", BucketName(b).c_str(),
                static_cast<unsigned long long>(b.jobs), b.mean_jct_s, b.p95_jct_s);
  }
}

// The run of `policy` with locality knobs `k` at remote slowdown `slowdown`.
TraceSimParams Params(const TraceModeOptions& o, const TraceRunSettings& s, PolicyKind policy,
                      IntraQueue intra, const LocalityKnobs& k, double slowdown,
                      const ClusterShape& cluster) {
  TraceSimParams p;
  p.policy.kind = policy;
  p.policy.intra = intra;
  p.policy.delay_wait = k.delay_wait;
  p.policy.node_locality_delay = k.node_delay;
  p.policy.rack_locality_delay = k.rack_delay;
  p.policy.locality_threshold_node = k.threshold_node;
  p.policy.locality_threshold_rack = k.threshold_rack;
  p.policy.remote_bias = s.remote_bias;
  p.policy.job_order = s.job_order.value_or(DefaultJobOrder(policy));
  p.policy.job_aging = s.job_aging;
  p.policy.quincy_fair = s.quincy_fair;
  p.policy.alpha = 1 / o.local_mean;
  p.policy.gamma = p.policy.alpha / slowdown;
  p.policy.seed = s.seed;
  p.seed = s.seed;
  p.cluster.machines = cluster.machines;
  p.cluster.slots_per_machine = s.slots_per_machine;
  p.cluster.racks = cluster.racks;
  p.cluster.local_mean_s = o.local_mean;
  p.cluster.remote_slowdown = slowdown;
  p.cluster.rack_slowdown = o.rack_slowdown;
  p.cluster.heartbeat_s = o.heartbeat;
  p.cluster.fixed_durations = o.fixed_durations;
  p.preemption_timeout_s = o.preemption_timeout;
  p.preemption_kill_wait_s = o.preemption_kill_wait;
  // The policy knows the model's task-time spread as it knows its rates: none when fixed.
  p.policy.duration_cv = o.fixed_durations ? 0 : 1;
  // A rack-local task's true rate (the cluster model's).
  p.policy.beta = p.policy.alpha / RackSlowdown(p.cluster);
  if (o.lp_priority) {
    const LpConfig daemon;  // the daemon's timer and knobs, on the simulated clock
    // The LP's order: jsq-maxweight's priority intra order, late binding's lp job order.
    if (policy == PolicyKind::kLateBinding)
      p.policy.job_order = JobOrder::kLp;
    else
      p.policy.intra = IntraQueue::kPriority;
    p.lp.enabled = true;
    p.lp.base_interval_s = o.lp_every;
    p.lp.max_interval_s = std::max(o.lp_every, daemon.max_interval_s);
    p.lp.growth = daemon.growth;
    p.lp.burst_tasks = daemon.burst_tasks;
    p.lp.classes = s.lp_classes;
    p.lp.options = s.lp;
  }
  return p;
}

// The daemon's [rebalance] defaults with --rebalance-every as the timer's base interval.
RebalanceConfig RebalanceSettings(const TraceModeOptions& o) {
  RebalanceConfig cfg;
  cfg.base_interval_ms = static_cast<uint64_t>(std::llround(o.rebalance_every * 1000));
  cfg.max_interval_ms = std::max(cfg.base_interval_ms, cfg.max_interval_ms);
  cfg.big_job_tasks = o.rebalance_big_job;
  return cfg;
}

// A policy of the core (kind), or a list policy (no kind) named `name`.
struct PolicyChoice {
  std::string name;
  std::optional<PolicyKind> kind;
};

std::vector<PolicyChoice> Policies(const std::string& list) {
  std::vector<PolicyChoice> out;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (IsListPolicy(name)) {
      out.push_back({name, std::nullopt});
      continue;
    }
    const auto kind = ParsePolicyKind(name);
    if (!kind)
      throw std::invalid_argument("--policy: unknown policy '" + name +
                                  "' (see --list-policies; with --trace also synchpack, "
                                  "tetris, jsq-mw)");
    out.push_back({std::string(PolicyKindName(*kind)), *kind});
  }
  if (out.empty()) throw std::invalid_argument("--policy: empty");
  return out;
}

// Loads the trace; with --utilization, twice: once to measure its work, once placed on the
// cluster that work fills to that share.
TraceJobs Load(const TraceModeOptions& o, const TraceRunSettings& s,
               const std::vector<TenantShare>& tenants) {
  TraceJobsOptions load;
  load.tenants = tenants;
  load.path = o.trace;
  load.hour = o.hour;
  load.machines = s.machines;
  load.seed = o.placement_seed;
  load.racks = o.racks;
  if (Status st = ParseTraceFormat(o.format, &load.format); !st.ok())
    throw std::invalid_argument(
        "--format: choose swim, jobhistory, rumen, google or locsched, not '" + o.format + "'");
  if (o.hour < -1 || o.hour > 23) throw std::invalid_argument("--hour: must be 0-23");
  if (o.utilization != 0 && !(o.utilization > 0 && o.utilization <= 10))
    throw std::invalid_argument("--utilization: must be in (0, 10]");
  if (o.utilization > 0 && s.machines > 0)
    throw std::invalid_argument("--utilization: give it or --machines, not both");
  TraceJobs jobs;
  auto read = [&] {
    jobs = TraceJobs{};
    if (Status st = LoadTraceJobs(load, &jobs); !st.ok()) {
      if (st.message().rfind("--", 0) == 0) throw std::invalid_argument(st.message());
      throw std::runtime_error(st.message());
    }
  };
  read();
  if (o.hour >= 0 && jobs.workload.jobs.empty())  // a valid run of nothing, but say so
    std::cerr << "locsched-sim: warning: --hour " << o.hour << ": " << o.trace
              << " has no jobs submitted in that hour; the run has none\n";
  if (o.utilization > 0) {
    const TraceWorkload& w = jobs.workload;
    const double span = std::max(o.local_mean, w.jobs.empty() ? 0 : w.jobs.back().submit_s);
    const double slots = w.num_tasks() * o.local_mean / (o.utilization * span);
    load.machines = static_cast<uint32_t>(
        std::max(1.0, std::ceil(slots / static_cast<double>(s.slots_per_machine))));
    // R racks hold a machine each at least (an hour with no jobs, a light one on many racks).
    if (o.racks > 1) load.machines = std::max(load.machines, o.racks);
    // New racks are the size of the others: the data's cluster is whole racks.
    if (o.new_rack_share > 0 && o.racks > 1)
      load.machines = (load.machines + o.racks - 1) / o.racks * o.racks;
    read();
  }
  return jobs;
}

}  // namespace

void AddTraceFlags(CLI::App& app, TraceModeOptions& o) {
  app.add_option("--trace", o.trace,
                 "Trace mode: run this workload log in simulated seconds on the emulator's "
                 "cluster model (see docs/simulator.md)");
  app.add_option("--format", o.format, "With --trace: swim, jobhistory, rumen, google or locsched")
      ->capture_default_str();
  app.add_option("--hour", o.hour, "With --trace, swim: only the jobs submitted in hour H (0-23)");
  app.add_option("--racks", o.racks,
                 "With --trace: racks (machine m in rack m*R/M); synthesized replicas (swim, "
                 "google) then follow HDFS's placement, one on a random machine, two together "
                 "on another rack. 0 or 1: no topology (every non-local task is off-rack)")
      ->capture_default_str();
  app.add_option("--remote-slowdown", o.remote_slowdowns,
                 "With --trace: a task runs this many times longer off its replicas (a comma "
                 "list runs each)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--utilization", o.utilization,
                 "With --trace, instead of --machines: size the cluster so the trace's work, "
                 "run local, fills this share of its slots over the trace's span (with --racks "
                 "R, at least R machines)");
  app.add_option("--rack-slowdown", o.rack_slowdown,
                 "With --trace and --racks: slowdown of a rack-local task, between 1 and "
                 "--remote-slowdown (0: sqrt of the remote slowdown, 2 at 4: the rack-local "
                 "rate is the geometric mean of the local and remote rates)")
      ->capture_default_str();
  app.add_option("--local-mean", o.local_mean, "With --trace: mean local task time, seconds")
      ->capture_default_str();
  app.add_option("--heartbeat", o.heartbeat, "With --trace: seconds between a machine's heartbeats")
      ->capture_default_str();
  app.add_flag("--fixed-durations", o.fixed_durations,
               "With --trace: every task takes exactly --local-mean (times the slowdown)");
  app.add_option("--placement-seed", o.placement_seed,
                 "With --trace: seed of the tailer's replica placement (swim, google)")
      ->capture_default_str();
  app.add_flag("--rebalance", o.rebalance,
               "With --trace: the daemon's rebalancing (rebalance.enabled): jsq-maxweight's "
               "max-cover over the queued backlog on a big job, an imbalance or its timer; "
               "late-binding's remote permits for large jobs");
  app.add_option("--rebalance-every", o.rebalance_every,
                 "With --rebalance: the timer's first interval, simulated seconds "
                 "(rebalance.base_interval_ms; it doubles while quiet, up to 60 s)")
      ->capture_default_str();
  app.add_option("--rebalance-big-job", o.rebalance_big_job,
                 "With --rebalance: a job of this many tasks triggers a run "
                 "(rebalance.big_job_tasks); late-binding plans only jobs this large")
      ->capture_default_str();
  app.add_flag("--lp-priority", o.lp_priority,
               "With --trace: LP priority (lp.enabled: the backlog LP, re-solved on the "
               "daemon's timer, orders the jobs; jsq-maxweight with machine_queue_order = "
               "priority, late-binding with job_order = lp)");
  app.add_option("--hot-share", o.hot_share,
                 "With --trace: a skewed cluster: every replica moves onto the first "
                 "ceil(share x machines) machines (1: as placed)")
      ->capture_default_str();
  app.add_option("--new-rack-share", o.new_rack_share,
                 "With --trace: a cluster grown by new machines that hold no replica (racks "
                 "added before HDFS's balancer ran): ceil(F x machines) more after the data's "
                 "machines; with --racks R, ceil(F x R) new racks of machines/R each (0: none)")
      ->capture_default_str();
  app.add_option("--weights", o.weights,
                 "With --trace: job weights w_j for the weighted JCT: equal, uniform (1-10) or "
                 "priority (1 + a Google job class), drawn per --seed")
      ->capture_default_str();
  app.add_option("--time-scale", o.time_scale,
                 "With --trace: multiply every submit time by this (below 1: the same jobs, "
                 "denser)")
      ->capture_default_str();
  app.add_option("--resolve-first", o.resolve_first,
                 "With --trace, synchpack: the first re-solve interval, seconds; later ones "
                 "grow by --resolve-growth (0: 10 x the mean gap between jobs)")
      ->capture_default_str();
  app.add_option("--resolve-growth", o.resolve_growth,
                 "With --trace, synchpack: each re-solve interval is this many times the last")
      ->capture_default_str();
  app.add_option("--queues", o.queues,
                 "With --trace: tenant queues from this locsched.toml (only its [queue.*], "
                 "[placement] and [groups] tables); jobs are placed by its rules (the log's "
                 "queue and user, or --tenants' draw) and the report adds each queue's "
                 "figures");
  app.add_option("--tenants", o.tenants,
                 "With --trace, swim: NAME:SHARE,... draws each job into tenant NAME with "
                 "probability SHARE (seeded by --placement-seed, as locsched-tail) as its "
                 "explicit queue; without --queues, a flat tree guaranteeing each its share "
                 "(maximum 100 %; shares under 1 leave the rest to a queue 'default')");
  app.add_option("--preemption-timeout", o.preemption_timeout,
                 "With --queues or --tenants: once a leaf queue has been below its guarantee, "
                 "with work queued, this many seconds and the guarantee grace (--local-mean), "
                 "the run keeps the free slots for it and, --preemption-kill-wait later, "
                 "preempts tasks of queues above theirs for what is still missing, the most "
                 "recently started first (0: no preemption); the report adds the tasks and "
                 "task-seconds preempted")
      ->capture_default_str();
  app.add_option("--preemption-kill-wait", o.preemption_kill_wait,
                 "With --preemption-timeout: seconds after the timeout during which the starved "
                 "queue takes the slots that free before tasks are stopped for it "
                 "(preemption.kill_wait_s; 0: stop at the timeout)")
      ->capture_default_str();
  app.add_option("--burst", o.burst,
                 "With --queues or --tenants: QUEUE:SECONDS, a burst: every job of leaf QUEUE "
                 "arrives at the trace's start, flooding the idle cluster, and the other "
                 "queues' jobs keep their spacing but start SECONDS later (after "
                 "--time-scale)");
  app.add_option("--lp-every", o.lp_every,
                 "With --lp-priority: seconds between re-solves after a burst "
                 "(lp.base_interval_s; the interval doubles after each, up to 60 s)")
      ->capture_default_str();
}

void CheckTraceFlagUse(const CLI::App& app, const TraceModeOptions& o) {
  if (o.trace.empty()) {
    for (const char* flag : kTraceOnly)
      if (app.count(flag) > 0) throw std::invalid_argument(std::string(flag) + ": needs --trace");
    return;
  }
  for (const char* flag : kSlottedOnly)
    if (app.count(flag) > 0)
      throw std::invalid_argument(std::string(flag) +
                                  ": a flag of the slotted model, not of --trace mode");
}

namespace {

// Submit times multiplied by --time-scale: below 1 the same jobs arrive closer together.
void ScaleTimes(double scale, TraceWorkload* w) {
  if (!(scale > 0 && scale <= 100))
    throw std::invalid_argument("--time-scale: must be in (0, 100]");
  for (TraceJob& job : w->jobs) job.submit_s *= scale;
}

void CheckChoices(const TraceModeOptions& o, const std::vector<PolicyChoice>& policies) {
  for (const PolicyChoice& c : policies) {
    if (c.kind == PolicyKind::kJsqMaxWeight || c.kind == PolicyKind::kLateBinding) continue;
    if (o.rebalance)
      throw std::invalid_argument(
          "--rebalance: only jsq-maxweight and late-binding rebalance (as in the daemon)");
    if (o.lp_priority)
      throw std::invalid_argument(
          "--lp-priority: only jsq-maxweight and late-binding order jobs by the LP");
  }
  if (!(o.rebalance_every > 0 && o.rebalance_every <= 3600))
    throw std::invalid_argument("--rebalance-every: must be in (0, 3600] seconds");
  if (o.rebalance_big_job < 1)
    throw std::invalid_argument("--rebalance-big-job: must be at least 1");
  if (!(o.hot_share > 0 && o.hot_share <= 1))
    throw std::invalid_argument("--hot-share: must be in (0, 1]");
  if (!(o.lp_every > 0 && o.lp_every <= 3600))
    throw std::invalid_argument("--lp-every: must be in (0, 3600] seconds");
  if (o.new_rack_share != 0 && !(o.new_rack_share > 0 && o.new_rack_share <= 10))
    throw std::invalid_argument("--new-rack-share: must be in (0, 10] (0: no new machines)");
}

// The cluster the runs use: the data's `machines` and --racks, grown by --new-rack-share.
ClusterShape Grown(const TraceModeOptions& o, uint32_t machines) {
  const ClusterShape data{machines, o.racks};
  if (o.new_rack_share == 0) return data;
  ClusterShape grown;
  if (const std::string err = AddEmptyMachines(data, o.new_rack_share, &grown); !err.empty())
    throw std::invalid_argument("--new-rack-share: " + err);
  return grown;
}

// The tenant queues of a run: --queues FILE's tree, or --tenants' flat one.
struct Tenancy {
  std::optional<QueueTree> tree;
  UserGroups groups;                 // the file's [groups]
  std::vector<TenantShare> tenants;  // --tenants, parsed
};

// --tenants alone: one leaf per tenant under root, guaranteed its share, maximum 100 %;
// with shares under 1, a leaf "default" guaranteed the rest takes the jobs drawn into none.
QueueTreeSpec FlatTree(const std::vector<TenantShare>& tenants) {
  QueueTreeSpec spec;
  double total = 0;
  bool has_default = false;
  for (const TenantShare& t : tenants) {
    QueueSpec q;
    q.name = t.name;
    q.guarantee = t.share * 100;
    spec.queues.push_back(q);
    total += t.share;
    has_default = has_default || t.name == "default";
  }
  if (!has_default && total < 1 - 1e-9) {
    QueueSpec rest;
    rest.name = "default";
    rest.guarantee = (1 - total) * 100;
    spec.queues.push_back(rest);
  }
  spec.default_queue = has_default || total < 1 - 1e-9 ? "default" : tenants.front().name;
  return spec;
}

Tenancy LoadTenancy(const TraceModeOptions& o) {
  Tenancy t;
  if (!o.tenants.empty()) {
    if (o.format != "swim")
      throw std::invalid_argument(
          "--tenants: only swim jobs are drawn into tenants (the other formats name users; "
          "give --queues)");
    if (Status st = ParseTenants(o.tenants, &t.tenants); !st.ok())
      throw std::invalid_argument(st.message());
  }
  if (!o.queues.empty()) {
    QueueConfig config;
    QueueTree tree;
    if (Status st = LoadQueueConfigFile(o.queues, &config, &tree); !st.ok())
      throw std::runtime_error("--queues: " + st.message());
    if (!config.enabled())
      throw std::runtime_error("--queues: " + o.queues + " has no [queue.NAME] table");
    t.tree = std::move(tree);
    t.groups = std::move(config.groups);
  } else if (!t.tenants.empty()) {
    QueueTree tree;
    if (Status st = QueueTree::Build(FlatTree(t.tenants), &tree); !st.ok())
      throw std::invalid_argument("--tenants: " + st.message());
    t.tree = std::move(tree);
  }
  return t;
}

// Each job's leaf by the tree's placement rules; a refused job is an error naming it.
std::vector<uint32_t> PlaceJobs(const Tenancy& t, const TraceJobs& jobs) {
  std::vector<uint32_t> leaves(jobs.workload.jobs.size());
  for (size_t j = 0; j < leaves.size(); ++j) {
    const std::string& user = jobs.users[j];
    const JobOwner owner{jobs.queues[j], user, t.groups.Of(user)};
    if (Status st = t.tree->Place(owner, &leaves[j]); !st.ok())
      throw std::runtime_error("--queues: job " + std::to_string(j) + " (user '" + user +
                               "', queue '" + jobs.queues[j] + "'): " + st.message());
  }
  return leaves;
}

// --burst QUEUE:SECONDS on the placed workload (Burst); the error names the flag.
void ApplyBurst(const std::string& text, const Tenancy& t, TraceWorkload* w,
                std::vector<uint32_t>* leaves) {
  const size_t colon = text.rfind(':');
  if (!t.tree) throw std::invalid_argument("--burst: needs tenant queues (--queues or --tenants)");
  if (colon == std::string::npos || colon == 0)
    throw std::invalid_argument("--burst: write QUEUE:SECONDS, not '" + text + "'");
  const std::string name = text.substr(0, colon);
  const std::optional<uint32_t> q = t.tree->Find(name);
  if (!q || !t.tree->node(*q).leaf())
    throw std::invalid_argument("--burst: '" + name + "' is not a leaf queue");
  double after = -1;
  try {
    size_t used = 0;
    after = std::stod(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1) after = -1;
  } catch (const std::exception&) {
  }
  if (const std::string err = Burst(*w, leaves, *q, after); !err.empty())
    throw std::invalid_argument("--burst: " + err + " ('" + text + "')");
}

nlohmann::json QueuesJson(const TraceSimResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const TraceQueueResult& q : r.queues)
    out.push_back({{"name", q.name},
                   {"guarantee", q.guarantee},
                   {"maximum", q.maximum},
                   {"max_slots", q.max_slots},
                   {"peak_running", q.peak_running},
                   {"jobs", q.jobs},
                   {"jobs_done", q.jobs_done},
                   {"mean_jct_s", q.mean_jct_s},
                   {"p95_jct_s", q.p95_jct_s},
                   {"locality", q.locality},
                   {"ttg_p50_s", q.meter.ttg_p50_s},
                   {"ttg_p99_s", q.meter.ttg_p99_s},
                   {"ttg_episodes", q.meter.ttg_s.size()},
                   {"ttg_open", q.meter.open_episodes},
                   {"share_deficit_s", q.meter.share_deficit_s},
                   {"preempted_tasks", q.preempted_tasks},
                   {"preempted_task_s", q.preempted_task_s}});
  return out;
}

// With queues, a line per leaf; with preemption, its total first and each leaf's share.
void PrintQueues(const TraceSimResult& r, const TraceSimParams& p) {
  if (p.preemption_timeout_s > 0)
    std::printf("  preemption after %.1f s: %llu tasks, %.0f task-s (%.4f of task-seconds run)\n",
                p.preemption_timeout_s, static_cast<unsigned long long>(r.preempted_tasks),
                r.preempted_task_s, r.preempted_share);
  for (const TraceQueueResult& q : r.queues) {
    std::printf(
        "  queue %s: guarantee %.3f max %.3f (%u slots, peak %u)  jobs %llu (%llu done)  JCT "
        "mean %.1f s p95 %.1f s  locality %.4f  time-to-guarantee p50 %.1f s p99 %.1f s (%zu "
        "episodes, %llu open)  share deficit %.1f s\n",
        q.name.c_str(), q.guarantee, q.maximum, q.max_slots, q.peak_running,
        static_cast<unsigned long long>(q.jobs), static_cast<unsigned long long>(q.jobs_done),
        q.mean_jct_s, q.p95_jct_s, q.locality, q.meter.ttg_p50_s, q.meter.ttg_p99_s,
        q.meter.ttg_s.size(), static_cast<unsigned long long>(q.meter.open_episodes),
        q.meter.share_deficit_s);
    if (p.preemption_timeout_s > 0)
      std::printf("    preempted %llu tasks, %.0f task-s\n",
                  static_cast<unsigned long long>(q.preempted_tasks), q.preempted_task_s);
  }
}

}  // namespace

int RunTraceMode(const TraceModeOptions& o, const TraceRunSettings& s) {
  const std::vector<PolicyChoice> policies = Policies(s.policy);
  const auto intra = ParseIntraQueue(s.intra);
  if (!intra || *intra == IntraQueue::kPriority)
    throw std::invalid_argument("--intra: with --trace choose fair or fifo, not '" + s.intra + "'");
  if (s.delay_waits.empty()) throw std::invalid_argument("--delay-wait: empty");
  if (s.node_locality_delays.empty()) throw std::invalid_argument("--node-locality-delay: empty");
  if (s.rack_locality_delays.empty()) throw std::invalid_argument("--rack-locality-delay: empty");
  if (s.locality_thresholds_node.empty())
    throw std::invalid_argument("--locality-threshold-node: empty");
  if (s.locality_thresholds_rack.empty())
    throw std::invalid_argument("--locality-threshold-rack: empty");
  CheckKnobs(s);
  if (o.remote_slowdowns.empty()) throw std::invalid_argument("--remote-slowdown: empty");
  const auto dist = ParseWeightDist(o.weights);
  if (!dist)
    throw std::invalid_argument("--weights: choose equal, uniform or priority, not '" + o.weights +
                                "'");
  CheckChoices(o, policies);
  const Tenancy tenancy = LoadTenancy(o);
  if (tenancy.tree)
    for (const PolicyChoice& c : policies)
      if (!c.kind)
        throw std::invalid_argument("--policy: " + c.name +
                                    " does not share the cluster by tenant queue (--queues, "
                                    "--tenants); choose a policy of the core");
  TraceJobs jobs = Load(o, s, tenancy.tenants);
  std::vector<uint32_t> leaves = tenancy.tree ? PlaceJobs(tenancy, jobs) : std::vector<uint32_t>();
  ScaleTimes(o.time_scale, &jobs.workload);
  if (!o.burst.empty()) ApplyBurst(o.burst, tenancy, &jobs.workload, &leaves);
  if (o.hot_share < 1) ConcentrateReplicas(jobs.workload, jobs.machines, o.hot_share);
  const ClusterShape cluster = Grown(o, jobs.machines);
  jobs.workload.weights = DrawJobWeights(*dist, jobs.workload.jobs.size(), s.seed);
  const std::vector<double>& weights = jobs.workload.weights;
  const ListPolicySettings list{o.resolve_first, o.resolve_growth};
  for (const double slowdown : o.remote_slowdowns) {
    for (const PolicyChoice& choice : policies) {
      const PolicyKind policy = choice.kind.value_or(PolicyKind::kJsqMaxWeight);
      for (const LocalityKnobs& knobs : Sweep(policy, choice.kind.has_value(), s)) {
        TraceSimParams p = Params(o, s, policy, *intra, knobs, slowdown, cluster);
        if (tenancy.tree) p.queues = &*tenancy.tree, p.job_queues = leaves;
        RebalanceHook rebalance;
        if (o.rebalance && choice.kind == PolicyKind::kLateBinding) {
          rebalance.permits = std::make_unique<TracePermitRebalance>(
              RebalanceSettings(o), p.policy.alpha, p.policy.gamma);
          p.hook = rebalance.permits.get();
        } else if (o.rebalance && choice.kind) {
          rebalance.queues = std::make_unique<TraceRebalance>(RebalanceSettings(o), p.policy.alpha,
                                                              p.policy.gamma);
          p.hook = rebalance.queues.get();
        }
        if (const std::string err = ValidateTraceSim(jobs.workload, p); !err.empty())
          throw std::invalid_argument("--" + err);
        RunLabel label{choice.name, &weights, jobs.machines, {}};
        const auto start = std::chrono::steady_clock::now();
        const TraceSimResult r = choice.kind ? SimulateTrace(jobs.workload, p)
                                             : RunListPolicy(choice.name, jobs.workload, p.cluster,
                                                             p.seed, weights, list, &label.list);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (s.json) {
          nlohmann::json out = ToJson(r, o, p, rebalance, wall, label, jobs.workload);
          out["queues"] = tenancy.tree ? QueuesJson(r) : nlohmann::json(nullptr);
          std::cout << out.dump() << std::endl;
        } else {
          PrintText(r, p, wall, label);
          PrintQueues(r, p);
        }
      }
    }
  }
  return 0;
}

}  // namespace locsched
