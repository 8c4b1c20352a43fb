// The LP rows of locsched-solve: instance parsing (with field-path errors), the
// shared CLI, and the JSON/text report. The format is documented in docs/lp.md.
#include "tools/solve/lp_commands.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/lp/class_lp.h"
#include "algorithms/lp/interval_lp.h"
#include "algorithms/lp/lp_choice.h"
#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/mrs.h"
#include "algorithms/lp/offline_schedule.h"
#include "algorithms/lp/packing_baselines.h"
#include "algorithms/lp/psrs.h"
#include "algorithms/lp/separate_shuffle.h"
#include "algorithms/lp/synchpack.h"
#include "algorithms/lp/synchpack1.h"
#include "algorithms/lp/synchpack_list.h"

namespace locsched {
namespace {

using nlohmann::json;

constexpr size_t kDefaultMaxColumns = 20000;
constexpr size_t kHardMaxColumns = 200000;

// Bad input: the message starts with the field path.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw InputError(path + ": " + what);
}

void OnlyKeys(const json& obj, const std::string& path, const std::set<std::string>& keys) {
  if (!obj.is_object()) Fail(path.empty() ? "instance" : path, "must be an object");
  for (const auto& [key, value] : obj.items())
    if (!keys.count(key)) Fail(path.empty() ? key : path + "." + key, "unknown field");
}

double Number(const json& obj, const std::string& key, const std::string& path, double fallback,
              bool required) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) Fail(path + "." + key, "missing");
    return fallback;
  }
  if (!it->is_number()) Fail(path + "." + key, "must be a number");
  return it->get<double>();
}

LpTask ParseTask(const json& t, const std::string& path) {
  OnlyKeys(t, path, {"demand", "placement", "duration", "remote_penalty", "kind", "shuffle"});
  LpTask task;
  task.demand = Number(t, "demand", path, 0, true);
  task.duration = Number(t, "duration", path, 0, true);
  task.remote_penalty = Number(t, "remote_penalty", path, 0, false);
  task.shuffle = Number(t, "shuffle", path, 0, false);
  if (t.contains("remote_penalty") && !(task.remote_penalty >= 1))
    Fail(path + ".remote_penalty", "must be >= 1");
  if (t.contains("placement")) {
    const json& p = t["placement"];
    if (!p.is_array()) Fail(path + ".placement", "must be a list of machine indices");
    for (size_t k = 0; k < p.size(); ++k) {
      if (!p[k].is_number_unsigned())
        Fail(path + ".placement[" + std::to_string(k) + "]", "must be a machine index");
      const uint64_t machine = p[k].get<uint64_t>();  // no silent truncation to 32 bits
      task.placement.push_back(machine > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(machine));
    }
  }
  if (t.contains("kind")) {
    const json& k = t["kind"];
    if (k == "map")
      task.kind = LpTaskKind::kMap;
    else if (k == "reduce")
      task.kind = LpTaskKind::kReduce;
    else
      Fail(path + ".kind", "must be \"map\" or \"reduce\"");
  }
  return task;
}

// Parses and validates the instance; every error names its field path.
LpInstance ParseInstance(const json& root) {
  OnlyKeys(root, "", {"machines", "jobs"});
  LpInstance in;
  if (!root.contains("machines") || !root["machines"].is_array())
    Fail("machines", "must be a list of {\"capacity\": c}");
  for (size_t i = 0; i < root["machines"].size(); ++i) {
    const std::string path = "machines[" + std::to_string(i) + "]";
    OnlyKeys(root["machines"][i], path, {"capacity"});
    in.capacity.push_back(Number(root["machines"][i], "capacity", path, 0, true));
  }
  if (!root.contains("jobs") || !root["jobs"].is_array()) Fail("jobs", "must be a list of jobs");
  for (size_t j = 0; j < root["jobs"].size(); ++j) {
    const json& jj = root["jobs"][j];
    const std::string path = "jobs[" + std::to_string(j) + "]";
    OnlyKeys(jj, path, {"weight", "release", "tasks"});
    LpJob job;
    job.weight = Number(jj, "weight", path, 1.0, false);
    job.release = Number(jj, "release", path, 0.0, false);
    if (!jj.contains("tasks") || !jj["tasks"].is_array()) Fail(path + ".tasks", "must be a list");
    for (size_t k = 0; k < jj["tasks"].size(); ++k)
      job.tasks.push_back(ParseTask(jj["tasks"][k], path + ".tasks[" + std::to_string(k) + "]"));
    in.jobs.push_back(std::move(job));
  }
  const Status s = ValidateInstance(in);
  if (!s.ok()) throw InputError(s.message());
  return in;
}

