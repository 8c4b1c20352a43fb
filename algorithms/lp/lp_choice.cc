#include "algorithms/lp/lp_choice.h"

#include <cstdio>

namespace locsched {

LpChoice ChooseLp(const LpInstance& in, const LpAutoRequest& r, size_t per_task_columns) {
  LpChoice c;
  c.epsilon = r.epsilon;
  if (per_task_columns <= r.max_columns) {
    c.columns = per_task_columns;
    c.step = "per-task";
    return c;
  }
  c.classes = true;
  c.knobs = r.classes;
  c.knobs.epsilon = r.epsilon;
  c.step = "classes";
  c.columns = ClassLpColumns(in, c.knobs);
  if (c.columns <= r.class_budget) return c;
  // Smaller steps: one group with per-class completion, then coarser grids.
  if (!r.groups_given) c.knobs.groups = 1;
  if (!r.per_class_given) c.knobs.per_class_completion = true;
  c.step = "classes-fast";
  c.columns = ClassLpColumns(in, c.knobs);
  for (const double eps : {2.0, 3.0}) {
    if (c.columns <= r.class_budget || r.epsilon_given || c.knobs.epsilon >= eps) break;
    c.knobs.epsilon = eps;
    char step[40];
    std::snprintf(step, sizeof step, "classes-fast-eps%g", eps);
    c.step = step;
    c.columns = ClassLpColumns(in, c.knobs);
  }
  c.epsilon = c.knobs.epsilon;
  return c;
}

}  // namespace locsched
