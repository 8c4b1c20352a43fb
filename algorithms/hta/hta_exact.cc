#include "algorithms/hta/hta_exact.h"

#include <glpk.h>

#include <algorithm>
#include <limits>
#include <string>

#include "algorithms/hta/hta_lower_bound.h"

namespace locsched {
namespace {

// One stretch [lo, hi] of remote counts with the same w_rem value.
struct Plateau {
  int hi;
  double w_rem;
};

std::vector<Plateau> Plateaus(const HtaCosts& costs, int m) {
  std::vector<Plateau> out;
  for (int r = 0; r <= m; ++r) {
    const double w = costs.Remote(static_cast<size_t>(r));
    if (!out.empty() && out.back().w_rem == w) {
      out.back().hi = r;
    } else {
      out.push_back({r, w});
    }
  }
  return out;
}

// The MIP: x[t][s] binary, each task on one server, at most plateau.hi remote,
// every server's load (plateau's w_rem for remote) <= L. With load_cap < 0 it
// minimizes L (an extra column); otherwise L is fixed to load_cap and it
// minimizes the remote count. Fills `assignment` when GLPK proves optimality.
enum class MipResult { kOptimal, kInfeasible, kUnproven };

// Adds the m·n binaries (column t·n + s + 1) and L (last column) if `with_l`.
// L starts at `lower_bound` (HtaLowerBound: valid for every plateau's MIP, whose
// optimum is at least the true optimum); it spares GLPK most of its branching.
void AddColumns(glp_prob* p, const HtaInstance& in, const Plateau& plateau, bool with_l,
                double lower_bound) {
  const int m = static_cast<int>(in.tasks.size()), n = in.servers;
  glp_add_cols(p, m * n + (with_l ? 1 : 0));
  for (int t = 0; t < m; ++t)
    for (int s = 0; s < n; ++s) {
      const int col = t * n + s + 1;
      glp_set_col_kind(p, col, GLP_BV);
      const bool remote = !IsLocal(in, static_cast<size_t>(t), s);
      if (!with_l && remote) glp_set_obj_coef(p, col, 1.0);
      if (remote && plateau.hi == 0) glp_set_col_bnds(p, col, GLP_FX, 0, 0);
    }
  if (with_l) {
    glp_set_col_bnds(p, m * n + 1, GLP_LO, lower_bound, 0);
    glp_set_obj_coef(p, m * n + 1, 1.0);
  }
}

// Rows: m "one server" rows, n load rows, one remote-count row.
void AddRows(glp_prob* p, const HtaInstance& in, const Plateau& plateau, double load_cap) {
  const int m = static_cast<int>(in.tasks.size()), n = in.servers;
  const bool with_l = load_cap < 0;
  glp_add_rows(p, m + n + 1);
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  auto put = [&](int row, int col, double v) {
    ia.push_back(row), ja.push_back(col), ar.push_back(v);
  };
  for (int t = 0; t < m; ++t) {
    glp_set_row_bnds(p, t + 1, GLP_FX, 1, 1);
    for (int s = 0; s < n; ++s) {
      const int col = t * n + s + 1;
      const bool local = IsLocal(in, static_cast<size_t>(t), s);
      put(t + 1, col, 1);
      put(m + s + 1, col, local ? in.costs.w_loc : plateau.w_rem);
      if (!local) put(m + n + 1, col, 1);
    }
  }
  for (int s = 0; s < n; ++s) {
    if (with_l) put(m + s + 1, m * n + 1, -1);
    glp_set_row_bnds(p, m + s + 1, GLP_UP, 0, with_l ? 0 : load_cap);
  }
  glp_set_row_bnds(p, m + n + 1, GLP_UP, 0, plateau.hi);
  glp_load_matrix(p, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
}

MipResult SolveMip(const HtaInstance& in, const Plateau& plateau, double load_cap,
                   double lower_bound, int time_limit_ms, std::vector<int>* assignment) {
  glp_prob* p = glp_create_prob();
  glp_set_obj_dir(p, GLP_MIN);
  AddColumns(p, in, plateau, load_cap < 0, lower_bound);
  AddRows(p, in, plateau, load_cap);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = GLP_MSG_OFF;
  parm.tm_lim = time_limit_ms;
  const int rc = glp_intopt(p, &parm);
  const int status = glp_mip_status(p);
  MipResult result = MipResult::kUnproven;
  if (status == GLP_NOFEAS || (rc == GLP_ENOPFS || rc == GLP_ENODFS))
    result = MipResult::kInfeasible;
  if (rc == 0 && status == GLP_OPT) {
    result = MipResult::kOptimal;
    const int m = static_cast<int>(in.tasks.size()), n = in.servers;
    assignment->assign(static_cast<size_t>(m), 0);
    for (int t = 0; t < m; ++t)
      for (int s = 0; s < n; ++s)
        if (glp_mip_col_val(p, t * n + s + 1) > 0.5) (*assignment)[static_cast<size_t>(t)] = s;
  }
  glp_delete_prob(p);
  return result;
}

Status Unproven(int time_limit_ms) {
  return Status::ResourceExhausted(
      "exact", "GLPK did not prove optimality within " + std::to_string(time_limit_ms) + " ms");
}

}  // namespace

Status SolveHtaExact(const HtaInstance& in, HtaExact* out, int time_limit_ms) {
  const size_t cells = in.tasks.size() * static_cast<size_t>(in.servers);
  if (cells > kHtaExactMaxCells)
    return Status::ResourceExhausted("tasks", std::to_string(in.tasks.size()) + " tasks x " +
                                                  std::to_string(in.servers) +
                                                  " servers exceeds the exact solver's limit of " +
                                                  std::to_string(kHtaExactMaxCells) + " pairs");
  *out = HtaExact{};
  if (in.tasks.empty()) return Status::Ok();  // the empty assignment, load 0
  glp_term_out(GLP_OFF);
  const std::vector<Plateau> plateaus = Plateaus(in.costs, static_cast<int>(in.tasks.size()));
  const double lower_bound = HtaLowerBound(in);
  out->max_load = std::numeric_limits<double>::infinity();
  // Pass 1: the optimum is the best real load over the plateaus' optima.
  for (const Plateau& plateau : plateaus) {
    std::vector<int> assignment;
    if (SolveMip(in, plateau, -1, lower_bound, time_limit_ms, &assignment) != MipResult::kOptimal)
      return Unproven(time_limit_ms);
    const HtaLoads loads = EvaluateAssignment(in, assignment);
    if (loads.max_load < out->max_load)
      out->max_load = loads.max_load, out->assignment = assignment;
  }
  // Pass 2: the fewest remote tasks among optimal assignments (the answer keeps it).
  const double cap = out->max_load * (1 + 1e-9) + 1e-9;
  out->min_remote = std::numeric_limits<int>::max();
  for (const Plateau& plateau : plateaus) {
    std::vector<int> assignment;
    const MipResult r = SolveMip(in, plateau, cap, 0, time_limit_ms, &assignment);
    if (r == MipResult::kUnproven) return Unproven(time_limit_ms);
    if (r != MipResult::kOptimal) continue;
    const HtaLoads loads = EvaluateAssignment(in, assignment);
    if (loads.remote_tasks < out->min_remote && loads.max_load <= cap)
      out->min_remote = loads.remote_tasks, out->assignment = assignment;
  }
  return Status::Ok();
}

}  // namespace locsched
