// RoundRobin: Algorithm 1 of Fischer, Su and Yin (the Hadoop-inspired baseline).
// Servers take turns; each takes an unassigned task whose data it holds, else any
// unassigned task. The paper leaves the choice open; here the caller's task order
// decides (first in `order` wins), which lets tests build the paper's adversarial
// runs. Called by tools/solve/hta_command.cc and the tests. Pure.
#pragma once

#include <vector>

#include "algorithms/hta/hta_instance.h"

namespace locsched {

/// Algorithm 1 on valid `instance`, servers in turn 0, 1, ..., n-1, 0, ...; `order` is
/// a permutation of the task indices giving their preference (empty: 0, 1, ...).
/// Returns the server per task, in input order.
std::vector<int> RoundRobin(const HtaInstance& instance, const std::vector<int>& order = {});

}  // namespace locsched
