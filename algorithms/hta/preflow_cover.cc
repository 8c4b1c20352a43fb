// Compiled as C++17: LEMON 1.3.1's array maps use std::allocator members that C++20 removed.
#include "algorithms/hta/preflow_cover.h"

#include <lemon/list_graph.h>
#include <lemon/preflow.h>

namespace locsched {

int PreflowCoverValue(const CoverProblem& problem) {
  using Graph = lemon::ListDigraph;
  Graph g;
  Graph::ArcMap<int> capacity(g);
  const Graph::Node source = g.addNode(), sink = g.addNode();
  std::vector<Graph::Node> servers;
  for (int s = 0; s < problem.servers; ++s) {
    servers.push_back(g.addNode());
    const bool up = problem.up.empty() || problem.up[static_cast<size_t>(s)] != 0;
    const int base = problem.base.empty() ? 0 : problem.base[static_cast<size_t>(s)];
    capacity[g.addArc(servers.back(), sink)] = up && base < problem.tau ? problem.tau - base : 0;
  }
  for (const std::vector<int>& replicas : problem.tasks) {
    const Graph::Node task = g.addNode();
    capacity[g.addArc(source, task)] = 1;
    for (int s : replicas) capacity[g.addArc(task, servers[static_cast<size_t>(s)])] = 1;
  }
  lemon::Preflow<Graph, Graph::ArcMap<int>> preflow(g, capacity, source, sink);
  preflow.runMinCut();
  return preflow.flowValue();
}

}  // namespace locsched
