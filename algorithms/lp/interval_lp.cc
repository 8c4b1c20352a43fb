#include "algorithms/lp/interval_lp.h"

#include <glpk.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "algorithms/lp/glpk_builder.h"

namespace locsched {
namespace {

constexpr double kTimeSlack = 1e-9;  // an interval "fits" a task despite rounding

bool Covered(const LpTask& task, LpStage stage) {
  if (stage == LpStage::kMaps) return task.kind == LpTaskKind::kMap;
  if (stage == LpStage::kReduces) return task.kind == LpTaskKind::kReduce;
  return true;
}

// The interval grid and, per covered task, the earliest instant it could complete
// on a zero-length machine (its job's release, plus its maps for a reduce in kAll).
struct Grid {
  bool preemptive = false;        // z: processed in l (LP1) instead of completed in l
  bool separate_shuffle = false;  // a reduce's shuffle delays it but takes no capacity
  std::vector<TaskRef> tasks;
  std::vector<double> ready;  // per covered task: earliest start
  std::vector<double> d;      // endpoints d_0..d_L
};

double FastestOn(const LpInstance& in, TaskRef t, bool slowest) {
  double best = slowest ? 0 : kNotAllowed;
  for (uint32_t i = 0; i < in.capacity.size(); ++i) {
    const double p = TaskDuration(in, t, i);
    if (p != kNotAllowed) best = slowest ? std::max(best, p) : std::min(best, p);
  }
  return best;
}

// The run time on machine i that the LP counts (without the shuffle when it runs apart).
double Duration(const LpInstance& in, const Grid& g, TaskRef t, uint32_t i) {
  const double p = TaskDuration(in, t, i);
  return g.separate_shuffle && p != kNotAllowed ? p - in.jobs[t.job].tasks[t.task].shuffle : p;
}

Grid BuildGrid(const LpInstance& in, const IntervalLpOptions& options) {
  Grid g;
  g.preemptive = options.preemptive;
  g.separate_shuffle = options.separate_shuffle;
  double unit = kNotAllowed, horizon = 0;
  for (const TaskRef& t : FlattenTasks(in)) {
    const LpJob& job = in.jobs[t.job];
    if (!Covered(job.tasks[t.task], options.stage)) continue;
    double ready = job.release;
    if (options.stage == LpStage::kAll && job.tasks[t.task].kind == LpTaskKind::kReduce) {
      double shortest_map = kNotAllowed;  // a reduce waits at least for one map
      for (uint32_t k = 0; k < job.tasks.size(); ++k)
        if (job.tasks[k].kind == LpTaskKind::kMap)
          shortest_map = std::min(shortest_map, FastestOn(in, {t.job, k}, false));
      if (shortest_map != kNotAllowed) ready += shortest_map;
      if (options.separate_shuffle) ready += job.tasks[t.task].shuffle;
    }
    g.tasks.push_back(t);
    g.ready.push_back(ready);
    unit = std::min(unit, FastestOn(in, t, false));
    horizon = std::max(horizon, job.release);
  }
  // Some optimal schedule is active (every start is a release or an end), so it
  // ends by the latest release plus every task's slowest duration.
  for (const TaskRef& t : g.tasks) horizon += FastestOn(in, t, true);
  g.d.push_back(0);
  if (g.tasks.empty()) return g;
  for (double end = unit; g.d.back() < horizon * (1 + kTimeSlack); end *= 1 + options.epsilon)
    g.d.push_back(end);
  return g;
}

// The intervals l in which task t may complete on machine i (p <= d_l - ready), or
// (preemptive) be processed there (d_l > ready).
bool Fits(const Grid& g, size_t t, double p, size_t l) {
  if (p == kNotAllowed) return false;
  if (g.preemptive) return g.d[l] > g.ready[t] * (1 + kTimeSlack);
  return g.ready[t] + p <= g.d[l] * (1 + kTimeSlack);
}

size_t CountColumns(const LpInstance& in, const Grid& g) {
  const size_t intervals = g.d.size() - 1;
  size_t columns = 0;
  std::vector<bool> job_covered(in.jobs.size(), false);
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    job_covered[g.tasks[t].job] = true;
    for (uint32_t i = 0; i < in.capacity.size(); ++i)
      for (size_t l = 1; l <= intervals; ++l)
        columns += Fits(g, t, Duration(in, g, g.tasks[t], i), l);
  }
  for (bool covered : job_covered) columns += covered ? intervals + 1 : 0;
  return columns;
}

struct Columns {
  // Per covered task: (machine, interval, column) of each z.
  std::vector<std::vector<std::array<int, 3>>> z;
  std::vector<std::vector<int>> x;  // per job: x_{j,1..L} (column 0 unused)
  std::vector<int> c;               // per job: C_j, 0 if the job has no covered task
};

Columns MakeColumns(const LpInstance& in, const Grid& g, LpBuilder& b) {
  const size_t intervals = g.d.size() - 1;
  Columns cols;
  cols.z.resize(g.tasks.size());
  cols.x.resize(in.jobs.size());
  cols.c.assign(in.jobs.size(), 0);
  for (size_t t = 0; t < g.tasks.size(); ++t)
    for (uint32_t i = 0; i < in.capacity.size(); ++i)
      for (size_t l = 1; l <= intervals; ++l)
        if (Fits(g, t, Duration(in, g, g.tasks[t], i), l))
          cols.z[t].push_back({static_cast<int>(i), static_cast<int>(l), b.AddColumn(0, 0, 1)});
  for (const TaskRef& t : g.tasks) {
    if (cols.c[t.job]) continue;
    cols.c[t.job] = b.AddColumn(in.jobs[t.job].weight, 0, kNotAllowed);
    cols.x[t.job].assign(intervals + 1, 0);
    for (size_t l = 1; l <= intervals; ++l) cols.x[t.job][l] = b.AddColumn(0, 0, 1);
  }
  return cols;
}

// Row (b) of ALGORITHMS.md §3 counts capacity from time 0. With releases it is
// also valid from any threshold r: work that cannot start before r and ends by
// d_l fits in c_i (d_l - r). Thresholds: 0 and up to kMaxThresholds distinct
// ready times (evenly spaced among them), which keeps the LP small.
constexpr size_t kMaxThresholds = 32;

std::vector<double> ReleaseThresholds(const Grid& g) {
  std::vector<double> ready = g.ready;
  std::sort(ready.begin(), ready.end());
  ready.erase(std::unique(ready.begin(), ready.end()), ready.end());
  ready.erase(std::remove_if(ready.begin(), ready.end(), [](double r) { return r <= 0; }),
              ready.end());
  std::vector<double> out{0.0};
  const size_t step = (ready.size() + kMaxThresholds - 1) / kMaxThresholds;
  for (size_t k = 0; k < ready.size(); k += std::max<size_t>(step, 1)) out.push_back(ready[k]);
  return out;
}

// Row (b) from threshold r for every machine and interval: one pass over the
// fractions fills per-(machine, interval) rows, each z counted in every l >= its own.
void AddCapacityRows(const LpInstance& in, const Grid& g, const Columns& cols, double r,
                     LpBuilder& b) {
  const size_t intervals = g.d.size() - 1;
  std::vector<std::vector<std::vector<std::pair<int, double>>>> rows(
      in.capacity.size(), std::vector<std::vector<std::pair<int, double>>>(intervals + 1));
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    if (g.ready[t] < r) continue;
    const double demand = in.jobs[g.tasks[t].job].tasks[g.tasks[t].task].demand;
    for (const auto& [i, lz, c] : cols.z[t]) {
      const double volume = demand * Duration(in, g, g.tasks[t], static_cast<uint32_t>(i));
      for (size_t l = static_cast<size_t>(lz); l <= intervals; ++l)
        rows[static_cast<size_t>(i)][l].push_back({c, volume});
    }
  }
  for (uint32_t i = 0; i < in.capacity.size(); ++i)
    for (size_t l = 1; l <= intervals; ++l)
      if (g.d[l] > r)  // nothing ready at r can end by d_l <= r
        b.AddRow(rows[i][l], -kNotAllowed, in.capacity[i] * (g.d[l] - r));
}