LpInstance ReadInstance(const std::string& file) {
  std::ifstream f(file);
  if (!f) throw InputError(file + ": cannot be read");
  std::stringstream text;
  text << f.rdbuf();
  const json root = json::parse(text.str(), nullptr, false);
  if (root.is_discarded()) throw InputError(file + ": not valid JSON");
  return ParseInstance(root);
}

// A lower bound on the LP's columns: every usable machine of a task has at least
// one interval its task can end in (the grid reaches past the latest possible end).
size_t MinColumns(const LpInstance& in) {
  size_t columns = 0;
  for (const LpJob& job : in.jobs)
    for (const LpTask& task : job.tasks)
      columns += task.remote_penalty >= 1 ? in.capacity.size() : task.placement.size();
  return columns;
}

struct Options {
  std::string instance;
  bool json = false;
  double epsilon = 1.0;
  size_t max_columns = kDefaultMaxColumns;
  bool paper = false;                         // synchpack: SynchPack-2 instead of SynchPack-L
  bool no_lp = false;                         // baselines: skip the LP (no bound)
  Preemption preemption = Preemption::kNone;  // what the row's schedules may do
  std::string lp = "per-task";                // per-task | classes | auto (auto: rows with --lp)
  size_t groups = 0;                          // class LP: machine groups (0: per machine)
  size_t thresholds = 8;                      // class LP: release thresholds
  bool per_class = false;                     // class LP: C_j from each class's mean end
  bool classes = false;                       // resolved: the class LP is used
  std::string lp_step = "per-task";           // resolved: what --lp auto chose (lp_choice.h)
  bool epsilon_given = false, groups_given = false, per_class_given = false;
  size_t class_budget = LpAutoRequest{}.class_budget;  // --lp auto's class LP column budget
  bool separate_shuffle = false;                       // mrs: shuffles on separate input processors
};

// A row's own flags beyond AddFlags (nullptr: none).
using ExtraFlags = void (*)(CLI::App&, Options&);

// What a row runs: the solver, given the instance and options.
using SolveFn = Status (*)(const LpInstance&, const Options&, SolverResult*, json* extra);

// The schedule in input indices (one entry per piece when preemptive); a reduce with a
// shuffle also gets shuffle_end in a non-preemptive schedule.
json ScheduleJson(const LpInstance& in, const Schedule& schedule, Preemption preemption) {
  json out = json::array();
  for (const ScheduledTask& e : schedule) {
    json entry = {{"job", e.job},
                  {"task", e.task},
                  {"machine", e.machine},
                  {"start", e.start},
                  {"end", e.end}};
    const double shuffle = in.jobs[e.job].tasks[e.task].shuffle;
    if (shuffle > 0 && preemption == Preemption::kNone) entry["shuffle_end"] = e.start + shuffle;
    out.push_back(std::move(entry));
  }
  return out;
}

const char* PreemptionName(Preemption p) {
  return p == Preemption::kNone          ? "none"
         : p == Preemption::kSameMachine ? "same-machine"
                                         : "migration";
}

