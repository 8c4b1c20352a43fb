// Compiled as C++17: LEMON 1.3.1's array maps use std::allocator members that C++20 removed.
#include "algorithms/quincy/quincy_flow.h"

#include <lemon/cost_scaling.h>
#include <lemon/list_graph.h>
#include <lemon/network_simplex.h>

#include <algorithm>

namespace locsched {
namespace {

using Graph = lemon::ListDigraph;
using Node = Graph::Node;
using Arc = Graph::Arc;

// The network of one problem: the graph, its maps, and the arcs the decomposition reads.
struct Network {
  Graph g;
  Graph::ArcMap<int> cap{g};
  Graph::ArcMap<int64_t> cost{g};
  Graph::NodeMap<int> supply{g};
  Node sink, x;
  std::vector<Node> machine, rack, unscheduled;
  // Per task: its arcs and where each leads (machine id, or -1 - rack, or kToX / kToU).
  std::vector<std::vector<std::pair<Arc, int>>> task_arcs;
  std::vector<Arc> x_to_rack;                              // per rack
  std::vector<std::vector<std::pair<Arc, int>>> rack_out;  // per rack: (arc, machine)
};

constexpr int kToX = -1000000000, kToU = kToX + 1;

Arc AddArc(Network& n, Node from, Node to, int cap, int64_t cost) {
  const Arc a = n.g.addArc(from, to);
  n.cap[a] = cap;
  n.cost[a] = cost;
  return a;
}

int Racks(const QuincyProblem& p) {
  int racks = 0;
  for (const int r : p.rack) racks = std::max(racks, r + 1);
  return racks;
}

// Machines with free slots, rack aggregators over them, X over the racks, the sink.
void AddMachines(const QuincyProblem& p, Network& n) {
  const int racks = Racks(p);
  n.sink = n.g.addNode();
  n.x = n.g.addNode();
  n.rack.resize(static_cast<size_t>(racks));
  n.rack_out.resize(static_cast<size_t>(racks));
  std::vector<int> rack_free(static_cast<size_t>(racks), 0);
  for (int r = 0; r < racks; ++r) n.rack[static_cast<size_t>(r)] = n.g.addNode();
  n.machine.assign(p.rack.size(), lemon::INVALID);
  for (size_t m = 0; m < p.rack.size(); ++m) {
    const int free = p.free_slots[m];
    if (free <= 0) continue;
    const auto r = static_cast<size_t>(p.rack[m]);
    n.machine[m] = n.g.addNode();
    AddArc(n, n.machine[m], n.sink, free, 0);
    n.rack_out[r].emplace_back(AddArc(n, n.rack[r], n.machine[m], free, 0), static_cast<int>(m));
    rack_free[r] += free;
  }
  for (int r = 0; r < racks; ++r) {
    const auto i = static_cast<size_t>(r);
    n.x_to_rack.push_back(AddArc(n, n.x, n.rack[i], rack_free[i], 0));
  }
}

// Per job U_j -> sink, capacity its tasks or its max_unscheduled bound.
void AddUnscheduled(const QuincyProblem& p, Network& n) {
  std::vector<int> tasks(static_cast<size_t>(p.jobs), 0);
  for (const QuincyTask& t : p.tasks) ++tasks[static_cast<size_t>(t.job)];
  for (size_t j = 0; j < tasks.size(); ++j) {
    n.unscheduled.push_back(n.g.addNode());
    int cap = tasks[j];
    if (j < p.max_unscheduled.size() && p.max_unscheduled[j] >= 0)
      cap = std::min(cap, p.max_unscheduled[j]);
    AddArc(n, n.unscheduled.back(), n.sink, cap, 0);
  }
}

// One task: a unit of supply and its arcs to holders, their racks, X and U_j.
void AddTask(const QuincyProblem& p, const QuincyTask& t, Network& n) {
  const Node v = n.g.addNode();
  n.supply[v] = 1;
  std::vector<std::pair<Arc, int>>& arcs = n.task_arcs.emplace_back();
  std::vector<int> racks;
  for (const int m : t.holders) {
    const auto i = static_cast<size_t>(m);
    if (n.machine[i] != lemon::INVALID)
      arcs.emplace_back(AddArc(n, v, n.machine[i], 1, p.local_cost), m);
    if (std::find(racks.begin(), racks.end(), p.rack[i]) == racks.end()) racks.push_back(p.rack[i]);
  }
  for (const int r : racks)
    if (n.cap[n.x_to_rack[static_cast<size_t>(r)]] > 0)
      arcs.emplace_back(AddArc(n, v, n.rack[static_cast<size_t>(r)], 1, p.rack_cost), -1 - r);
  arcs.emplace_back(AddArc(n, v, n.x, 1, p.remote_cost), kToX);
  arcs.emplace_back(AddArc(n, v, n.unscheduled[static_cast<size_t>(t.job)], 1, t.unscheduled),
                    kToU);
}

// Runs the chosen solver; fills flow and returns false if infeasible.
template <typename Solver>
bool Run(Network& n, Graph::ArcMap<int>& flow, int64_t* cost) {
  Solver solver(n.g);
  solver.upperMap(n.cap).costMap(n.cost).supplyMap(n.supply);
  if (solver.run() != Solver::OPTIMAL) return false;
  solver.flowMap(flow);
  *cost = solver.template totalCost<int64_t>();
  return true;
}

// Slots each rack hands on: to its machines through its out-arcs, as a list of machines.
std::vector<std::vector<int>> RackSlots(const Network& n, const Graph::ArcMap<int>& flow) {
  std::vector<std::vector<int>> slots(n.rack.size());
  for (size_t r = 0; r < n.rack.size(); ++r)
    for (const auto& [arc, m] : n.rack_out[r]) slots[r].insert(slots[r].end(), flow[arc], m);
  return slots;
}

// Turns the flow into one machine per task: a task on a rack arc takes a slot its rack
// passes on; a task on X one left over from X's racks (all downstream arcs cost 0).
std::vector<int> Decompose(const Network& n, const Graph::ArcMap<int>& flow) {
  std::vector<std::vector<int>> slots = RackSlots(n, flow);
  std::vector<int> machine(n.task_arcs.size(), -1);
  std::vector<size_t> via_x;
  for (size_t i = 0; i < n.task_arcs.size(); ++i) {
    for (const auto& [arc, to] : n.task_arcs[i]) {
      if (flow[arc] == 0 || to == kToU) continue;
      if (to == kToX) {
        via_x.push_back(i);
      } else if (to >= 0) {
        machine[i] = to;
      } else {
        machine[i] = slots[static_cast<size_t>(-1 - to)].back();
        slots[static_cast<size_t>(-1 - to)].pop_back();
      }
    }
  }
  size_t r = 0;
  for (const size_t i : via_x) {
    while (slots[r].empty()) ++r;
    machine[i] = slots[r].back();
    slots[r].pop_back();
  }
  return machine;
}

}  // namespace

QuincyAssignment SolveQuincyFlow(const QuincyProblem& problem, QuincyAlgorithm algorithm) {
  Network n;
  AddMachines(problem, n);
  AddUnscheduled(problem, n);
  for (const QuincyTask& t : problem.tasks) AddTask(problem, t, n);
  n.supply[n.sink] = -static_cast<int>(problem.tasks.size());
  QuincyAssignment out;
  Graph::ArcMap<int> flow(n.g);
  using Simplex = lemon::NetworkSimplex<Graph, int, int64_t>;
  using Scaling = lemon::CostScaling<Graph, int, int64_t>;
  out.feasible = algorithm == QuincyAlgorithm::kNetworkSimplex ? Run<Simplex>(n, flow, &out.cost)
                                                               : Run<Scaling>(n, flow, &out.cost);
  if (out.feasible) out.machine = Decompose(n, flow);
  return out;
}

int64_t QuincyPlacementCost(const QuincyProblem& problem, const QuincyTask& t, int m) {
  const auto& holders = t.holders;
  if (std::find(holders.begin(), holders.end(), m) != holders.end()) return problem.local_cost;
  for (const int h : holders)
    if (problem.rack[static_cast<size_t>(h)] == problem.rack[static_cast<size_t>(m)])
      return problem.rack_cost;
  return problem.remote_cost;
}

}  // namespace locsched
