#include "algorithms/hta/round_robin.h"

#include <cassert>
#include <cstddef>

namespace locsched {
namespace {

constexpr int kUnassigned = -1;

// Each server's local tasks, listed in preference order.
std::vector<std::vector<int>> LocalLists(const HtaInstance& instance,
                                         const std::vector<int>& order) {
  std::vector<std::vector<int>> local(static_cast<size_t>(instance.servers));
  for (int t : order)
    for (int s : instance.tasks[static_cast<size_t>(t)]) local[static_cast<size_t>(s)].push_back(t);
  return local;
}

}  // namespace

std::vector<int> RoundRobin(const HtaInstance& instance, const std::vector<int>& order_in) {
  const size_t m = instance.tasks.size();
  std::vector<int> order = order_in;
  if (order.empty())
    for (size_t t = 0; t < m; ++t) order.push_back(static_cast<int>(t));
  assert(order.size() == m);
  std::vector<std::vector<int>> local = LocalLists(instance, order);
  std::vector<size_t> local_next(local.size(), 0);
  std::vector<int> server(m, kUnassigned);
  size_t any_next = 0;
  // One task per turn; server i's turn skips its local tasks already taken.
  for (size_t placed = 0, i = 0; placed < m; ++placed, i = (i + 1) % local.size()) {
    const std::vector<int>& mine = local[i];
    size_t& next = local_next[i];
    while (next < mine.size() && server[static_cast<size_t>(mine[next])] != kUnassigned) ++next;
    int t;
    if (next < mine.size()) {
      t = mine[next];
    } else {
      while (server[static_cast<size_t>(order[any_next])] != kUnassigned) ++any_next;
      t = order[any_next];
    }
    server[static_cast<size_t>(t)] = static_cast<int>(i);
  }
  return server;
}

}  // namespace locsched