void Print(const char* name, const LpInstance& in, const Options& o, const SolverResult& r,
           const json& extra, double seconds) {
  const double ratio = r.lower_bound > 0 ? r.objective / r.lower_bound : 0;
  if (o.json) {
    json out = {
        {"solver", name},
        {"objective", r.objective},
        {"lower_bound", r.lower_bound},
        {"ratio", r.lower_bound > 0 ? json(ratio) : json(nullptr)},
        {"epsilon", o.epsilon},
        {"lp", o.classes ? "classes" : "per-task"},
        {"lp_step", o.lp_step},
        {"lp_columns",
         o.classes ? size_t{0} : IntervalLpColumns(in, {o.epsilon, o.max_columns, LpStage::kAll})},
        {"seconds", seconds},
        {"completion", JobCompletions(in, r.schedule)},
        {"preemption", PreemptionName(o.preemption)},
        {"schedule", ScheduleJson(in, r.schedule, o.preemption)}};
    if (o.classes) {
      out["groups"] = o.groups;
      out["per_class_completion"] = o.per_class;
    }
    out.update(extra);
    if (out.contains("bound_only"))
      for (const char* key : {"bound_only", "objective", "ratio", "completion", "schedule"})
        out.erase(key);
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  std::printf("%s: %zu jobs, %zu tasks, %zu machines\n", name, in.jobs.size(),
              FlattenTasks(in).size(), in.capacity.size());
  if (extra.contains("bound_only")) {
    std::printf("  LP lower bound           %.6g\n  solve time               %.3f s\n",
                r.lower_bound, seconds);
    return;
  }
  std::printf("  objective (sum w_j C_j)  %.6g\n  LP lower bound           %.6g\n", r.objective,
              r.lower_bound);
  if (r.lower_bound > 0)
    std::printf("  ratio                    %.4f\n", ratio);
  else
    std::printf("  ratio                    n/a (no LP bound)\n");
  std::printf("  solve time               %.3f s\n", seconds);
  std::printf("  LP                       %s\n", o.classes ? "classes (aggregated)" : "per-task");
}

// The subcommand's flags.
void AddFlags(CLI::App& app, Options& o) {
  app.add_option("--instance", o.instance, "Instance JSON file (format: docs/lp.md)")->required();
  app.add_flag("--json", o.json, "Print one JSON object with the schedule");
  app.add_option("--epsilon", o.epsilon, "LP interval growth: d_l = d_1 (1+E)^(l-1), E in (0, 10]")
      ->capture_default_str();
  app.add_option("--max-columns", o.max_columns,
                 "Refuse instances whose LP has more columns (at most " +
                     std::to_string(kHardMaxColumns) + ")")
      ->capture_default_str();
}

// The flag ranges and the per-task LP size limit (rows using it); throws InputError.
void CheckLimits(const LpInstance& in, const Options& o) {
  if (o.classes || o.no_lp) return;     // the class LP checks its own size; no LP: no limit
  const size_t floor = MinColumns(in);  // cheap, so huge inputs are refused at once
  const size_t columns = floor > o.max_columns
                             ? floor
                             : IntervalLpColumns(in, {o.epsilon, o.max_columns, LpStage::kAll});
  if (columns > o.max_columns)
    throw InputError("instance: the LP would have " +
                     std::string(columns == floor ? "at least " : "") + std::to_string(columns) +
                     " columns, more than --max-columns " + std::to_string(o.max_columns) +
                     " (fewer tasks, machines with placement, or a larger --epsilon)");
}

ClassLpOptions ClassKnobs(const Options& o) {
  ClassLpOptions knobs;
  knobs.epsilon = o.epsilon;
  knobs.groups = o.groups;
  knobs.max_thresholds = o.thresholds;
  knobs.per_class_completion = o.per_class;
  return knobs;
}

// --lp: per-task or classes as asked; auto as ChooseLp decides (lp_choice.h), which may
// set the class LP's groups, per-class completion and epsilon where they were not given.
void ResolveLp(const LpInstance& in, Options& o) {
  if (o.lp != "auto" || o.paper) {  // SynchPack-2 rounds the per-task LP's fractions
    o.classes = o.lp == "classes";
    o.lp_step = o.classes ? "classes" : "per-task";
    return;
  }
  const size_t floor = MinColumns(in);  // cheap, so huge inputs skip counting
  const size_t per_task = floor > o.max_columns
                              ? floor
                              : IntervalLpColumns(in, {o.epsilon, o.max_columns, LpStage::kAll});
  LpAutoRequest request;
  request.epsilon = o.epsilon;
  request.max_columns = o.max_columns;
  request.classes = ClassKnobs(o);
  request.epsilon_given = o.epsilon_given;
  request.groups_given = o.groups_given;
  request.per_class_given = o.per_class_given;
  request.class_budget = o.class_budget;
  const LpChoice choice = ChooseLp(in, request, per_task);
  o.classes = choice.classes;
  o.lp_step = choice.step;
  if (!choice.classes) return;
  o.epsilon = choice.knobs.epsilon;
  o.groups = choice.knobs.groups;
  o.per_class = choice.knobs.per_class_completion;
}

// The class LP's bound for a row whose solver ran without its LP.
Status ClassBound(const LpInstance& in, const Options& o, SolverResult* r, json* extra) {
  ClassLpResult lp;
  const Status s = SolveClassLp(in, ClassKnobs(o), &lp);
  r->lower_bound = lp.objective;
  (*extra)["lp_columns"] = lp.columns;
  return s;
}

// Solves, checks the schedule (unless the row makes none) and prints; the exit code.
int SolveAndPrint(const char* name, SolveFn solve, bool schedules, const LpInstance& in,
                  const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  SolverResult r;
  json extra = json::object();
  const Status s = solve(in, o, &r, &extra);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!s.ok()) {
    std::fprintf(stderr, "locsched-solve %s: %s\n", name, s.message().c_str());
    return s.code() == Status::Code::kInternal ? 1 : 2;
  }
  const Status feasible = !schedules           ? Status::Ok()
                          : o.separate_shuffle ? CheckSeparateShuffle(in, r.schedule)
                                               : CheckSchedule(in, r.schedule, o.preemption);
  if (!feasible.ok()) {
    std::fprintf(stderr, "locsched-solve %s: infeasible schedule: %s\n", name,
                 feasible.message().c_str());
    return 1;
  }
  if (!schedules) extra["bound_only"] = true;
  Print(name, in, o, r, extra, seconds);
  return 0;
}