// LP1's per-interval rows: the work processed on machine i in interval l fits
// c_i (d_l - d_{l-1}), and a task's processing in l fits the part of l after its ready time.
void AddPreemptiveRows(const LpInstance& in, const Grid& g, const Columns& cols, LpBuilder& b) {
  const size_t intervals = g.d.size() - 1;
  std::vector<std::vector<std::vector<std::pair<int, double>>>> rows(
      in.capacity.size(), std::vector<std::vector<std::pair<int, double>>>(intervals + 1));
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    const double demand = in.jobs[g.tasks[t].job].tasks[g.tasks[t].task].demand;
    std::vector<std::vector<std::pair<int, double>>> own(intervals + 1);
    for (const auto& [i, l, c] : cols.z[t]) {
      const double p = Duration(in, g, g.tasks[t], static_cast<uint32_t>(i));
      rows[static_cast<size_t>(i)][static_cast<size_t>(l)].push_back({c, demand * p});
      own[static_cast<size_t>(l)].push_back({c, p});
    }
    for (size_t l = 1; l <= intervals; ++l)
      b.AddRow(own[l], -kNotAllowed, g.d[l] - std::max(g.d[l - 1], g.ready[t]));
  }
  for (uint32_t i = 0; i < in.capacity.size(); ++i)
    for (size_t l = 1; l <= intervals; ++l)
      b.AddRow(rows[i][l], -kNotAllowed, in.capacity[i] * (g.d[l] - g.d[l - 1]));
}

