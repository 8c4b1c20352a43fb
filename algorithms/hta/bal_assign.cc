#include "algorithms/hta/bal_assign.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace locsched {
namespace {

// The uncovered live tasks, and per server the uncovered tasks it holds data of
// (both ascending by id, consumed from the front through cursors).
struct Pending {
  std::vector<int> tasks;
  std::vector<std::vector<int>> local;
  std::vector<size_t> local_next;
  size_t next = 0;
};

Pending CollectUncovered(const MaxCover& cover) {
  Pending p;
  p.local.resize(static_cast<size_t>(cover.servers()));
  p.local_next.assign(p.local.size(), 0);
  for (int t = 0; t < cover.task_slots(); ++t) {
    if (!cover.live(t) || cover.match(t) != MaxCover::kNone) continue;
    p.tasks.push_back(t);
    for (int s : cover.replicas(t))
      if (cover.up(s)) p.local[static_cast<size_t>(s)].push_back(t);
  }
  return p;
}

// The next unplaced task local to `s`, or kNone.
int NextLocal(Pending& p, const std::vector<int>& server, int s) {
  const std::vector<int>& mine = p.local[static_cast<size_t>(s)];
  size_t& i = p.local_next[static_cast<size_t>(s)];
  while (i < mine.size() && server[static_cast<size_t>(mine[i])] != MaxCover::kNone) ++i;
  return i < mine.size() ? mine[i] : MaxCover::kNone;
}

// The lowest-id unplaced task.
int NextAny(Pending& p, const std::vector<int>& server) {
  while (server[static_cast<size_t>(p.tasks[p.next])] != MaxCover::kNone) ++p.next;
  return p.tasks[p.next];
}

}  // namespace

BalResult BalAssign(const MaxCover& cover, const HtaCosts& costs) {
  const size_t n = static_cast<size_t>(cover.servers());
  BalResult out;
  out.server.assign(static_cast<size_t>(cover.task_slots()), MaxCover::kNone);
  std::vector<int> local(n, 0), remote(n, 0);
  using Entry = std::pair<double, int>;  // (virtual load, server)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  for (size_t s = 0; s < n; ++s) {
    for (int t : cover.covered(static_cast<int>(s)))
      out.server[static_cast<size_t>(t)] = static_cast<int>(s);
    local[s] = static_cast<int>(cover.covered(static_cast<int>(s)).size()) +
               cover.base(static_cast<int>(s));
    if (cover.up(static_cast<int>(s))) heap.emplace(local[s] * costs.w_loc, static_cast<int>(s));
  }
  Pending pending = CollectUncovered(cover);
  const double virtual_remote = costs.Remote(pending.tasks.size());
  // One task per step: the least-loaded server takes a task of its own, else any.
  for (size_t placed = 0; placed < pending.tasks.size(); ++placed) {
    if (heap.empty()) break;  // no server is up: the rest stay unplaced
    auto [load, s] = heap.top();
    heap.pop();
    int t = NextLocal(pending, out.server, s);
    const bool is_local = t != MaxCover::kNone;
    if (!is_local) t = NextAny(pending, out.server);
    out.server[static_cast<size_t>(t)] = s;
    ++(is_local ? local : remote)[static_cast<size_t>(s)];
    heap.emplace(load + (is_local ? costs.w_loc : virtual_remote), s);
  }
  for (size_t s = 0; s < n; ++s) out.remote_tasks += remote[s];
  const double w_rem = costs.Remote(static_cast<size_t>(out.remote_tasks));
  for (size_t s = 0; s < n; ++s)
    if (cover.up(static_cast<int>(s)))
      out.max_load = std::max(out.max_load, local[s] * costs.w_loc + remote[s] * w_rem);
  return out;
}

}  // namespace locsched