int Run(const char* name, const char* what, SolveFn solve, int argc, char** argv,
        bool schedules = true, ExtraFlags extra_flags = nullptr,
        Preemption preemption = Preemption::kNone) {
  CLI::App app{std::string("locsched-solve ") + name + ": " + what +
               "\nReads an instance (docs/lp.md), prints Σ w_j C_j, the interval LP's lower bound "
               "and the schedule."};
  app.name(std::string("locsched-solve ") + name);
  Options o;
  o.preemption = preemption;
  AddFlags(app, o);
  if (extra_flags) extra_flags(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    if (!(o.epsilon > 0) || o.epsilon > 10) throw InputError("--epsilon: must be in (0, 10]");
    if (o.max_columns < 1 || o.max_columns > kHardMaxColumns)
      throw InputError("--max-columns: must be in [1, " + std::to_string(kHardMaxColumns) + "]");
    if (o.lp != "auto" && o.lp != "per-task" && o.lp != "classes")
      throw InputError("--lp: must be per-task, classes or auto");
    const LpInstance in = ReadInstance(o.instance);
    auto given = [&](const char* flag) {
      const CLI::Option* opt = app.get_option_no_throw(flag);
      return opt != nullptr && opt->count() > 0;
    };
    o.epsilon_given = given("--epsilon");
    o.groups_given = given("--groups");
    o.per_class_given = given("--per-class-completion");
    ResolveLp(in, o);
    CheckLimits(in, o);
    return SolveAndPrint(name, solve, schedules, in, o);
  } catch (const InputError& e) {
    std::fprintf(stderr, "locsched-solve %s: %s\n", name, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locsched-solve %s: %s\n", name, e.what());
    return 1;
  }
}

// SynchPack-L (LP order, earliest-finish packing), or SynchPack-2 with --paper.
Status SolveSp(const LpInstance& in, const Options& o, SolverResult* r, json* extra) {
  if (o.paper) {
    if (o.classes)
      return Status::InvalidArgument("--paper",
                                     "SynchPack-2 needs the per-task LP (--lp per-task)");
    SynchPackOptions options;
    options.epsilon = o.epsilon;
    options.max_columns = o.max_columns;
    (*extra)["variant"] = "synchpack-2";
    return SolveSynchPack(in, options, r);
  }
  SynchPackListOptions options;
  options.epsilon = o.epsilon;
  options.max_columns = o.max_columns;
  options.use_classes = o.classes;
  options.classes = ClassKnobs(o);
  SynchPackListResult l;
  const Status s = SolveSynchPackList(in, options, &l);
  *r = std::move(l.solved);
  (*extra)["variant"] = "synchpack-l";
  (*extra)["order"] = l.order;
  if (o.classes) (*extra)["lp_columns"] = l.lp_columns;
  return s;
}

// --lp and the class LP's knobs (rows whose bound is the non-preemptive LP).
void LpFlags(CLI::App& app, Options& o) {
  o.lp = "auto";
  app.add_option("--lp", o.lp,
                 "The LP: per-task, classes (a job's tasks equal but for placement form one "
                 "class, machines fold into --groups; a lower or equal bound that scales to "
                 "10,000 tasks) or auto (the per-task LP when it fits --max-columns, else the "
                 "class LP, made smaller above --class-budget columns)")
      ->capture_default_str();
  app.add_option("--class-budget", o.class_budget,
                 "--lp auto: the class LP's column budget; a larger class LP is made smaller "
                 "(one group, per-class completion, epsilon 2, then 3) where not given")
      ->capture_default_str();
  app.add_option("--groups", o.groups, "Class LP: machine groups (0: one per machine)")
      ->capture_default_str();
  app.add_option("--thresholds", o.thresholds,
                 "Class LP: release thresholds of its capacity rows, besides 0")
      ->capture_default_str();
  app.add_flag("--per-class-completion", o.per_class,
               "Class LP: bound C_j by each class's mean interval start instead of the job's "
               "completion interval (a weaker bound, a much smaller LP)");
}

void PaperFlag(CLI::App& app, Options& o) {
  LpFlags(app, o);
  app.add_flag("--paper", o.paper,
               "Run SynchPack-2 as published (slow motion, matching to machine-intervals, packing "
               "interval by interval; proven factor 24) instead of the LP-ordered list schedule");
}

Status SolveMr(const LpInstance& in, const Options& o, SolverResult* r, json* extra) {
  if (o.separate_shuffle) {
    (*extra)["shuffle"] = "separate";
    return SolveSeparateShuffle(in, {o.epsilon, o.max_columns}, r);
  }
  MrsOptions options;
  options.epsilon = o.epsilon;
  options.max_columns = o.max_columns;
  MrsResult m;
  const Status s = SolveMrs(in, options, &m);
  *r = m.solved;
  (*extra)["width"] = m.width;
  return s;
}

Status SolveJsq(const LpInstance& in, const Options& o, SolverResult* r, json* extra) {
  const Status s = SolveJsqMaxWeight(in, {o.epsilon, o.max_columns, !o.no_lp && !o.classes}, r);
  return s.ok() && o.classes && !o.no_lp ? ClassBound(in, o, r, extra) : s;
}

Status SolveTet(const LpInstance& in, const Options& o, SolverResult* r, json* extra) {
  const Status s = SolveTetris(in, {o.epsilon, o.max_columns, !o.no_lp && !o.classes}, r);
  return s.ok() && o.classes && !o.no_lp ? ClassBound(in, o, r, extra) : s;
}

void SeparateShuffleFlag(CLI::App& app, Options& o) {
  app.add_flag("--separate-shuffle", o.separate_shuffle,
               "Shuffles run on each machine's separate input processor (Fotakis et al. 3.2, "
               "factor 81): the MRS schedule read in that model, a reduce holding its machine "
               "only after its shuffle; the bound is the LP with shuffles apart");
}

void NoLpAndLpFlags(CLI::App& app, Options& o) {
  LpFlags(app, o);
  app.add_flag("--no-lp", o.no_lp,
               "Skip the LP: lower_bound is 0 and ratio null (times the heuristic alone)");
}

void NoLpFlag(CLI::App& app, Options& o) {
  app.add_flag("--no-lp", o.no_lp,
               "Skip the LP: lower_bound is 0 and ratio null (times the heuristic alone)");
}

Status SolveSp1(const LpInstance& in, const Options& o, SolverResult* r, json*) {
  return SolveSynchPack1(in, {o.epsilon, o.max_columns}, r);
}

Status SolveSp1Single(const LpInstance& in, const Options& o, SolverResult* r, json*) {
  return SolveSynchPack1Single(in, {o.epsilon, o.max_columns}, r);
}

Status SolvePs(const LpInstance& in, const Options& o, SolverResult* r, json*) {
  return SolvePsrs(in, {o.epsilon, o.max_columns, !o.no_lp}, r);
}

// Only the LP: lower_bound and LP C_j, no schedule (for timing the LP alone).
Status SolveBound(const LpInstance& in, const Options& o, SolverResult* r, json* extra) {
  if (o.classes) {
    ClassLpResult lp;
    const Status s = SolveClassLp(in, ClassKnobs(o), &lp);
    r->lower_bound = lp.objective;
    (*extra)["lp_completion"] = lp.completion;
    (*extra)["intervals"] = lp.endpoints.size() - 1;
    (*extra)["lp_columns"] = lp.columns;
    (*extra)["lp_rows"] = lp.rows;
    (*extra)["classes"] = lp.classes.size();
    return s;
  }
  IntervalLpResult lp;
  const Status s = SolveIntervalLp(in, {o.epsilon, o.max_columns, LpStage::kAll, false}, &lp);
  r->lower_bound = lp.objective;
  (*extra)["lp_completion"] = lp.completion;
  (*extra)["intervals"] = lp.endpoints.size() - 1;
  return s;
}

}  // namespace

