// DaemonControl: what the admin commands `reload`, `snapshot` and `rebalance`
// and the `daemon` part of `status` need from the running daemon. The Daemon
// implements it and passes it to the Dispatcher's constructor; tests pass their
// own or none. Called on the event-loop thread, from inside a command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// The daemon-wide actions behind the admin commands.
class DaemonControl {
 public:
  virtual ~DaemonControl() = default;
  /// Re-reads the configuration (`reload`, SIGHUP); fills the changed keys.
  virtual Status Reload(std::vector<std::string>* changed) = 0;
  /// Syncs the journal, writes a snapshot and starts a new journal (`snapshot`);
  /// fills the reply fields.
  virtual Status Snapshot(JsonWriter& w) = 0;
  /// Starts a rebalance on the worker thread (`rebalance`); fills the reply fields.
  virtual Status Rebalance(JsonWriter& w) = 0;
  /// Clients connected now.
  virtual uint64_t clients() const = 0;
  /// Ok if this instance may apply state-changing requests now; a standby of
  /// high-availability mode answers `not_active` naming the active.
  virtual Status AdmitMutation() const { return Status::Ok(); }
  /// Adds the daemon's own objects to the `status` reply (high availability's "ha").
  virtual void WriteStatus(JsonWriter&) const {}
  /// Appends the daemon's own Prometheus series (high availability's locsched_ha_*).
  virtual void AppendMetrics(std::string*) const {}
};

}  // namespace locsched
