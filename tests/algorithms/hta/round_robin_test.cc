// Tests RoundRobin (algorithms/hta/round_robin.h) and the paper's constructions:
// adding a replica can worsen round robin (Theorem 4.1), and round robin can
// reach floor(m/n)·w_rem where the optimum is ceil(m/n)·w_loc (Theorem 4.3) while
// Algorithm 2 (algorithms/hta/hta_flow.h) finds the optimum.
#include "algorithms/hta/round_robin.h"

#include <catch2/catch.hpp>

#include <vector>

#include "algorithms/hta/hta_exact.h"
#include "algorithms/hta/hta_flow.h"
#include "tests/algorithms/hta/hta_test_util.h"

namespace locsched {
namespace {

double RoundRobinLoad(const HtaInstance& in, const std::vector<int>& order = {}) {
  return EvaluateAssignment(in, RoundRobin(in, order)).max_load;
}

TEST_CASE("round robin gives each server floor or ceil of m/n tasks, local ones first",
          "[round_robin]") {
  Rng rng(4);
  for (int i = 0; i < 100; ++i) {
    const int n = 1 + static_cast<int>(rng.Below(9)), m = static_cast<int>(rng.Below(40));
    const HtaInstance in = RandomInstance(rng, n, m, 3, false);
    const std::vector<int> a = RoundRobin(in);
    std::vector<int> count(static_cast<size_t>(n), 0);
    for (int s : a) ++count[static_cast<size_t>(s)];
    for (int c : count) CHECK((c == m / n || c == (m + n - 1) / n));
  }
  HtaInstance own;  // task i on server i: round robin keeps everything local
  own.servers = 5;
  for (int t = 0; t < 5; ++t) own.tasks.push_back({t});
  CHECK(EvaluateAssignment(own, RoundRobin(own)).local_tasks == 5);
}

TEST_CASE("Theorem 4.1: one more replica can make round robin worse", "[round_robin]") {
  for (int n = 2; n <= 9; ++n) {
    INFO("n " << n);
    HtaInstance g;  // task i on server i only
    g.servers = n;
    g.costs = {1, {3}};
    for (int t = 0; t < n; ++t) g.tasks.push_back({t});
    HtaInstance g2 = g;  // plus a replica of the last task on server 0
    g2.tasks[static_cast<size_t>(n - 1)].push_back(0);
    std::vector<int> order{n - 1};  // the run in the proof: server 0 takes the last task first
    for (int t = 0; t < n - 1; ++t) order.push_back(t);
    const double before = RoundRobinLoad(g, order);
    const double after = RoundRobinLoad(g2, order);
    CHECK(before == Approx(g.costs.w_loc));
    CHECK(after > before);
    CHECK(after == Approx(g2.costs.Remote(1)));
    CHECK(SolveHtaFlow(g2).max_load == Approx(before));  // Algorithm 2 is not fooled
  }
}

// Theorem 4.3's placement: T_i local to server i (sizes ceil/floor of m/n,
// nonincreasing), and each task of the last group also on a distinct server of
// 0..n-2. Returns the instance and the run's order: the last group first.
HtaInstance Theorem43(int n, int m, double w_rem, std::vector<int>* order) {
  HtaInstance in;
  in.servers = n;
  in.costs = {1, {w_rem}};
  std::vector<int> last;
  for (int i = 0, next = 0; i < n; ++i) {
    const int size = m / n + (i < m % n ? 1 : 0);
    for (int k = 0; k < size; ++k, ++next) {
      in.tasks.push_back({i});
      if (i == n - 1) {
        in.tasks.back().push_back(k);  // k < size <= n-1: distinct servers of 0..n-2
        last.push_back(next);
      }
    }
  }
  *order = last;
  for (int t = 0; t < m; ++t)
    if (in.tasks[static_cast<size_t>(t)].size() == 1) order->push_back(t);
  return in;
}

TEST_CASE("Theorem 4.3: round robin floor(m/n)·w_rem against optimum ceil(m/n)·w_loc",
          "[round_robin]") {
  for (int n = 3; n <= 8; ++n) {
    for (int m = n; m <= n * (n - 2); m += 1 + m / 4) {
      INFO("n " << n << " m " << m);
      std::vector<int> order;
      const HtaInstance in = Theorem43(n, m, 3, &order);
      REQUIRE(ValidateHtaInstance(in).ok());
      const double rr = RoundRobinLoad(in, order);
      const double flow = SolveHtaFlow(in).max_load;
      const double pigeonhole = ((m + n - 1) / n) * in.costs.w_loc;
      CHECK(rr >= (m / n) * in.costs.Remote(0));
      CHECK(flow == Approx(pigeonhole));  // no assignment beats the pigeonhole bound
      CHECK(flow < rr);
      if (in.tasks.size() * static_cast<size_t>(n) <= 120) {
        HtaExact exact;
        REQUIRE(SolveHtaExact(in, &exact).ok());
        CHECK(exact.max_load == Approx(pigeonhole));
      }
    }
  }
}

}  // namespace
}  // namespace locsched
