#include "algorithms/hta/max_cover.h"

#include <algorithm>
#include <cassert>

namespace locsched {

MaxCover::MaxCover(int servers, int tau)
    : assigned_(Index(servers)), up_(Index(servers), 1), base_(Index(servers), 0), tau_(tau) {
  assert(servers >= 0 && tau >= 0);
}

int MaxCover::AddTask(const std::vector<int>& replicas) {
  int id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<int>(tasks_.size());
    tasks_.emplace_back();
  }
  Task& task = tasks_[Index(id)];
  assert(std::all_of(replicas.begin(), replicas.end(),
                     [&](int s) { return s >= 0 && s < servers(); }));
  task.replicas = replicas;
  task.live = true;
  ++live_;
  return id;
}

void MaxCover::RemoveTask(int task) {
  assert(live(task));
  if (match(task) != kNone) Uncover(task);
  Task& t = tasks_[Index(task)];
  t.live = false;
  t.replicas.clear();
  --live_;
  free_ids_.push_back(task);
}

void MaxCover::SetServerUp(int server, bool up) {
  up_[Index(server)] = up ? 1 : 0;
  std::vector<int>& covered = assigned_[Index(server)];
  while (!up && !covered.empty()) Uncover(covered.back());
}

int MaxCover::AddServer() {
  assigned_.emplace_back();
  up_.push_back(1);
  base_.push_back(0);
  return servers() - 1;
}

void MaxCover::SetBase(int server, int base) {
  assert(base >= 0);
  base_[Index(server)] = base;
  PushBack(server);
}

void MaxCover::SetTau(int tau) {
  assert(tau >= 0);
  tau_ = tau;
  for (int s = 0; s < servers(); ++s) PushBack(s);
}

// Uncovers the units of `server` beyond its capacity.
void MaxCover::PushBack(int server) {
  std::vector<int>& covered = assigned_[Index(server)];
  while (static_cast<int>(covered.size()) > Capacity(server)) Uncover(covered.back());
}

void MaxCover::Cover(int task, int server) {
  Task& t = tasks_[Index(task)];
  assert(t.match == kNone);
  std::vector<int>& covered = assigned_[Index(server)];
  t.match = server;
  t.pos = static_cast<int>(covered.size());
  covered.push_back(task);
  ++flow_;
}

void MaxCover::Uncover(int task) {
  Task& t = tasks_[Index(task)];
  assert(t.match != kNone);
  std::vector<int>& covered = assigned_[Index(t.match)];
  const int last = covered.back();
  covered[Index(t.pos)] = last;
  tasks_[Index(last)].pos = t.pos;
  covered.pop_back();
  t.match = kNone;
  t.pos = -1;
  --flow_;
}

int MaxCover::Augment() {
  int added = 0;
  // Shape: each phase layers the residual graph by BFS from every uncovered
  // task, then finds a blocking set of shortest augmenting paths by DFS; stop
  // when no uncovered task reaches a server with room.
  while (BuildLayers()) {
    ++phases_;
    task_next_.assign(tasks_.size(), 0);
    server_next_.assign(assigned_.size(), 0);
    for (size_t t = 0; t < tasks_.size(); ++t)
      if (task_dist_[t] == 0 && AugmentFrom(static_cast<int>(t))) ++added;
  }
  return added;
}

// BFS over the residual graph: uncovered task → replica server (not its own) →
// the tasks that server covers. Tasks get even layers, servers odd ones; the
// search stops at the first layer that holds a server with room.
bool MaxCover::BuildLayers() {
  task_dist_.assign(tasks_.size(), -1);
  server_dist_.assign(assigned_.size(), -1);
  queue_.clear();
  for (size_t t = 0; t < tasks_.size(); ++t)
    if (tasks_[t].live && tasks_[t].match == kNone)
      task_dist_[t] = 0, queue_.push_back(static_cast<int>(t));
  int limit = -1;  // the layer of the nearest server with room, once found
  for (size_t head = 0; head < queue_.size(); ++head) {
    const Task& t = tasks_[Index(queue_[head])];
    const int d = task_dist_[Index(queue_[head])];
    if (limit >= 0 && d + 1 > limit) break;
    for (int s : t.replicas) {
      if (!up_[Index(s)] || s == t.match || server_dist_[Index(s)] != -1) continue;
      server_dist_[Index(s)] = d + 1;
      if (HasRoom(s)) {
        limit = d + 1;
        continue;
      }
      for (int next : assigned_[Index(s)])
        if (task_dist_[Index(next)] == -1) task_dist_[Index(next)] = d + 2, queue_.push_back(next);
    }
  }
  return limit >= 0;
}

// Iterative DFS along the layers from uncovered task `root`. path_tasks_[i]
// moves to path_servers_[i]; path_tasks_[i+1] is the task it displaces there.
bool MaxCover::AugmentFrom(int root) {
  path_tasks_.assign(1, root);
  path_servers_.clear();
  while (!path_tasks_.empty()) {
    const int t = path_tasks_.back();
    const Task& task = tasks_[Index(t)];
    int& next = task_next_[Index(t)];
    bool descended = false;
    while (!descended && next < static_cast<int>(task.replicas.size())) {
      const int s = task.replicas[Index(next)];
      if (server_dist_[Index(s)] != task_dist_[Index(t)] + 1 || s == task.match) {
        ++next;
        continue;
      }
      if (HasRoom(s)) {
        path_servers_.push_back(s);
        ApplyPath();
        return true;
      }
      // Find a covered task of s one layer further; none: s is a dead end.
      const std::vector<int>& covered = assigned_[Index(s)];
      int& cursor = server_next_[Index(s)];
      while (cursor < static_cast<int>(covered.size()) &&
             task_dist_[Index(covered[Index(cursor)])] != server_dist_[Index(s)] + 1)
        ++cursor;
      if (cursor < static_cast<int>(covered.size())) {
        path_servers_.push_back(s);
        path_tasks_.push_back(covered[Index(cursor)]);
        descended = true;
      } else {
        server_dist_[Index(s)] = -2;
        ++next;
      }
    }
    if (descended) continue;
    // Dead end at t: forget it for this phase and let the parent try the next task.
    task_dist_[Index(t)] = -2;
    path_tasks_.pop_back();
    if (!path_servers_.empty()) {
      ++server_next_[Index(path_servers_.back())];
      path_servers_.pop_back();
    }
  }
  return false;
}

// Moves every task on the path one server forward, last first, so only the
// final server (which had room) gains a unit.
void MaxCover::ApplyPath() {
  for (size_t i = path_tasks_.size(); i-- > 0;) {
    const int t = path_tasks_[i];
    if (tasks_[Index(t)].match != kNone) Uncover(t);
    Cover(t, path_servers_[i]);
  }
}

}  // namespace locsched
