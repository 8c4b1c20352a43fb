// Durability: "acknowledged means durable". At start it opens the SnapshotStore,
// loads the snapshot into the Dispatcher, replays the journal (JournalReplay)
// and attaches it to the EventLog; later it writes snapshots (`snapshot`, the
// CommitStep past journal.snapshot_mb, a clean stop). Event-loop thread only.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "base/status.h"
#include "config/config.h"
#include "daemon/clock.h"
#include "daemon/dispatcher.h"
#include "daemon/event_log.h"
#include "io/store/journal_lock.h"
#include "io/store/snapshot_store.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// Recovery at start and snapshots later, for one Dispatcher.
class Durability {
 public:
  /// Works on `dispatcher`, journals through `log`, pins `clock` during replay; all
  /// must outlive it.
  Durability(Dispatcher& dispatcher, EventLog& log, DaemonClock& clock)
      : dispatcher_(dispatcher), log_(log), clock_(clock) {}

  /// Locks cfg.path (JournalLock, held for the daemon's life), recovers from it
  /// (snapshot, then journal) and journals from then on. Refused, with nothing
  /// read, while another process holds the lock. With an empty path nothing is
  /// durable and this only warns.
  Status Recover(const JournalConfig& cfg);
  /// Syncs the journal, writes a snapshot and starts a new journal; fills the reply
  /// fields into *reply unless it is null.
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
  EventLog& log_;
  DaemonClock& clock_;
  JournalConfig cfg_;
  std::unique_ptr<JournalLock> lock_;  // held from Recover until the daemon ends
  std::unique_ptr<SnapshotStore> store_;
  uint64_t snapshots_ = 0;
};

/// `locschedd --recover`: locks cfg.path as the daemon does (refused while a
/// daemon runs on it), keeps each damaged journal file beside it aside untouched
/// and rewrites it with every valid record (SalvageStore), printing to `out`
/// which records were lost. Returns the exit code: 0 done, 1 failed.
int RecoverJournalFiles(const JournalConfig& cfg, std::FILE* out);

/// The free bytes of the disk holding the journal at `path` (a statvfs; UINT64_MAX
/// if unknown, so events are never refused on a failed check).
uint64_t JournalDiskFreeBytes(const std::string& path);

}  // namespace locsched
