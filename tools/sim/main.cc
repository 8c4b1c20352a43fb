// locsched-sim: runs the discrete-time simulator of the JSQ+MaxWeight paper
// over the same scheduling core the daemon uses. One load point prints its
// figures (text or --json); --sweep runs many load points in parallel and
// writes CSV, and --chart turns that CSV into a PNG with tools/sim/plot_sweep.py.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/sim/sim_lp_planner.h"
#include "algorithms/sim/simulator.h"
#include "tools/common/progress_bar.h"
#include "tools/sim/trace_mode.h"

namespace locsched {
namespace {

// Delay scheduling's default wait in slots (a local task lasts 1 / alpha = 1.25 slots).
constexpr double kSlottedDelayWait = 3;

struct Options {
  SimParams params;
  BacklogLpOptions lp;  // --intra priority: the backlog LP's knobs (the daemon's defaults)
  uint32_t lp_classes = 4;
  std::string policies = "late-binding";
  std::string intra = "fair";
  std::string job_order;  // empty: each policy's DefaultJobOrder
  std::string size_dist = "geometric";
  std::string sweep;
  std::string csv;
  std::string chart;
  bool json = false;
  bool quiet = false;
  bool list_policies = false;
  std::vector<double> delay_waits{PolicyParams{}.delay_wait};
  std::vector<uint32_t> node_locality_delays{PolicyParams{}.node_locality_delay};
  std::vector<int32_t> rack_locality_delays{PolicyParams{}.rack_locality_delay};
  std::vector<double> locality_thresholds_node{PolicyParams{}.locality_threshold_node};
  std::vector<double> locality_thresholds_rack{PolicyParams{}.locality_threshold_rack};
  TraceModeOptions trace;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

struct Point {
  PolicyKind policy;
  double load;
  SimResult result;
  JobOrder job_order = JobOrder::kFair;
  double wall_seconds = 0;
  uint64_t lp_solves = 0, lp_failures = 0;  // --intra priority only
  double lp_seconds = 0;                    // wall time inside the LP re-solves
};

// CLI11 reads a negative number into a 64-bit unsigned option by wrapping it round.
const CLI::Validator kNotNegative(
    [](const std::string& s) {
      return s.find('-') == std::string::npos ? "" : "must not be negative";
    },
    "");

// "a, b or c" from the core's policy table.
std::string PolicyList() {
  const std::span<const std::string_view> names = PolicyNames();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out.append(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ").append(names[i]);
  return out;
}

void AddModelFlags(CLI::App& app, Options& o) {
  SimParams& p = o.params;
  p.policy.job_aging = kDefaultJobAging;
  app.add_option("--policy", o.policies, "Policy: " + PolicyList() + " (a comma list with --sweep)")
      ->capture_default_str();
  app.add_option("--intra", o.intra,
                 "JSQ+MaxWeight job choice inside a queue: fair, fifo or priority (the backlog "
                 "LP's order, re-solved every --lp-interval slots)")
      ->capture_default_str();
  app.add_option("--machines", p.machines,
                 "Machines M (with --trace the default is the trace's: 600, FB-2009's; 3000 for "
                 "SWIM's FB-2010 with-input-paths format; the hosts jobhistory/rumen name)")
      ->capture_default_str();
  app.add_option("--data-machines", p.data_machines, "Machines holding data, K <= M")
      ->capture_default_str();
  app.add_option("--replicas", p.replicas, "Replicas per task (distinct data machines)")
      ->capture_default_str();
  app.add_option("--slots-per-machine", p.slots_per_machine, "Task slots per machine")
      ->capture_default_str();
  app.add_option("--alpha", p.policy.alpha, "Local service rate per slot, in (0, 1]")
      ->capture_default_str();
  app.add_option("--gamma", p.policy.gamma, "Remote service rate per slot, in (0, alpha]")
      ->capture_default_str();
  app.add_option("--load", p.load, "Mean task arrivals per time slot")->capture_default_str();
  app.add_option("--slots", p.slots, "Time slots to simulate")
      ->check(kNotNegative)
      ->capture_default_str();
  app.add_option("--seed", p.seed, "Random seed (runs are deterministic per seed)")
      ->check(kNotNegative)
      ->capture_default_str();
}

// The locality parameters of the models of YARN's schedulers: comma lists with --trace.
void AddYarnFlags(CLI::App& app, Options& o) {
  app.add_option("--node-locality-delay", o.node_locality_delays,
                 "capacity-scheduler: YARN's node-locality-delay, missed scheduling opportunities "
                 "(free slots offered to a job that declined them) before a job may run "
                 "rack-local, capped at the machines (default 40; a comma list with --trace runs "
                 "each)")
      ->check(kNotNegative)
      ->delimiter(',');
  app.add_option("--rack-locality-delay", o.rack_locality_delays,
                 "capacity-scheduler: YARN's rack-locality-additional-delay, further missed "
                 "opportunities before off-rack; -1: derived per job, queued tasks x min(1, its "
                 "input's machines and racks / machines) (default -1; a comma list with --trace "
                 "runs each)")
      ->delimiter(',');
  app.add_option("--locality-threshold-node", o.locality_thresholds_node,
                 "fair-scheduler: YARN's locality.threshold.node, the fraction of the machines "
                 "whose opportunities a job declines before it may run rack-local, in [-1, 1]; "
                 "negative: off (default -1; a comma list with --trace runs each)")
      ->delimiter(',');
  app.add_option("--locality-threshold-rack", o.locality_thresholds_rack,
                 "fair-scheduler: YARN's locality.threshold.rack, the fraction of the machines "
                 "whose opportunities a job at the rack level declines before it may run "
                 "off-rack, in [-1, 1]; negative: off (default -1; a comma list with --trace runs "
                 "each)")
      ->delimiter(',');
}

void AddWorkloadFlags(CLI::App& app, Options& o) {
  SimParams& p = o.params;
  app.add_option("--job-size-dist", o.size_dist, "Tasks per job: geometric, fixed or pareto")
      ->capture_default_str();
  app.add_option("--job-size-mean", p.job_size_mean, "Mean tasks per job")->capture_default_str();
  app.add_option("--pareto-shape", p.pareto_shape, "Pareto tail index (> 1), heavier when smaller")
      ->capture_default_str();
  app.add_option("--job-size-max", p.job_size_max, "Cap on a Pareto job's size (0: 100 x mean)")
      ->capture_default_str();
  app.add_option("--weight-max", p.weight_max,
                 "Job weights: each job draws an integer uniformly from 1..N (1: all weight 1)")
      ->capture_default_str();
  app.add_option("--remote-bias", p.policy.remote_bias,
                 "JSQ+MaxWeight: a task joins the remote queue only when it is shorter than every "
                 "local one by more than this (0: the paper's rule, ties at random)")
      ->check(kNotNegative)
      ->capture_default_str();
  app.add_option("--priority-slack", p.policy.priority_slack,
                 "With --intra priority: a task JSQ sends remote joins a local queue up to this "
                 "much longer than the remote one where few tasks run before it (0: off, the "
                 "paper's routing)")
      ->check(kNotNegative)
      ->capture_default_str();
  app.add_option("--delay-wait", o.delay_waits,
                 "Delay scheduling: time a job without a local task waits before it may run "
                 "remote: slots here (default 3, the league's best in the paper's model), "
                 "seconds with --trace (default 20; a comma list runs each)")
      ->delimiter(',');
  AddYarnFlags(app, o);
  app.add_option("--job-order", o.job_order,
                 "Job order of late-binding, fair, delay and the YARN models: fair, srpt, smith, "
                 "fifo or lp (late-binding ordered by the LP; --lp-priority sets it) (default: "
                 "srpt for late-binding, fifo for capacity-scheduler, fair for the others)");
  app.add_option("--job-aging", p.policy.job_aging,
                 "Late binding: time a job may go without starting a task before it is served "
                 "first, in slots (seconds with --trace; 0: no bound)")
      ->capture_default_str();
  app.add_flag("--quincy-fair", p.policy.quincy_fair,
               "Quincy: a job below its fair share of the slots must have the rest placed "
               "(Quincy's fairness without preemption; off by default)");
  app.add_option("--warmup", p.warmup_fraction, "Leading share of slots left out of the figures")
      ->capture_default_str();
  app.add_option("--max-backlog", p.max_backlog,
                 "Stop early (unstable) above this many tasks in system (0: 200 x machines)")
      ->check(kNotNegative)
      ->capture_default_str();
}

void AddLpFlags(CLI::App& app, Options& o) {
  app.add_option("--lp-interval", o.params.replan_interval,
                 "With --intra priority: slots between backlog LP re-solves")
      ->capture_default_str();
  app.add_option("--lp-classes", o.lp_classes,
                 "With --intra priority: machine classes of the LP (lp.classes)")
      ->capture_default_str();
  app.add_option("--lp-max-jobs", o.lp.max_jobs,
                 "With --intra priority: jobs inside the LP (lp.max_jobs)")
      ->capture_default_str();
  app.add_option("--lp-epsilon", o.lp.epsilon,
                 "With --intra priority: growth of the LP's time grid (lp.epsilon)")
      ->capture_default_str();
}

void AddOutputFlags(CLI::App& app, Options& o) {
  app.add_flag("--json", o.json, "Print one JSON object (one per point with --sweep: JSON lines)");
  app.add_option("--sweep", o.sweep,
                 "Run many loads: a list 100,200,300 or a range START:STOP:STEP");
  app.add_option("--csv", o.csv, "With --sweep: write the points to this CSV file");
  app.add_option("--chart", o.chart,
                 "With --sweep: draw this PNG from the CSV (needs python3 with matplotlib)");
  app.add_option("--threads", o.threads, "With --sweep: points run in parallel")
      ->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "No progress bar");
  app.add_flag("--list-policies", o.list_policies,
               "Print every policy's name, one a line, and exit");
}

// The slotted model's YARN locality parameters: one value each (lists need --trace).
void SetYarnKnobs(Options& o) {
  auto one = [](const auto& list, const char* flag) {
    if (list.size() != 1) throw std::invalid_argument(std::string(flag) + ": a list needs --trace");
    return list[0];
  };
  PolicyParams& p = o.params.policy;
  p.node_locality_delay = one(o.node_locality_delays, "--node-locality-delay");
  p.rack_locality_delay = one(o.rack_locality_delays, "--rack-locality-delay");
  p.locality_threshold_node = one(o.locality_thresholds_node, "--locality-threshold-node");
  p.locality_threshold_rack = one(o.locality_thresholds_rack, "--locality-threshold-rack");
  if (const std::string err = CheckYarnLocality(p); !err.empty())
    throw std::invalid_argument("--" + err);
}

std::vector<double> ParseLoads(const std::string& text) {
  auto number = [&](const std::string& s) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || !(v > 0))
      throw std::invalid_argument("--sweep: '" + s + "' is not a positive number");
    return v;
  };
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, text.find(':') != std::string::npos ? ':' : ',');)
    parts.push_back(part);
  if (text.find(':') == std::string::npos) {
    std::vector<double> loads;
    for (const auto& s : parts) loads.push_back(number(s));
    return loads;
  }
  if (parts.size() != 3) throw std::invalid_argument("--sweep: a range is START:STOP:STEP");
  const double start = number(parts[0]), stop = number(parts[1]), step = number(parts[2]);
  if (stop < start) throw std::invalid_argument("--sweep: STOP is below START");
  std::vector<double> loads;
  for (double l = start; l <= stop + 1e-9; l += step) loads.push_back(l);
  return loads;
}

