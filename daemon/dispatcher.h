// Dispatcher: one request line in, one reply line out: decode (CommandTable),
// socket and peer checks, id dedupe, the handler table, counters, and the
// EventLog record of a mutating event; it never syncs (the CommitStep does).
// Connections and JournalReplay call it on the event-loop thread; never blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "daemon/daemon_control.h"
#include "daemon/dedupe.h"
#include "daemon/engine.h"
#include "daemon/event_log.h"
#include "daemon/histogram.h"
#include "daemon/job_assembly.h"
#include "daemon/lp_planner.h"
#include "daemon/request_counters.h"
#include "io/wire/command_table.h"

namespace locsched {

/// Who sent a request: which socket, and whether the peer may run admin commands.
struct Caller {
  bool control = false;     ///< came in on the control socket (else the event socket)
  bool authorized = false;  ///< the peer may run admin commands, on either socket
  uint32_t uid = 0;         ///< the peer's uid, for error messages and the audit trail
  bool replay = false;      ///< a journal or HA log record being applied again
  int32_t pid = 0;          ///< the peer's pid (SO_PEERCRED; 0: unknown), for the audit trail
  std::string address{};    ///< a TCP peer's address:port (empty on a Unix socket)
  /// Replay: the tenant queue the journal recorded for the job the event submitted ("" if
  /// none); the job goes there, whatever today's placement rules say.
  std::string_view queue{};
  /// The journal's replay: events that passed every rule when they were accepted.
  static Caller Journal() { return Caller{false, true, 0, true}; }
  /// The daemon itself (Liveness: machine_lost, a timed-out task's task_failed), journaled
  /// like any event.
  static Caller Daemon() { return Caller{false, true, 0, false}; }
};

/// The audit line of admin command r from `caller` with outcome s: the op, its
/// target (machine, job, drain), the peer (socket, uid and pid, or TCP address) and
/// the result (ok or the error code), as key=value pairs with names quoted.
std::string AuditLine(const Request& r, const Caller& caller, const Status& s);

/// Request line in, reply line out, via the command table.
class Dispatcher {
 public:
  /// Receives one audit line per admin command a peer sent (locschedd logs it).
  using Audit = std::function<void(const std::string&)>;

  /// Dispatches to `engine` with limits from cfg. Mutating events are appended to
  /// `log` (none: not journaled); `planner` serves `resolve_lp` and the LP status
  /// (none: LP off); `control` runs reload, snapshot and the worker's rebalance
  /// (none: those are refused, rebalance runs inline). All must outlive it. Every
  /// admin command from a peer (not a replayed one), run or refused, goes to `audit`
  /// (none: not audited) as one line: AuditLine.
  Dispatcher(Engine& engine, const Config& cfg, EventLog* log = nullptr,
             LpPlanner* planner = nullptr, DaemonControl* control = nullptr, Audit audit = nullptr);

  /// Handles one line (no newline) and appends exactly one reply line, '\n'-terminated.
  void HandleLine(std::string_view line, const Caller& caller, std::string* out);
  /// Appends the error reply for a line that broke a limit before it could be decoded.
  static void AppendError(const Status& s, std::string* out);
  /// Journal replay of a heartbeat: counts it like a live one, imposes the recorded
  /// preemptions and then assignments (no plan and no policy is asked again), delivers the
  /// machine's stop orders and remembers the reply under its id.
  Status ReplayHeartbeat(const Request& r, std::span<const JournaledAssignment> assigned,
                         std::span<const JournaledAssignment> preempted = {});

  /// The `rebalance` command: the daemon's worker if there is one, else Engine::Rebalance.
  Status Rebalance(const Request& r, JsonWriter& w);
  /// The `snapshot` command.
  Status Snapshot(JsonWriter& w);
  /// The `reload` command (SIGHUP goes to the daemon directly).
  Status Reload(std::vector<std::string>* changed);
  /// Emits the state (engine and remembered event ids) as snapshot records.
  void Save(const Engine::Sink& emit) const;
  /// Loads a snapshot's records into this empty dispatcher and its engine.
  Status Load(const std::vector<std::string>& records);
  /// Applies the reloadable settings of cfg (dedupe window, engine, planner).
  void ApplyConfig(const Config& cfg);

  /// The LP planner, or nullptr when lp.enabled is false.
  LpPlanner* planner() const { return planner_; }
  /// The engine behind the handlers.
  Engine& engine() { return engine_; }
  /// Jobs whose tasks are still arriving (job_submit with tasks_total, task_add).
  JobAssembly& assembly() { return assembly_; }
  /// The request line being handled (a job part is kept as its line).
  std::string_view line() const { return line_; }
  /// Lines, per-command calls and errors, request rate.
  const RequestCounters& counters() const { return counters_; }
  /// Calls and errors of op.
  const CommandCounters& counters(Op op) const { return counters_.of(op); }
  /// Adds the daemon's own status objects (none without a daemon).
  void WriteDaemonStatus(JsonWriter& w) const {
    if (control_) control_->WriteStatus(w);
  }
  /// Appends the daemon's own metrics (none without a daemon).
  void AppendDaemonMetrics(std::string* text) const {
    if (control_) control_->AppendMetrics(text);
  }
  /// Connected clients (0 without a daemon).
  uint64_t clients() const { return control_ ? control_->clients() : 0; }
  /// Requests per second over the last ten seconds.
  double requests_per_second() const { return counters_.PerSecond(engine_.Now()); }
  /// Seconds from the loop taking up the burst that carried a live heartbeat to its
  /// assignments being decided (journal sync and socket write not included).
  const Histogram& heartbeat_latency() const { return heartbeat_latency_; }
  /// Event ids remembered for deduplication.
  uint64_t remembered_ids() const { return dedupe_.size(); }
  /// The journal's write side, for status and metrics (null in tests without one).
  const EventLog* event_log() const { return log_; }

 private:
  Status Run(const Request& r, std::string_view line, const Caller& caller, std::string* out);
  void Record(const Request& r, std::string_view line);
  bool ChangedNothing(const Request& r) const;

  Engine& engine_;
  EventLog* log_;
  LpPlanner* planner_;
  DaemonControl* control_;
  Audit audit_;
  DedupeWindow dedupe_;
  JobAssembly assembly_{engine_};
  std::string_view line_;  // the line Run is handling
  RequestCounters counters_;
  Histogram heartbeat_latency_ = LatencyHistogram();
  std::vector<JournaledAssignment> assigned_;   // reused: a heartbeat's journaled assignments
  std::vector<JournaledAssignment> preempted_;  // reused: the tasks it preempted
  // The line being handled, reused: its strings keep their capacity, so a name
  // longer than the short-string buffer (a host name) costs no malloc per line.
  Request request_;
};

}  // namespace locsched
