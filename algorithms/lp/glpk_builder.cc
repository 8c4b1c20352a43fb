#include "algorithms/lp/glpk_builder.h"

#include <cmath>

namespace locsched {

LpBuilder::LpBuilder(glp_prob* lp) : lp_(lp), ia_{0}, ja_{0}, ar_{0} {}

int LpBuilder::AddColumn(double cost, double lower, double upper) {
  const int c = glp_add_cols(lp_, 1);
  glp_set_obj_coef(lp_, c, cost);
  glp_set_col_bnds(lp_, c, upper > lower ? (std::isinf(upper) ? GLP_LO : GLP_DB) : GLP_FX, lower,
                   std::isinf(upper) ? 0.0 : upper);
  return c;
}

void LpBuilder::AddRow(const std::vector<std::pair<int, double>>& terms, double lower,
                       double upper) {
  if (terms.empty()) return;
  const int r = glp_add_rows(lp_, 1);
  const int type = std::isinf(lower)   ? GLP_UP
                   : std::isinf(upper) ? GLP_LO
                   : lower == upper    ? GLP_FX
                                       : GLP_DB;
  glp_set_row_bnds(lp_, r, type, std::isinf(lower) ? 0.0 : lower, std::isinf(upper) ? 0.0 : upper);
  for (const auto& [c, v] : terms) ia_.push_back(r), ja_.push_back(c), ar_.push_back(v);
  ++rows_;
}

void LpBuilder::Load() {
  glp_load_matrix(lp_, static_cast<int>(ia_.size() - 1), ia_.data(), ja_.data(), ar_.data());
}

}  // namespace locsched