std::vector<PolicyKind> ParsePolicies(const std::string& text, bool many) {
  std::vector<PolicyKind> out;
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) {
    const auto kind = ParsePolicyKind(name);
    if (!kind) {
      throw std::invalid_argument("--policy: unknown policy '" + name + "' (choose " +
                                  PolicyList() + ")");
    }
    out.push_back(*kind);
  }
  if (out.empty()) throw std::invalid_argument("--policy: empty");
  if (out.size() > 1 && !many) throw std::invalid_argument("--policy: a list needs --sweep");
  return out;
}

void CheckAging(const Options& o) {
  if (o.params.policy.job_aging < 0) throw std::invalid_argument("--job-aging: must be >= 0");
}

// --job-order and --job-aging, which both modes take.
void ResolveJobOrder(Options& o) {
  if (o.job_order.empty()) return CheckAging(o);
  const auto order = ParseJobOrder(o.job_order);
  if (!order)
    throw std::invalid_argument("--job-order: choose fair, srpt, smith, fifo or lp, not '" +
                                o.job_order + "'");
  o.params.policy.job_order = *order;
  CheckAging(o);
}

// The job order `policy` runs with: --job-order's, else the policy's default.
JobOrder OrderFor(const Options& o, PolicyKind policy) {
  return o.job_order.empty() ? DefaultJobOrder(policy) : o.params.policy.job_order;
}

