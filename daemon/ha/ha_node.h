// HaNode: this instance's part in high-availability mode. At start it loads the
// newest snapshot from the coordination service, applies the log after it and
// joins the election. As a standby it keeps applying committed entries to its
// own engine (so a takeover replays nothing from zero) and refuses mutating
// requests with `not_active` naming the active. When it leads it starts a new
// epoch (fencing every earlier active), applies the log to its end, and attaches
// the HaJournal to the EventLog: from then on every batch is committed to the
// service before it is acknowledged. The active snapshots into the service and
// trims the log. A fenced write or an ended session calls `deposed` (the daemon
// exits: a restart rejoins as a standby). The Daemon owns it; event-loop thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "config/config.h"
#include "daemon/clock.h"
#include "daemon/dispatcher.h"
#include "daemon/event_log.h"
#include "daemon/ha/ha_journal.h"
#include "io/coord/coordinator.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// Standby or active, on one Coordinator.
class HaNode {
 public:
  /// Called with the reason once this instance must stop for good.
  using Deposed = std::function<void(const Status&)>;

  /// Works on `dispatcher` (its engine), journals through `log`, pins `clock` while
  /// applying entries, polls on `io`; all must outlive it.
  HaNode(boost::asio::io_context& io, Coordinator& coord, Dispatcher& dispatcher, EventLog& log,
         DaemonClock& clock, const HaConfig& cfg, Deposed deposed);

  /// Connects, loads the newest snapshot, applies the log after it, joins the
  /// election and starts the poll timer. The dispatcher must be empty.
  Status Start();
  /// Stops the poll timer.
  void Stop();
  /// True while this instance is the active one.
  bool active() const { return active_; }
  /// Ok on the active; else `not_active` naming the active.
  Status Admit() const;
  /// The active's address as last seen ("" if unknown).
  const std::string& leader() const { return leader_; }
  /// "active", "standby" or "starting".
  const char* role() const;
  /// Writes a snapshot into the service (active only) and trims the log behind
  /// the one before; fills the reply fields unless `reply` is null.
  Status Snapshot(JsonWriter* reply);
  /// Writes the "ha" object of `status`.
  void WriteStatus(JsonWriter& w) const;
  /// Appends the locsched_ha_* series.
  void AppendMetrics(std::string* text) const;

 private:
  void Poll();
  void Tick();
  Status CatchUp(bool to_end);
  Status Apply(const std::string& entry);
  Status LoadSnapshot();
  Status CheckLeader();
  Status CheckNotTrimmed();
  Status Promote();
  void MaybeSnapshot();
  void Fail(const Status& s);

  boost::asio::io_context& io_;
  Coordinator& coord_;
  Dispatcher& dispatcher_;
  EventLog& log_;
  DaemonClock& clock_;
  HaConfig cfg_;
  Deposed deposed_;
  HaJournal journal_;
  EntryReader reader_;
  boost::asio::steady_timer timer_;
  bool started_ = false;
  bool active_ = false;
  bool stopped_ = false;
  std::string leader_;
  uint64_t next_ = 1;  // the next log entry to apply
  uint64_t applied_entries_ = 0;
  uint64_t applied_records_ = 0;
  uint64_t snapshot_index_ = 0;  // the snapshot loaded at start
  uint64_t snapshots_ = 0;
  uint64_t ticks_ = 0;
  double next_snapshot_try_ = 0;
  double promoted_at_ = 0;
  std::string last_error_;
};

}  // namespace locsched
