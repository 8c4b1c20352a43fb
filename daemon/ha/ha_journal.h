// HaJournal: the Journal of high-availability mode. Each group-commit batch (one
// CommitStep sync) becomes one or more log entries in the coordination service,
// each appended under the active's epoch, so a deposed active's late batch is
// refused. An entry opens with one byte: 'F' for a batch's first entry, 'C' for
// the ones that continue its byte stream (records are framed as in the file
// journal, and may be split across entries). The EventLog appends and syncs through it; a fenced
// write calls `deposed`. Event-loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "io/coord/coordinator.h"
#include "io/store/journal.h"

namespace locsched {

/// The batch log in the coordination service, as the EventLog's Journal.
class HaJournal final : public Journal {
 public:
  /// Called once a write is refused because this instance was deposed.
  using Deposed = std::function<void(const Status&)>;

  /// Writes through `coord` (which must outlive it); call Begin before the first Sync.
  HaJournal(Coordinator& coord, Deposed deposed) : coord_(coord), deposed_(std::move(deposed)) {}

  /// Writable from now on, under `epoch`, continuing the log at entry `next_index`.
  void Begin(uint64_t epoch, uint64_t next_index);
  /// Buffers one framed record.
  void Append(std::string_view payload) override;
  /// Writes the buffered records as log entries of at most kMaxCoordEntryBytes.
  /// On error nothing is acknowledged and the rest stays buffered; the next Sync
  /// resumes with the same entry (an entry that did land is recognised).
  Status Sync() override;
  /// Bytes logged since the last snapshot, buffered ones included.
  uint64_t size() const override { return logged_bytes_ + pending_.size(); }
  /// Entries logged since the last snapshot.
  uint64_t entries_since_snapshot() const { return logged_entries_; }
  /// The last entry written (0: none).
  uint64_t last_index() const { return next_ - 1; }
  /// The epoch this instance writes under.
  uint64_t epoch() const { return epoch_; }
  /// A snapshot now covers everything logged.
  void SnapshotTaken() { logged_bytes_ = logged_entries_ = 0; }

 private:
  Coordinator& coord_;
  Deposed deposed_;
  uint64_t epoch_ = 0;
  uint64_t next_ = 1;
  std::string pending_;  // framed records not yet all written
  size_t sent_ = 0;      // bytes of pending_ already written as entries
  std::string entry_;    // reused: one entry's bytes
  uint64_t logged_bytes_ = 0;
  uint64_t logged_entries_ = 0;
};

/// Reassembles records from log entries in order (the standby's side of HaJournal).
class EntryReader {
 public:
  /// Adds one entry; appends the records it completes to *records. Returns the
  /// bytes of a partial record dropped because a fresh entry began (a deposed
  /// active's unfinished batch: never acknowledged).
  uint64_t Add(std::string_view entry, std::vector<std::string>* records);
  /// True if no partial record is waiting for its continuation.
  bool at_boundary() const { return partial_.empty(); }

 private:
  std::string partial_;
};

}  // namespace locsched
