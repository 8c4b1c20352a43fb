// LpChoice: what `--lp auto` solves for an instance. The per-task interval LP when it fits
// its column limit; else the class LP, made smaller step by step (one machine group and
// per-class completion, then epsilon 2, then 3) until it fits a column budget that solves
// in seconds, changing only the knobs the caller left open. Called by tools/solve and
// tests. Pure; no threads.
#pragma once

#include <cstddef>
#include <string>

#include "algorithms/lp/class_lp.h"
#include "algorithms/lp/lp_instance.h"

namespace locsched {

/// The caller's settings, and which of them were given (a given knob is never changed).
struct LpAutoRequest {
  double epsilon = 1.0;
  size_t max_columns = 20000;  ///< the per-task LP's limit
  ClassLpOptions classes;      ///< the class LP's knobs as given (its epsilon is `epsilon`)
  bool epsilon_given = false, groups_given = false, per_class_given = false;
  /// The class LP's column budget: GLPK solves the class LP of this size in seconds
  /// (38,161 columns: 7.2 s; 59,958: 44 s, docs/lp.md).
  size_t class_budget = 30000;
};

/// The LP to solve.
struct LpChoice {
  bool classes = false;  ///< the class LP (else the per-task LP)
  double epsilon = 1.0;  ///< interval growth of the LP solved
  ClassLpOptions knobs;  ///< the class LP's knobs (epsilon included), if classes
  size_t columns = 0;    ///< columns of the LP chosen
  std::string step;      ///< "per-task", "classes", "classes-1-group", "classes-1-group-eps2", ...
};

/// The per-task LP's column count is `per_task_columns` (computed by the caller, which
/// knows its own limits); the rest is decided here.
LpChoice ChooseLp(const LpInstance& instance, const LpAutoRequest& request,
                  size_t per_task_columns);

}  // namespace locsched
