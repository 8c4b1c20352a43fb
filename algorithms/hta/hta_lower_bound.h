// HtaLowerBound: a lower bound on the optimal max load of an HTA instance, from
// max-cover values (MaxCover) and counting. Called by tools/solve/hta_command.cc and the
// tests (which check it never exceeds the exact optimum). Pure.
#pragma once

#include "algorithms/hta/hta_instance.h"

namespace locsched {

/// max(ceil(m/n)·w_loc, least L consistent with: at most f(floor(L/w_loc)) local
/// tasks (f = max-cover value), so total load >= f·w_loc + (m-f)·w_rem(m-f) and,
/// with any remote task, some server carries w_rem(m-f)). `instance` must be valid.
double HtaLowerBound(const HtaInstance& instance);

}  // namespace locsched