void ResolveChoices(Options& o) {
  ResolveJobOrder(o);
  const auto intra = ParseIntraQueue(o.intra);
  if (!intra)
    throw std::invalid_argument("--intra: choose fair, fifo or priority, not '" + o.intra + "'");
  o.params.policy.intra = *intra;
  if (*intra == IntraQueue::kPriority && o.policies != "jsq-maxweight")
    throw std::invalid_argument("--intra priority: needs --policy jsq-maxweight alone");
  if (o.lp_classes < 1) throw std::invalid_argument("--lp-classes: must be at least 1");
  if (o.lp.max_jobs < 1) throw std::invalid_argument("--lp-max-jobs: must be at least 1");
  if (!(o.lp.epsilon > 0) || o.lp.epsilon > 100)
    throw std::invalid_argument("--lp-epsilon: must be in (0, 100]");
  static const std::map<std::string, JobSizeDist> kDists{{"geometric", JobSizeDist::kGeometric},
                                                         {"fixed", JobSizeDist::kFixed},
                                                         {"pareto", JobSizeDist::kPareto}};
  const auto it = kDists.find(o.size_dist);
  if (it == kDists.end())
    throw std::invalid_argument("--job-size-dist: choose geometric, fixed or pareto, not '" +
                                o.size_dist + "'");
  o.params.size_dist = it->second;
  if (const std::string err = ValidateSimParams(o.params); !err.empty())
    throw std::invalid_argument("--" + err);
  if (o.threads < 1) throw std::invalid_argument("--threads: must be at least 1");
}