// Constraints (a)-(f) of ALGORITHMS.md §3 ((f): C_j >= release + the task's duration).
void AddRows(const LpInstance& in, const Grid& g, const Columns& cols, LpBuilder& b) {
  const size_t intervals = g.d.size() - 1;
  const double inf = kNotAllowed;
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    const TaskRef ref = g.tasks[t];
    std::vector<std::pair<int, double>> assign, work{{cols.c[ref.job], 1.0}};
    for (const auto& [i, l, c] : cols.z[t]) {
      assign.push_back({c, 1.0});
      work.push_back({c, -Duration(in, g, ref, static_cast<uint32_t>(i))});
    }
    b.AddRow(assign, 1, 1);                    // (a)
    b.AddRow(work, g.ready[t], inf);           // (f)
    for (size_t l = 1; l <= intervals; ++l) {  // (c)
      std::vector<std::pair<int, double>> row;
      for (size_t m = 1; m <= l; ++m) row.push_back({cols.x[ref.job][m], 1.0});
      for (const auto& [i, lz, c] : cols.z[t])
        if (static_cast<size_t>(lz) <= l) row.push_back({c, -1.0});
      b.AddRow(row, -inf, 0);
    }
  }
  for (double r : ReleaseThresholds(g)) AddCapacityRows(in, g, cols, r, b);  // (b)
  if (g.preemptive) AddPreemptiveRows(in, g, cols, b);
  for (size_t j = 0; j < in.jobs.size(); ++j) {
    if (!cols.c[j]) continue;
    std::vector<std::pair<int, double>> one, start{{cols.c[j], 1.0}};
    for (size_t l = 1; l <= intervals; ++l) {
      one.push_back({cols.x[j][l], 1.0});
      if (g.d[l - 1] > 0) start.push_back({cols.x[j][l], -g.d[l - 1]});
    }
    b.AddRow(one, 1, 1);      // (d)
    b.AddRow(start, 0, inf);  // (e)
  }
}

