// Compiled as C++17: LEMON 1.3.1's array maps use std::allocator members that C++20 removed.
//
// Why a flow solves the LP: for a fixed rho, local work is always cheaper than
// remote (1/alpha <= 1/gamma) and remote work may go to any machine, so rho is
// feasible iff   S - rho*Lambda/gamma + c*F(rho) >= 0,   where S is the total slots,
// Lambda the total rate, c = 1/gamma - 1/alpha, and F(rho) the max local flow
// source -(rho*lambda_L)-> type L -> machine m in L -(alpha*slots_m)-> sink.
// F is concave and piecewise linear, so g(rho) = S - rho*Lambda/gamma + c*F(rho) is
// too. Newton from the upper bound alpha*S/Lambda: a min cut at rho gives the line
// F = rho*a + b (a: rates of the types cut off, b: capacity of the machines kept),
// which lies above F everywhere; its root is the next, smaller rho. Each step
// changes the cut, so the steps end at the exact optimum.
#include "algorithms/lp/capacity_flow.h"

#include <lemon/preflow.h>
#include <lemon/smart_graph.h>

#include <limits>
#include <vector>

namespace locsched {
namespace {

using Graph = lemon::SmartDigraph;

/// The network, built once; Cut() re-runs Preflow for a new rho.
class LocalFlow {
 public:
  explicit LocalFlow(const CapacityInstance& in);
  /// The line F = rho * a + b of a min cut at rho.
  void Cut(double rho, double* a, double* b);
  int nodes() const { return g_.nodeNum(); }
  int arcs() const { return g_.arcNum(); }

 private:
  const CapacityInstance& in_;
  Graph g_;
  Graph::ArcMap<double> cap_{g_};
  Graph::Node source_ = g_.addNode(), sink_ = g_.addNode();
  std::vector<Graph::Arc> type_arcs_;  // source -> type, per type
  std::vector<Graph::Arc> wide_arcs_;  // type -> machine: never binding
  std::vector<Graph::Node> types_;
  std::vector<std::pair<Graph::Node, double>> machines_;  // node, alpha * slots
  double total_rate_ = 0;
};

LocalFlow::LocalFlow(const CapacityInstance& in) : in_(in) {
  std::vector<int> node_of(in.slots.size(), -1);  // machine -> index in machines_
  for (const ArrivalType& t : in.types) {
    total_rate_ += t.rate;
    types_.push_back(g_.addNode());
    type_arcs_.push_back(g_.addArc(source_, types_.back()));
    for (uint32_t m : t.machines) {
      if (node_of[m] < 0) {
        node_of[m] = static_cast<int>(machines_.size());
        machines_.push_back({g_.addNode(), in.alpha * in.slots[m]});
        cap_[g_.addArc(machines_.back().first, sink_)] = machines_.back().second;
      }
      wide_arcs_.push_back(g_.addArc(types_.back(), machines_[node_of[m]].first));
    }
  }
}

void LocalFlow::Cut(double rho, double* a, double* b) {
  for (size_t t = 0; t < type_arcs_.size(); ++t) cap_[type_arcs_[t]] = rho * in_.types[t].rate;
  const double wide = 2 * rho * total_rate_ + 1;  // above any cut: never saturated
  for (Graph::Arc arc : wide_arcs_) cap_[arc] = wide;
  lemon::Preflow<Graph, Graph::ArcMap<double>> preflow(g_, cap_, source_, sink_);
  preflow.runMinCut();
  *a = *b = 0;
  for (size_t t = 0; t < types_.size(); ++t)
    if (!preflow.minCut(types_[t])) *a += in_.types[t].rate;
  for (const auto& [node, capacity] : machines_)
    if (preflow.minCut(node)) *b += capacity;
}

}  // namespace

Status SolveCapacityFlow(const CapacityInstance& in, CapacityResult* result) {
  *result = CapacityResult{};
  if (Status s = ValidateCapacityInstance(in); !s.ok()) return s;
  double total_rate = 0, total_slots = 0;
  for (const ArrivalType& t : in.types) total_rate += t.rate;
  for (double s : in.slots) total_slots += s;
  if (total_rate <= 0) {
    result->rho = std::numeric_limits<double>::infinity();
    return Status::Ok();  // no arrivals: no load
  }
  LocalFlow flow(in);
  result->rows = static_cast<size_t>(flow.nodes());
  result->columns = static_cast<size_t>(flow.arcs());
  // Newton steps from the upper bound, falling monotonically onto the optimum.
  const double c = 1 / in.gamma - 1 / in.alpha;
  double rho = in.alpha * total_slots / total_rate;
  for (int step = 0; step < 200 && rho > 0; ++step) {
    double a = 0, b = 0;
    flow.Cut(rho, &a, &b);
    const double next = (total_slots + c * b) / (total_rate / in.gamma - c * a);
    if (!(next < rho * (1 - 1e-12))) break;
    rho = next;
  }
  result->rho = rho;
  result->load = rho > 0 ? 1.0 / rho : std::numeric_limits<double>::infinity();
  return Status::Ok();
}

}  // namespace locsched
