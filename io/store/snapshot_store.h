// SnapshotStore: the journal's files on disk, in generations. A snapshot of
// generation g holds the state after every journal of generation < g; taking
// one starts journal g and lets journal g-2 go, so the journal stays short.
// Recovery picks the newest snapshot whose journals are all present, falling
// back to the previous one (or to an empty state) when a snapshot is corrupt.
// The daemon's Recover and its snapshot trigger call it; event-loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "io/store/journal.h"

namespace locsched {

/// What Open found on disk: the state to load, then the events to re-apply.
struct Recovery {
  std::string snapshot_file;          ///< the snapshot used, "" for the empty state
  uint64_t generation = 0;            ///< the active journal's generation
  std::vector<std::string> snapshot;  ///< the snapshot's state records
  std::vector<std::string> events;    ///< journal records after it, in order
  std::vector<std::string> warnings;  ///< cut tails, skipped snapshots (for the log)
  bool fell_back = false;             ///< a newer snapshot was unusable
};

/// Receives the state records of a snapshot, one call per record.
using SnapshotSink = std::function<void(std::string_view record)>;

/// What one snapshot wrote.
struct SnapshotInfo {
  uint64_t generation = 0;     ///< the new journal's generation
  uint64_t records = 0;        ///< state records written
  uint64_t bytes = 0;          ///< size of the snapshot file
  uint64_t journal_bytes = 0;  ///< size of the journal it replaced
};

/// The active journal plus its snapshots: P, P.prev, P.snap, P.snap.prev.
class SnapshotStore {
 public:
  /// Recovers from the files beside `path` into *recovery and opens journal `path`
  /// for appending. Fails only when no chain of snapshot + journals is usable.
  static Status Open(const std::string& path, SyncMode mode, double interval_seconds,
                     std::unique_ptr<SnapshotStore>* out, Recovery* recovery);

  /// The active journal (events are appended here).
  FileJournal& journal() { return *journal_; }
  /// The active journal's generation.
  uint64_t generation() const { return generation_; }

  /// Writes the state `save` emits as snapshot generation+1, then starts the
  /// next journal. The active journal must be synced (nothing buffered).
  Status Snapshot(const std::function<void(const SnapshotSink&)>& save, SnapshotInfo* info);

  /// The header record of a journal of generation g.
  static std::string JournalHeader(uint64_t g);

 private:
  SnapshotStore(std::string path, SyncMode mode, double interval)
      : path_(std::move(path)), mode_(mode), interval_(interval) {}
  Status OpenJournal();
  Status StartNextJournal(uint64_t g);

  std::string path_;
  SyncMode mode_;
  double interval_;
  uint64_t generation_ = 0;
  bool device_ = false;  // journal.path is /dev/null or the like
  std::unique_ptr<FileJournal> journal_;
};

}  // namespace locsched