// Window figures of a run that stopped before its measurement window are null.
nlohmann::json Measured(const SimResult& r, double value) {
  return r.measured ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// value / bound, null where no job counted (no bound) or the window was not reached.
nlohmann::json OverBound(const SimResult& r, double value, double bound) {
  return r.measured && bound > 0 ? nlohmann::json(value / bound) : nlohmann::json(nullptr);
}

nlohmann::json ToJson(const Point& pt, const SimParams& p) {
  const SimResult& r = pt.result;
  return {
      {"policy", PolicyKindName(pt.policy)},
      {"load", pt.load},
      {"machines", p.machines},
      {"data_machines", p.data_machines},
      {"alpha", p.policy.alpha},
      {"gamma", p.policy.gamma},
      {"seed", p.seed},
      {"capacity", r.capacity},
      {"mean_tasks_in_system", Measured(r, r.mean_tasks_in_system)},
      {"mean_jobs_in_system", Measured(r, r.mean_jobs_in_system)},
      {"tasks_in_system_end", r.tasks_in_system_end},
      {"stable", r.stable},
      {"stopped_early", r.stopped_early},
      {"growth", r.growth},
      {"intra", IntraQueueName(p.policy.intra)},
      {"job_order", JobOrderName(pt.job_order)},
      {"weight_max", p.weight_max},
      {"remote_bias", p.policy.remote_bias},
      {"delay_wait", p.policy.delay_wait},
      {"priority_slack", p.policy.priority_slack},
      {"mean_job_delay", Measured(r, r.mean_job_delay)},
      {"weighted_mean_job_delay", Measured(r, r.weighted_mean_job_delay)},
      {"lower_bound_mean_job_delay", Measured(r, r.lower_bound_mean_job_delay)},
      {"lower_bound_critical_path", Measured(r, r.lower_bound_critical_path)},
      {"lower_bound_srpt", Measured(r, r.lower_bound_srpt)},
      {"mean_job_delay_over_bound", OverBound(r, r.mean_job_delay, r.lower_bound_mean_job_delay)},
      {"lower_bound_weighted_mean_job_delay", Measured(r, r.lower_bound_weighted_mean_job_delay)},
      {"throughput", Measured(r, r.throughput)},
      {"mean_task_delay", Measured(r, r.mean_task_delay)},
      {"locality", Measured(r, r.locality)},
      {"offered_load", r.offered_load},
      {"mean_job_size", r.mean_job_size},
      {"jobs_arrived", r.jobs_arrived},
      {"jobs_done", r.jobs_done},
      {"tasks_done", r.tasks_done},
      {"slots", r.slots},
      {"wall_seconds", pt.wall_seconds},
      {"lp_solves", pt.lp_solves},
      {"lp_failures", pt.lp_failures},
      {"lp_seconds", pt.lp_seconds}};
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// With --intra priority the run gets its own planner (and solver basis), timed per solve.
Point RunPoint(const Options& o, PolicyKind policy, double load, const SimProgress& progress) {
  SimParams p = o.params;
  p.policy.kind = policy;
  p.policy.job_order = OrderFor(o, policy);
  p.load = load;
  const auto start = std::chrono::steady_clock::now();
  Point pt{policy, load, {}, p.policy.job_order};
  if (p.policy.intra != IntraQueue::kPriority) {
    pt.result = Simulate(p, progress);
  } else {
    SimLpPlanner planner(p, o.lp, o.lp_classes);
    pt.result = Simulate(p, progress, [&](Scheduler& s, uint64_t slot, auto started) {
      const auto t0 = std::chrono::steady_clock::now();
      planner.Replan(s, slot, started);
      pt.lp_seconds += Since(t0);
    });
    pt.lp_solves = planner.solves();
    pt.lp_failures = planner.failures();
    ReleaseLpThreadState();  // GLPK's per-thread state; sweep threads end after their points
  }
  pt.wall_seconds = Since(start);
  return pt;
}

void PrintText(const Point& pt) {
  const SimResult& r = pt.result;
  std::printf("policy %s  load %.1f tasks/slot  slots %llu  wall %.2fs\n",
              std::string(PolicyKindName(pt.policy)).c_str(), pt.load,
              static_cast<unsigned long long>(r.slots), pt.wall_seconds);
  if (!r.measured) {
    std::printf(
        "  UNSTABLE: %llu tasks in system hit the backlog cap before the measurement window\n",
        static_cast<unsigned long long>(r.tasks_in_system_end));
    return;
  }
  std::printf(
      "  %s%s: tasks in system mean %.1f (end %llu), concurrent jobs %.1f\n"
      "  locality %.3f  mean job delay %.2f slots  mean task delay %.2f slots\n",
      r.stable ? "STABLE" : "UNSTABLE", r.stopped_early ? " (backlog cap reached)" : "",
      r.mean_tasks_in_system, static_cast<unsigned long long>(r.tasks_in_system_end),
      r.mean_jobs_in_system, r.locality, r.mean_job_delay, r.mean_task_delay);
  std::printf("  weighted mean job delay %.2f slots  throughput %.2f tasks/slot\n",
              r.weighted_mean_job_delay, r.throughput);
  if (r.lower_bound_mean_job_delay > 0)
    std::printf(
        "  lower bound on mean job delay %.2f slots (critical path %.2f, SRPT %.2f): "
        "mean %.2fx bound\n",
        r.lower_bound_mean_job_delay, r.lower_bound_critical_path, r.lower_bound_srpt,
        r.mean_job_delay / r.lower_bound_mean_job_delay);
  if (pt.lp_solves + pt.lp_failures > 0)
    std::printf("  LP re-solves %llu (failed %llu), %.2fs in the solver\n",
                static_cast<unsigned long long>(pt.lp_solves),
                static_cast<unsigned long long>(pt.lp_failures), pt.lp_seconds);
}

int RunSingle(const Options& o) {
  const PolicyKind policy = ParsePolicies(o.policies, false).front();
  ProgressBar bar("simulating", o.params.slots, !o.quiet);
  const Point pt = RunPoint(o, policy, o.params.load, [&](const SimSnapshot& s) {
    char note[160];
    std::snprintf(note, sizeof note, "tasks %llu  jobs %llu  locality %.3f",
                  static_cast<unsigned long long>(s.tasks_in_system),
                  static_cast<unsigned long long>(s.jobs_in_system), s.locality);
    bar.Update(s.slot, note);
  });
  bar.Finish();
  if (o.json)
    std::cout << ToJson(pt, o.params).dump() << "\n";
  else
    PrintText(pt);
  return 0;
}

std::vector<Point> RunSweepPoints(const Options& o, const std::vector<PolicyKind>& policies,
                                  const std::vector<double>& loads) {
  std::vector<Point> points;
  for (PolicyKind p : policies)
    for (double l : loads) points.push_back(Point{p, l, {}});
  // Workers claim the next unclaimed point until none is left.
  std::atomic<size_t> next{0}, done{0};
  ProgressBar bar("sweep", points.size(), !o.quiet);
  auto worker = [&] {
    for (size_t i = next++; i < points.size(); i = next++) {
      points[i] = RunPoint(o, points[i].policy, points[i].load, {});
      bar.Update(++done,
                 std::to_string(done.load()) + "/" + std::to_string(points.size()) + " points");
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<size_t>(o.threads, points.size()); ++t)
    pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  bar.Finish();
  return points;
}

void WriteCsv(const std::string& path, const std::vector<Point>& points) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("--csv: cannot write '" + path + "'");
  out << "policy,load,mean_tasks_in_system,mean_jobs_in_system,tasks_in_system_end,stable,"
         "stopped_early,mean_job_delay,mean_task_delay,locality,slots,wall_seconds,capacity\n";
  out.precision(10);
  char buf[32];
  for (const Point& pt : points) {
    const SimResult& r = pt.result;
    // Window figures stay empty when the run stopped before its window.
    auto m = [&](double v) {
      std::snprintf(buf, sizeof buf, "%.10g", v);
      return r.measured ? std::string(buf) : std::string();
    };
    out << PolicyKindName(pt.policy) << ',' << pt.load << ',' << m(r.mean_tasks_in_system) << ','
        << m(r.mean_jobs_in_system) << ',' << r.tasks_in_system_end << ',' << r.stable << ','
        << r.stopped_early << ',' << m(r.mean_job_delay) << ',' << m(r.mean_task_delay) << ','
        << m(r.locality) << ',' << r.slots << ',' << pt.wall_seconds << ',' << r.capacity << '\n';
  }
  if (!out) throw std::runtime_error("--csv: write to '" + path + "' failed");
}

// LOCSCHED_PLOT_SCRIPT, else the data folder beside an installed binary
// (PREFIX/bin/../share/locsched, whatever the prefix), the source tree, the
// configured data folder.
std::string PlotScript() {
  if (const char* env = std::getenv("LOCSCHED_PLOT_SCRIPT")) return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path beside = exe.parent_path() / LOCSCHED_DATA_FROM_BIN;
  for (const std::filesystem::path& dir :
       {ec ? std::filesystem::path() : beside, std::filesystem::path(LOCSCHED_SOURCE_TOOLS),
        std::filesystem::path(LOCSCHED_INSTALLED_DATA)}) {
    if (dir.empty()) continue;
    const std::filesystem::path script = dir / "plot_sweep.py";
    if (std::filesystem::exists(script, ec)) return script.string();
  }
  throw std::runtime_error("--chart: plot_sweep.py not found (set LOCSCHED_PLOT_SCRIPT)");
}

void DrawChart(const std::string& csv, const std::string& png) {
  // The python3 on PATH, spawned without a shell, so no path needs quoting.
  const std::string python = "python3";
  const std::string script = PlotScript();
  std::vector<char*> argv;
  for (const std::string* arg : {&python, &script, &csv, &png})
    argv.push_back(const_cast<char*>(arg->c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int status = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("--chart: no python3 on PATH (the chart needs python3-matplotlib; " +
                             csv + " holds the data)");
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("--chart: the plot script failed (is python3-matplotlib installed?)");
}

int RunSweep(const Options& o) {
  const auto policies = ParsePolicies(o.policies, true);
  const auto loads = ParseLoads(o.sweep);
  const std::vector<Point> points = RunSweepPoints(o, policies, loads);
  const std::string csv = o.csv.empty() && !o.chart.empty() ? o.chart + ".csv" : o.csv;
  if (!csv.empty()) WriteCsv(csv, points);
  if (!o.chart.empty()) DrawChart(csv, o.chart);
  for (const Point& pt : points) {
    if (o.json)
      std::cout << ToJson(pt, o.params).dump() << "\n";
    else
      PrintText(pt);
  }
  return 0;
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  using namespace locsched;
  CLI::App app{
      "locsched-sim: the JSQ+MaxWeight paper's discrete-time cluster simulator,\n"
      "running locsched's own scheduling core. Prints one load point, or sweeps many."};
  app.set_version_flag("--version", std::string("locsched-sim ") + LOCSCHED_VERSION);
  Options o;
  AddModelFlags(app, o);
  AddWorkloadFlags(app, o);
  AddLpFlags(app, o);
  AddOutputFlags(app, o);
  AddTraceFlags(app, o.trace);
  app.footer(
      "Exit codes:\n"
      "  0    ok\n"
      "  1    a run failed (a trace could not be read, --csv written or --chart drawn)\n"
      "  2    bad command line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help and --version are 0; every bad flag is 2
  }
  try {
    if (o.list_policies) {
      for (std::string_view name : PolicyNames()) std::cout << name << "\n";
      return 0;
    }
    CheckTraceFlagUse(app, o.trace);
    if (!o.trace.trace.empty()) {
      ResolveJobOrder(o);
      TraceRunSettings s;
      s.policy = o.policies;
      s.intra = o.intra;
      s.machines = app.count("--machines") > 0 ? o.params.machines : 0;
      s.slots_per_machine = o.params.slots_per_machine;
      s.delay_waits = o.delay_waits;
      s.node_locality_delays = o.node_locality_delays;
      s.rack_locality_delays = o.rack_locality_delays;
      s.locality_thresholds_node = o.locality_thresholds_node;
      s.locality_thresholds_rack = o.locality_thresholds_rack;
      s.remote_bias = o.params.policy.remote_bias;
      if (!o.job_order.empty()) s.job_order = o.params.policy.job_order;
      s.job_aging = o.params.policy.job_aging;
      s.quincy_fair = o.params.policy.quincy_fair;
      s.seed = o.params.seed;
      s.json = o.json;
      s.lp = o.lp;
      s.lp_classes = o.lp_classes;
      if (s.machines == 0 && app.count("--machines") > 0)
        throw std::invalid_argument("--machines: must be at least 1");
      return RunTraceMode(o.trace, s);
    }
    if (app.count("--delay-wait") == 0) o.delay_waits = {kSlottedDelayWait};
    if (o.delay_waits.size() != 1)
      throw std::invalid_argument("--delay-wait: a list needs --trace");
    o.params.policy.delay_wait = o.delay_waits[0];
    SetYarnKnobs(o);
    ResolveChoices(o);
    if ((!o.csv.empty() || !o.chart.empty()) && o.sweep.empty())
      throw std::invalid_argument("--csv and --chart need --sweep");
    return o.sweep.empty() ? RunSingle(o) : RunSweep(o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "locsched-sim: %s\nRun with --help for the options.\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locsched-sim: %s\n", e.what());
    return 1;
  }
}
