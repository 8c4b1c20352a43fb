// Durability: the daemon's side of "acknowledged means durable". At start it
// opens the SnapshotStore, loads the snapshot into the Dispatcher and replays
// the journal after it; later it writes snapshots (on `snapshot`, when the
// journal passes journal.snapshot_mb, at a clean stop). Event-loop thread only.
#pragma once

#include <cstdint>
#include <memory>

#include "base/status.h"
#include "config/config.h"
#include "daemon/clock.h"
#include "daemon/dispatcher.h"
#include "io/store/snapshot_store.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// Recovery at start and snapshots later, for one Dispatcher.
class Durability {
 public:
  /// Works on `dispatcher`, pinning `clock` during replay; both must outlive it.
  Durability(Dispatcher& dispatcher, DaemonClock& clock) : dispatcher_(dispatcher), clock_(clock) {}

  /// Recovers from cfg.path (snapshot, then journal) and journals from then on.
  /// With an empty path nothing is durable and this only warns.
  Status Recover(const JournalConfig& cfg);
  /// Writes a snapshot now and starts a new journal; fills the reply fields into
  /// *reply unless it is null.
  Status Snapshot(JsonWriter* reply);
  /// fdatasyncs what interval mode left unsynced (the daemon's timer calls it).
  Status Flush();
  /// True if there is a journal.
  bool enabled() const { return store_ != nullptr; }
  /// Snapshots written since start.
  uint64_t snapshots() const { return snapshots_; }

 private:
  void Attach();
  uint64_t Replay(const Recovery& rec);

  Dispatcher& dispatcher_;
  DaemonClock& clock_;
  JournalConfig cfg_;
  std::unique_ptr<SnapshotStore> store_;
  uint64_t snapshots_ = 0;
};

}  // namespace locsched
