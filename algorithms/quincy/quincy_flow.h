// SolveQuincyFlow: Quincy's scheduling network (Isard et al., SOSP 2009) as one
// min-cost flow. Each queued task sends one unit to the sink through one of: a
// replica holder (its local cost), the aggregator of a rack holding a replica
// (rack cost), the cluster aggregator X (remote cost), or its job's
// unscheduled node U_j (its own waiting cost). Aggregators reach the machines
// of their rack, X reaches every rack, machines reach the sink with capacity
// their free slots. Plain vectors in and out: LEMON (NetworkSimplex or
// CostScaling) stays inside quincy_flow.cc, compiled as C++17. Called by the
// core's `quincy` policy, its tests and bench/quincy_bench.cc. Pure, thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace locsched {

/// One queued task of a Quincy network.
struct QuincyTask {
  int job = 0;               ///< its job, 0..jobs-1 (picks its unscheduled node)
  std::vector<int> holders;  ///< machines holding its input (distinct)
  int64_t unscheduled = 0;   ///< cost of leaving it unscheduled (grows with its wait)
};

/// The network's input. Costs are integers in one unit (the policy: milliseconds).
struct QuincyProblem {
  std::vector<int> rack;        ///< per machine, its rack (0..racks-1)
  std::vector<int> free_slots;  ///< per machine, tasks it may start (0: full or down)
  int64_t local_cost = 0;       ///< a run on a holder
  int64_t rack_cost = 0;        ///< a run in a holder's rack, off the holders
  int64_t remote_cost = 0;      ///< a run anywhere else (through X)
  int jobs = 0;                 ///< job ids are 0..jobs-1
  /// Per job, the most of its tasks U_j may hold (Quincy's fairness bound: at least
  /// tasks - max are placed); empty, or a value < 0: all of them.
  std::vector<int> max_unscheduled;
  std::vector<QuincyTask> tasks;
};

/// The solver behind SolveQuincyFlow (bench/quincy_bench.cc measures both).
enum class QuincyAlgorithm { kNetworkSimplex, kCostScaling };

/// The optimal flow, one machine per task.
struct QuincyAssignment {
  bool feasible = false;     ///< false if the max_unscheduled bounds cannot be met
  int64_t cost = 0;          ///< the flow's total cost
  std::vector<int> machine;  ///< per task, where it runs; -1: unscheduled
};

/// Solves the network of `problem` for a minimum-cost flow.
QuincyAssignment SolveQuincyFlow(const QuincyProblem& problem,
                                 QuincyAlgorithm algorithm = QuincyAlgorithm::kNetworkSimplex);

/// The cost of running task t of `problem` on machine m: local if m holds its input, rack
/// if one of m's rack does, else remote (the cheapest path through the network).
int64_t QuincyPlacementCost(const QuincyProblem& problem, const QuincyTask& t, int m);

}  // namespace locsched
