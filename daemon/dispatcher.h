// Dispatcher: turns one request line into one reply line. It decodes with the
// CommandTable, checks the socket and the peer, deduplicates event ids, calls
// the command's handler from its handler table, counts calls and errors per
// command, and serializes the reply. Connections call HandleLine on the
// event-loop thread; it never blocks.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "daemon/dedupe.h"
#include "daemon/engine.h"
#include "daemon/lp_planner.h"
#include "daemon/rate_meter.h"
#include "io/store/journal.h"
#include "io/wire/command_table.h"

namespace locsched {

/// Who sent a request: which socket, and whether the peer may run admin commands.
struct Caller {
  bool control = false;     ///< came in on the control socket
  bool authorized = false;  ///< SO_PEERCRED allows admin commands (control socket)
  uint32_t uid = 0;         ///< the peer's uid, for error messages
};

/// Re-reads the configuration; fills the changed keys. Installed by main.
using ReloadHook = std::function<Status(std::vector<std::string>* changed)>;

/// Writes a snapshot and starts a new journal; fills the reply fields into *w unless
/// w is null (an automatic snapshot). Installed by main.
using SnapshotHook = std::function<Status(JsonWriter* w)>;

/// Starts a rebalance on the worker thread; fills the reply fields. Installed by main.
using RebalanceHook = std::function<Status(JsonWriter& w)>;

/// Per-command counters.
struct CommandCounters {
  uint64_t calls = 0;   ///< requests that named this command
  uint64_t errors = 0;  ///< of those, the ones answered with ok:false
};

/// Request line in, reply line out, via the command table.
class Dispatcher {
 public:
  /// Dispatches to `engine`, with limits from cfg; `engine` must outlive it.
  Dispatcher(Engine& engine, const Config& cfg);

  /// Handles one line (no newline) and appends exactly one reply line, '\n'-terminated.
  void HandleLine(std::string_view line, const Caller& caller, std::string* out);
  /// Appends the error reply for a line that broke a limit before it could be decoded.
  static void AppendError(const Status& s, std::string* out);

  /// Journals every mutating event applied from now on, stamped by `clock`.
  /// `free_bytes` reports the journal disk's free space; below `min_free_bytes`
  /// mutating events are refused. All three must outlive the Dispatcher.
  void SetJournal(Journal* journal, const Clock* clock, std::function<uint64_t()> free_bytes,
                  uint64_t min_free_bytes);
  /// Makes the journaled events durable. On error their replies must not be sent.
  Status Sync();
  /// Re-applies one journal record (at start, before SetJournal); `clock` is pinned to its time.
  Status Replay(std::string_view record, DaemonClock* clock);
  /// Installs what `snapshot` and a journal past journal.snapshot_mb call.
  void SetSnapshotHook(SnapshotHook hook) { snapshot_ = std::move(hook); }
  /// Installs what `rebalance` calls; without one it runs on the calling thread.
  void SetRebalanceHook(RebalanceHook hook) { rebalance_ = std::move(hook); }
  /// The `rebalance` command: the hook, else Engine::Rebalance.
  Status Rebalance(const Request& r, JsonWriter& w);
  /// Syncs, then runs the snapshot hook (the `snapshot` command).
  Status Snapshot(JsonWriter& w);
  /// Emits the state (engine and remembered event ids) as snapshot records.
  void Save(const Engine::Sink& emit) const;
  /// Loads a snapshot's records into this empty dispatcher and its engine.
  Status Load(const std::vector<std::string>& records);
  /// The clock HoldClock holds still (the daemon's); none = HoldClock does nothing.
  void SetBurstClock(DaemonClock* clock) { burst_clock_ = clock; }
  /// Reads the clock once for the lines answered until ReleaseClock (one burst, no waits
  /// in between: events of a burst share one time).
  void HoldClock() {
    if (burst_clock_) burst_clock_->Hold();
  }
  /// Ends HoldClock.
  void ReleaseClock() {
    if (burst_clock_) burst_clock_->Unhold();
  }
  /// Events journaled but not yet synced.
  uint64_t unsynced() const { return unsynced_; }

  /// Installs what `reload` and SIGHUP call.
  void SetReloadHook(ReloadHook hook) { reload_ = std::move(hook); }
  /// Runs the reload hook (SIGHUP comes here too).
  Status Reload(std::vector<std::string>* changed);
  /// Applies the reloadable settings of cfg.
  void ApplyConfig(const Config& cfg);
  /// Connected clients, kept up to date by the server for `status`.
  void SetClients(uint64_t n) { clients_ = n; }

  /// Installs the LP planner (`resolve-lp`, the `lp` of status, metrics); none = LP off.
  void SetPlanner(LpPlanner* planner) { planner_ = planner; }
  /// The LP planner, or nullptr when lp.enabled is false.
  LpPlanner* planner() const { return planner_; }

  /// The engine behind the handlers.
  Engine& engine() { return engine_; }
  /// Calls and errors of op.
  const CommandCounters& counters(Op op) const { return counters_[static_cast<size_t>(op)]; }
  /// Every request line handled, good or bad.
  uint64_t lines() const { return lines_; }
  /// Connected clients.
  uint64_t clients() const { return clients_; }
  /// Requests per second over the last ten seconds.
  double requests_per_second() const { return rate_.PerSecond(engine_.Now()); }
  /// Event ids remembered for deduplication.
  uint64_t remembered_ids() const { return dedupe_.size(); }

 private:
  Status Run(const Request& r, std::string_view line, const Caller& caller, std::string* out);
  Status CheckDisk();
  Status SyncJournal();
  void Record(const Request& r, std::string_view line, std::string_view body);

  Engine& engine_;
  LpPlanner* planner_ = nullptr;
  DedupeWindow dedupe_;
  ReloadHook reload_;
  std::array<CommandCounters, 32> counters_{};
  uint64_t lines_ = 0;
  RateMeter rate_;
  uint64_t undecodable_ = 0;
  uint64_t clients_ = 0;
  Journal* journal_ = nullptr;
  const Clock* journal_clock_ = nullptr;
  DaemonClock* burst_clock_ = nullptr;
  std::function<uint64_t()> free_bytes_;
  uint64_t min_free_bytes_ = 0;
  uint64_t unsynced_ = 0;
  SnapshotHook snapshot_;
  RebalanceHook rebalance_;
  uint64_t snapshot_bytes_ = 0;
  uint64_t since_disk_check_ = 0;
  bool disk_low_ = false;
  std::string record_;  // reused buffer for one journal record
  // The line being handled, reused: its strings keep their capacity, so a name
  // longer than the short-string buffer (a host name) costs no malloc per line.
  Request request_;
};

}  // namespace locsched