Status Simplex(glp_prob* lp, int method) {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = method;
  const int rc = glp_simplex(lp, &parm);
  if (rc != 0 || glp_get_status(lp) != GLP_OPT)
    return Status::Internal("interval_lp", "GLPK simplex failed (code " + std::to_string(rc) +
                                               ", status " + std::to_string(glp_get_status(lp)) +
                                               ")");
  return Status::Ok();
}

// The second, lexicographic solve: keep sum w_j C_j at its optimum and minimize the
// tasks' weighted interval ends, so that no task ends later than it must (the first
// optimum is indifferent to where a task ends inside its job's last interval, and
// often piles tasks onto one machine). Starts from the first optimum's basis; the
// new row is basic and satisfied, so the primal simplex continues from it.
Status Spread(const LpInstance& in, const Grid& g, const Columns& cols, double optimum,
              glp_prob* lp) {
  const int row = glp_add_rows(lp, 1);
  std::vector<int> index{0};
  std::vector<double> value{0};
  for (size_t j = 0; j < in.jobs.size(); ++j)
    if (cols.c[j]) {
      index.push_back(cols.c[j]), value.push_back(in.jobs[j].weight);
      glp_set_obj_coef(lp, cols.c[j], 0.0);
    }
  glp_set_mat_row(lp, row, static_cast<int>(index.size() - 1), index.data(), value.data());
  glp_set_row_bnds(lp, row, GLP_UP, 0.0, optimum * (1 + 1e-9) + 1e-9);
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    const LpJob& job = in.jobs[g.tasks[t].job];
    for (const auto& [i, l, c] : cols.z[t])
      glp_set_obj_coef(lp, c, job.weight / static_cast<double>(job.tasks.size()) * g.d[l]);
  }
  return Simplex(lp, GLP_PRIMAL);
}

}  // namespace

size_t IntervalLpColumns(const LpInstance& instance, const IntervalLpOptions& options) {
  return CountColumns(instance, BuildGrid(instance, options));
}

Status SolveIntervalLp(const LpInstance& in, const IntervalLpOptions& options,
                       IntervalLpResult* result) {
  if (!(options.epsilon > 0) || !std::isfinite(options.epsilon))
    return Status::InvalidArgument("epsilon", "must be > 0");
  const Grid g = BuildGrid(in, options);
  *result = IntervalLpResult{};
  result->endpoints = g.d;
  result->tasks = g.tasks;
  result->completion.assign(in.jobs.size(), 0.0);
  if (g.tasks.empty()) return Status::Ok();
  const size_t columns = CountColumns(in, g);
  if (columns > options.max_columns)
    return Status::ResourceExhausted("instance", "the LP would have " + std::to_string(columns) +
                                                     " columns, more than the limit of " +
                                                     std::to_string(options.max_columns));
  glp_term_out(GLP_OFF);
  GlpkProblem lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  LpBuilder builder(lp.get());
  const Columns cols = MakeColumns(in, g, builder);
  AddRows(in, g, cols, builder);
  builder.Load();
  Status s = Simplex(lp.get(), GLP_DUALP);
  if (!s.ok()) return s;
  result->objective = glp_get_obj_val(lp.get());
  if (options.spread) {
    s = Spread(in, g, cols, result->objective, lp.get());
    if (!s.ok()) return s;
  }
  result->z.resize(g.tasks.size());
  for (size_t t = 0; t < g.tasks.size(); ++t)
    for (const auto& [i, l, c] : cols.z[t]) {
      const double v = glp_get_col_prim(lp.get(), c);
      if (v > 1e-9) result->z[t].push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(l), v});
    }
  for (size_t j = 0; j < in.jobs.size(); ++j)
    if (cols.c[j]) result->completion[j] = glp_get_col_prim(lp.get(), cols.c[j]);
  return Status::Ok();
}

}  // namespace locsched