int RunLpBoundCommand(int argc, char** argv) {
  return Run("lp-bound", "only the interval LP: its lower bound and LP completion times",
             SolveBound, argc, argv, false, LpFlags);
}
int RunSynchPackCommand(int argc, char** argv) {
  return Run("synchpack",
             "SynchPack-L: the interval LP, then list scheduling in LP order (job LP completion "
             "times and task alpha-points; the best is kept), each task on the allowed machine "
             "where it finishes first, backfilling gaps. No proven factor; --paper: SynchPack-2",
             SolveSp, argc, argv, true, PaperFlag);
}
int RunSynchPack1Command(int argc, char** argv) {
  return Run("synchpack1",
             "SynchPack-1, preemptive with migration: the preemptive interval LP (LP1), then its "
             "task shares (machine, interval) list-scheduled preemptively in interval order, a "
             "task on one machine at a time. Slow motion is not applied. The schedule has one "
             "entry per piece; the bound is LP1's",
             SolveSp1, argc, argv, true, nullptr, Preemption::kMigration);
}
int RunSynchPack1SingleCommand(int argc, char** argv) {
  return Run("synchpack1-single",
             "SynchPack-1's special case where every task has exactly one placement machine and "
             "no remote_penalty (other instances are refused): each machine runs its tasks "
             "preemptively in the order of LP1's job completion times (the paper orders by its "
             "LP3). One entry per piece; the bound is LP1's",
             SolveSp1Single, argc, argv, true, nullptr, Preemption::kSameMachine);
}
int RunPsrsCommand(int argc, char** argv) {
  return Run("psrs",
             "PSRS baseline, simplified: each task fixed to one usable machine (least work per "
             "capacity, in Smith order), each machine preemptive by modified Smith ratio "
             "w_j/(demand x duration); Schwiegelshohn's rule for tasks wider than half a machine "
             "is not applied. One entry per piece; the bound is the preemptive LP's (LP1)",
             SolvePs, argc, argv, true, NoLpFlag, Preemption::kSameMachine);
}
int RunMrsCommand(int argc, char** argv) {
  return Run("mrs",
             "MRS (per-stage LPs, widths, reduces released at their job's width); "
             "--separate-shuffle: shuffles on separate input processors",
             SolveMr, argc, argv, true, SeparateShuffleFlag);
}
int RunJsqMwCommand(int argc, char** argv) {
  return Run("jsq-mw", "JSQ+MaxWeight with greedy packing (baseline)", SolveJsq, argc, argv, true,
             NoLpAndLpFlags);
}
int RunTetrisCommand(int argc, char** argv) {
  return Run("tetris", "Tetris-style packing score, less remaining work first (baseline)", SolveTet,
             argc, argv, true, NoLpAndLpFlags);
}

}  // namespace locsched
