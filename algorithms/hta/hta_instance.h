// HtaInstance: the Hadoop task-assignment model of Fischer, Su and Yin (servers,
// tasks with the servers holding their data, w_loc and a nondecreasing w_rem(r)).
// Plain data built by tools/solve/hta_command.cc and the tests and read by every HTA
// solver (round_robin, hta_flow, hta_exact). Pure; no shared state.
#pragma once

#include <cstddef>
#include <vector>

#include "base/status.h"

namespace locsched {

/// The cost model: w_loc for a local task, w_rem(r) for each remote task when r are remote.
struct HtaCosts {
  double w_loc = 1;              ///< cost of a task on a server holding its data
  std::vector<double> w_rem{3};  ///< w_rem[r]; r past the end uses the last entry
  /// w_rem(r): the cost of every remote task in an assignment with r remote tasks.
  double Remote(size_t r) const { return w_rem[r < w_rem.size() ? r : w_rem.size() - 1]; }
};

/// One instance: `servers` servers, and per task the ids of the servers holding its data.
struct HtaInstance {
  int servers = 0;                      ///< n; server ids are 0..n-1
  HtaCosts costs;                       ///< w_loc and w_rem(r)
  std::vector<std::vector<int>> tasks;  ///< tasks[t]: replica servers of task t
};

/// The figures of one complete assignment.
struct HtaLoads {
  double max_load = 0;        ///< the largest server load (the objective)
  int local_tasks = 0;        ///< tasks placed on a server holding their data
  int remote_tasks = 0;       ///< the others (r)
  std::vector<double> loads;  ///< per server: local·w_loc + remote·w_rem(r)
};

/// Checks the model's rules; the error's subject is the field path, e.g. "tasks[3][1]".
Status ValidateHtaInstance(const HtaInstance& instance);

/// True if task `t` of `instance` has its data on `server`.
bool IsLocal(const HtaInstance& instance, size_t t, int server);

/// Loads of `assignment` (server per task, every entry in [0, servers)).
HtaLoads EvaluateAssignment(const HtaInstance& instance, const std::vector<int>& assignment);

}  // namespace locsched
