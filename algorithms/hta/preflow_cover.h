// PreflowCoverValue: the from-scratch reference for MaxCover, LEMON's Preflow on
// source → task (1) → replica server (1) → sink (tau − base). Called by the tests and
// the benchmark; LEMON stays inside preflow_cover.cc (compiled as C++17, see
// algorithms/CMakeLists.txt), so this header is plain C++. Pure, thread-safe.
#pragma once

#include <vector>

namespace locsched {

/// A max-cover problem: per task its replica servers; down servers take no task.
struct CoverProblem {
  int servers = 0;                      ///< server ids are 0..servers-1
  int tau = 1;                          ///< tasks an up server may cover
  std::vector<char> up;                 ///< per server, nonzero if up (empty: all up)
  std::vector<int> base;                ///< per server, load carried: capacity tau - base
  std::vector<std::vector<int>> tasks;  ///< per task, the servers holding its data
};

/// The maximum number of tasks coverable (the max-flow value), by LEMON's Preflow.
int PreflowCoverValue(const CoverProblem& problem);

}  // namespace locsched
