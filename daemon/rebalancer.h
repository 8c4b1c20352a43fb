// Rebalancer: max-cover task assignment in the daemon. As the Scheduler's BacklogObserver it logs
// every change of the queued backlog (O(1) or O(replicas) per event; only while
// automatic runs are on, else a forced run lists the backlog) and keeps ONE
// MaxCover across runs; a run absorbs the log, solves max-cover + bal-assign
// (hta_flow's Rebalance) counting running tasks per machine, and moves queued tasks
// to the chosen queues where still valid. Owned by the Engine (jsq-maxweight only).
// Threading: hooks, Due, Begin, Apply and End run on the event-loop thread; Solve
// may run on a worker thread: it touches only its RebalanceRun and the solver state,
// which the loop leaves alone while a run is out (from Begin to End).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/core/scheduler.h"
#include "algorithms/hta/hta_instance.h"
#include "algorithms/hta/max_cover.h"
#include "config/config.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// What one run found and did.
struct RebalanceStats {
  std::string trigger;           ///< "forced", "big_job", "imbalance" or "timer"
  double solve_seconds = 0;      ///< solver wall time: absorb the log, augment, bal-assign
  double solve_cpu_seconds = 0;  ///< of that, CPU time of the solving thread
  double loop_seconds = 0;       ///< event-loop time: snapshot plus applying the moves
  uint64_t backlog = 0;          ///< queued tasks the solve saw
  uint64_t covered = 0;          ///< of those, covered by max-cover (the flow)
  uint64_t local = 0;            ///< placed on a machine holding their data
  uint64_t moved = 0;            ///< tasks that changed queue
  uint64_t stale = 0;            ///< moves dropped as no longer valid
  double max_load = 0;           ///< the assignment's max load (seconds per slot, estimated)
  int tau = 0;                   ///< the max-cover capacity the assignment came from
  double locality_before = 0;    ///< share of queued tasks in a replica holder's local queue
  double locality_after = 0;     ///< the same once the moves are applied
};

/// Writes a run's figures as fields of the open object.
void WriteRebalanceStats(const RebalanceStats& s, JsonWriter& w);

/// One change of the backlog, as logged by the hooks.
struct BacklogOp {
  enum Kind : uint8_t { kAdd, kRemove, kMachine, kReset } kind;
  uint8_t flag = 0;         ///< kMachine: usable; kAdd: replica count
  uint32_t id = 0;          ///< the task or machine
  uint32_t generation = 0;  ///< kAdd: the task's generation
  uint32_t first = 0;       ///< kAdd: where its replicas start in RebalanceRun::replicas
};

/// A task to move into `queue` (a machine id or LocalityQueues::kRemote).
struct RebalanceMove {
  TaskId task;
  uint32_t generation;  ///< the task's generation when queued: a mismatch means stale
  uint32_t queue;
};

/// One run: the snapshot Begin takes, the moves Solve returns, Apply's cursor.
struct RebalanceRun {
  std::vector<BacklogOp> ops;        ///< changes since the previous run
  std::vector<int> replicas;         ///< replica ids of the kAdd ops
  std::vector<int> running;          ///< per machine: tasks running now
  HtaCosts costs;                    ///< w_loc = 1/alpha, w_rem = 1/gamma
  std::vector<RebalanceMove> moves;  ///< every live backlog task's target queue
  size_t next = 0;                   ///< first move Apply has not looked at
  double started = 0;                ///< Begin's clock reading
  bool uncovered_to_remote = false;  ///< rebalance.uncovered_to_remote when the run began
  RebalanceStats stats;              ///< filled as the run goes
};

/// The rebalance state machine of one Engine.
class Rebalancer final : public BacklogObserver {
 public:
  /// A rebalancer over `sched` (whose policy must be jsq-maxweight); installs itself as observer.
  Rebalancer(Scheduler& sched, const RebalanceConfig& cfg);
  ~Rebalancer() override;
  Rebalancer(const Rebalancer&) = delete;
  Rebalancer& operator=(const Rebalancer&) = delete;

  /// Applies reloaded [rebalance] settings.
  void ApplyConfig(const RebalanceConfig& cfg);

  void OnQueued(TaskId t) override;
  void OnUnqueued(TaskId t) override;
  void OnMachineUsable(MachineId m, bool usable) override;
  /// A job of `tasks` tasks was submitted (a big one triggers a run).
  void OnJobSubmitted(uint64_t tasks);

  /// The automatic trigger due at `now` ("big_job", "imbalance", "timer"), or nullptr.
  const char* Due(double now) const;
  /// Starts a run (event loop): takes the log and running counts; nullptr if one is out.
  std::unique_ptr<RebalanceRun> Begin(double now, const std::string& trigger, double alpha,
                                      double gamma);
  /// Solves `run` (any thread, while the run is out).
  void Solve(RebalanceRun& run);
  /// Applies up to `max_moves` more moves (event loop); true once all are done.
  bool Apply(RebalanceRun& run, size_t max_moves);
  /// Ends the run (event loop): records its stats, sets the adaptive timer.
  void End(RebalanceRun& run, double now);
  /// Begin, Solve, Apply and End on the calling thread; fails if a run is out.
  Status RunNow(double now, const std::string& trigger, double alpha, double gamma,
                RebalanceStats* stats);

  /// True while a run is out.
  bool busy() const { return out_; }
  /// Runs ended so far.
  uint64_t runs() const { return runs_; }
  /// Backlog changes logged since the last run (tests: none while automatic runs are off).
  size_t logged() const { return ops_.size(); }
  /// Share of queued tasks in a local queue of a machine holding their data.
  double Locality() const;
  /// The `rebalance` object of `status`.
  void WriteStatus(JsonWriter& w) const;
  /// Appends the Prometheus metrics of the runs.
  void AppendMetrics(std::string* out) const;
  /// The kept flow (tests compare it with a from-scratch solve; not while busy).
  const MaxCover& cover() const { return cover_; }
  /// The scheduler task behind a live cover task id (tests).
  TaskId TaskOf(int cover_task) const { return task_of_[static_cast<size_t>(cover_task)].task; }

 private:
  struct CoverTask {
    TaskId task = kNoId;
    uint32_t generation = 0;
  };
  void MarkForRebuild();
  void LogEverything();
  void Absorb(const RebalanceRun& run);
  void AbsorbAdd(const BacklogOp& op, const RebalanceRun& run);
  void EmitMoves(const std::vector<int>& assignment, RebalanceRun& run) const;
  bool Imbalanced() const;

  Scheduler& sched_;
  RebalanceConfig cfg_;
  // Event-loop side: the log since the last Begin.
  std::vector<BacklogOp> ops_;
  std::vector<int> replicas_;
  bool rebuild_ = false;  // the log overflowed: the next run starts from a full listing
  bool out_ = false;
  bool big_job_ = false;
  double next_timer_ = 0;  // the adaptive timer's next firing
  double interval_ = 0;    // its current interval, seconds
  double earliest_ = 0;    // max_share: no run before this
  // Solver side (a worker's while a run is out).
  MaxCover cover_{0, 1};
  std::vector<int> cover_id_;       // by TaskId: its cover task id, or -1
  std::vector<CoverTask> task_of_;  // by cover task id
  double last_load_ = 0;            // the last run's max load
  double walk_backlog_ = 0;         // the backlog when tau was last walked freely
  // Totals for metrics.
  uint64_t runs_ = 0, moved_total_ = 0, stale_total_ = 0;
  double solve_seconds_total_ = 0, loop_seconds_total_ = 0;
  RebalanceStats last_;
};

}  // namespace locsched
