// MaxCover: the incremental max-cover flow of Algorithm 2 (Fischer, Su, Yin):
// a maximum b-matching of tasks to the servers holding their data, at most tau
// tasks per server, kept across updates (task arrival and removal, server loss,
// tau raised or lowered) and repaired by phase-based (Hopcroft–Karp style)
// augmenting over the residual bipartite graph. Used by hta_flow, bal_assign and
// hta_lower_bound; single-threaded, no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace locsched {

/// A task→server matching with server capacity tau; Augment() makes it maximum.
class MaxCover {
 public:
  /// No server (an uncovered task's match).
  static constexpr int kNone = -1;

  /// `servers` servers, all up, capacity `tau` each, no tasks.
  explicit MaxCover(int servers, int tau = 1);

  /// Adds a task whose data is on `replicas` (distinct ids < servers()); returns its id.
  /// Ids of removed tasks are reused. The new task is uncovered until Augment().
  int AddTask(const std::vector<int>& replicas);
  /// Removes live task `task`, cancelling its unit of flow.
  void RemoveTask(int task);
  /// Takes `server` down (drops its flow; it gets capacity 0) or brings it back up.
  void SetServerUp(int server, bool up);
  /// Adds a server (up, no base load) and returns its id.
  int AddServer();
  /// Sets the load `server` already carries (tasks running there): its capacity becomes
  /// max(0, tau - base); raising it pushes back the excess units.
  void SetBase(int server, int base);
  /// Sets every up server's capacity; lowering it pushes back the excess units.
  void SetTau(int tau);
  /// Augments to a maximum flow by shortest-path phases; returns the units added.
  int Augment();

  /// Servers (up or down).
  int servers() const { return static_cast<int>(assigned_.size()); }
  /// The capacity of every up server.
  int tau() const { return tau_; }
  /// Covered tasks (the flow value).
  int flow() const { return flow_; }
  /// Live tasks.
  int live_tasks() const { return live_; }
  /// Task ids in use or free: every live id is < task_slots().
  int task_slots() const { return static_cast<int>(tasks_.size()); }
  /// True if `task` is a live id.
  bool live(int task) const { return tasks_[Index(task)].live; }
  /// The server covering `task`, or kNone.
  int match(int task) const { return tasks_[Index(task)].match; }
  /// The servers holding `task`'s data.
  const std::vector<int>& replicas(int task) const { return tasks_[Index(task)].replicas; }
  /// Tasks covered by `server`.
  const std::vector<int>& covered(int server) const { return assigned_[Index(server)]; }
  /// True if `server` is up.
  bool up(int server) const { return up_[Index(server)] != 0; }
  /// The load `server` already carries (0 unless SetBase said otherwise).
  int base(int server) const { return base_[Index(server)]; }
  /// Augmenting phases run so far (a cost figure for tests and benchmarks).
  uint64_t phases() const { return phases_; }

 private:
  struct Task {
    std::vector<int> replicas;
    int match = kNone;
    int pos = -1;  // index in assigned_[match]
    bool live = false;
  };
  static size_t Index(int id) { return static_cast<size_t>(id); }
  int Capacity(int server) const {
    return up_[Index(server)] && base_[Index(server)] < tau_ ? tau_ - base_[Index(server)] : 0;
  }
  void PushBack(int server);
  bool HasRoom(int server) const {
    return static_cast<int>(assigned_[Index(server)].size()) < Capacity(server);
  }
  void Cover(int task, int server);
  void Uncover(int task);
  bool BuildLayers();
  bool AugmentFrom(int root);
  void ApplyPath();

  std::vector<Task> tasks_;
  std::vector<int> free_ids_;
  std::vector<std::vector<int>> assigned_;  // per server: the tasks it covers
  std::vector<char> up_;
  std::vector<int> base_;  // per server: load carried already (shrinks its capacity)
  int tau_;
  int flow_ = 0;
  int live_ = 0;
  uint64_t phases_ = 0;
  // Scratch of one phase: BFS layers (-1 unreached, -2 dead end) and DFS cursors.
  std::vector<int> task_dist_, server_dist_, task_next_, server_next_;
  std::vector<int> queue_, path_tasks_, path_servers_;
};

}  // namespace locsched
