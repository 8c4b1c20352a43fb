#include "algorithms/lp/capacity_lp.h"

#include <glpk.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "algorithms/lp/glpk_builder.h"

namespace locsched {
namespace {}  // namespace

Status ValidateCapacityInstance(const CapacityInstance& in) {
  if (!(in.alpha > 0) || !(in.gamma > 0) || in.gamma > in.alpha || std::isinf(in.alpha))
    return Status::InvalidArgument("gamma", "needs 0 < gamma <= alpha < inf");
  for (double s : in.slots)
    if (!(s >= 0) || std::isinf(s)) return Status::InvalidArgument("slots", "must be >= 0");
  for (size_t t = 0; t < in.types.size(); ++t) {
    const std::string name = "types[" + std::to_string(t) + "]";
    if (!(in.types[t].rate >= 0) || std::isinf(in.types[t].rate))
      return Status::InvalidArgument(name + ".rate", "must be a finite number >= 0");
    for (uint32_t m : in.types[t].machines)
      if (m >= in.slots.size()) return Status::InvalidArgument(name, "names an unknown machine");
  }
  return Status::Ok();
}

namespace {

// Columns: rho (maximized), then per type a_{L,m} (m in L) and b_L, then r_m.
// Rows: per type, sum_m a + b - lambda * rho = 0; remote balance sum b - sum r = 0;
// per machine, sum a / alpha + r / gamma <= slots.
void Build(glp_prob* lp, const CapacityInstance& in) {
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  auto entry = [&](int r, int c, double v) { ia.push_back(r), ja.push_back(c), ar.push_back(v); };
  const int types = static_cast<int>(in.types.size());
  const int machines = static_cast<int>(in.slots.size());
  glp_add_rows(lp, types + 1 + machines);
  const int rho = glp_add_cols(lp, 1);
  glp_set_obj_coef(lp, rho, 1.0);
  glp_set_col_bnds(lp, rho, GLP_LO, 0, 0);
  const int balance = types + 1;
  for (int t = 0; t < types; ++t) {
    glp_set_row_bnds(lp, t + 1, GLP_FX, 0, 0);
    entry(t + 1, rho, -in.types[t].rate);
    for (uint32_t m : in.types[t].machines) {
      const int a = glp_add_cols(lp, 1);
      glp_set_col_bnds(lp, a, GLP_LO, 0, 0);
      entry(t + 1, a, 1.0);
      entry(balance + 1 + static_cast<int>(m), a, 1.0 / in.alpha);
    }
    const int b = glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, b, GLP_LO, 0, 0);
    entry(t + 1, b, 1.0);
    entry(balance, b, 1.0);
  }
  glp_set_row_bnds(lp, balance, GLP_FX, 0, 0);
  for (int m = 0; m < machines; ++m) {
    const int r = glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, r, GLP_LO, 0, 0);
    entry(balance, r, -1.0);
    entry(balance + 1 + m, r, 1.0 / in.gamma);
    glp_set_row_bnds(lp, balance + 1 + m, GLP_UP, 0, in.slots[m]);
  }
  glp_load_matrix(lp, static_cast<int>(ia.size() - 1), ia.data(), ja.data(), ar.data());
}

}  // namespace

Status SolveCapacityLp(const CapacityInstance& in, CapacityResult* result) {
  *result = CapacityResult{};
  if (Status s = ValidateCapacityInstance(in); !s.ok()) return s;
  double total = 0;
  for (const ArrivalType& t : in.types) total += t.rate;
  if (total <= 0) {
    result->rho = std::numeric_limits<double>::infinity();
    return Status::Ok();  // no arrivals: no load
  }
  glp_term_out(GLP_OFF);
  GlpkProblem lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  Build(lp.get(), in);
  result->rows = static_cast<size_t>(glp_get_num_rows(lp.get()));
  result->columns = static_cast<size_t>(glp_get_num_cols(lp.get()));
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = GLP_DUALP;
  const int rc = glp_simplex(lp.get(), &parm);
  if (rc != 0 || glp_get_status(lp.get()) != GLP_OPT)
    return Status::Internal("capacity_lp", "GLPK simplex failed (code " + std::to_string(rc) +
                                               ", status " +
                                               std::to_string(glp_get_status(lp.get())) + ")");
  result->rho = glp_get_obj_val(lp.get());
  result->load = result->rho > 0 ? 1.0 / result->rho : std::numeric_limits<double>::infinity();
  return Status::Ok();
}

}  // namespace locsched
