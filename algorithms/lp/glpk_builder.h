// GlpkProblem and LpBuilder: a GLPK problem that deletes itself, and the LP in
// GLPK's triplet form built row by row (columns numbered as made). Used by the
// interval LP and the class LP while they build their models; one problem per
// builder, one thread.
#pragma once

#include <glpk.h>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace locsched {

struct GlpkProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
/// A glp_prob owned like any other heap object.
using GlpkProblem = std::unique_ptr<glp_prob, GlpkProblemDeleter>;

/// Columns and rows of one LP, loaded into GLPK at once by Load().
class LpBuilder {
 public:
  explicit LpBuilder(glp_prob* lp);
  /// A column lower <= x <= upper (an infinite upper bound is open) with objective `cost`.
  int AddColumn(double cost, double lower, double upper);
  /// A row lower <= sum coef*col <= upper (infinite bounds are open); none if no terms.
  void AddRow(const std::vector<std::pair<int, double>>& terms, double lower, double upper);
  /// Hands the collected coefficients to GLPK.
  void Load();
  /// Rows added so far.
  size_t rows() const { return rows_; }

 private:
  glp_prob* lp_;
  std::vector<int> ia_, ja_;  // GLPK's triplets are 1-based: entry 0 is a placeholder
  std::vector<double> ar_;
  size_t rows_ = 0;
};

}  // namespace locsched
