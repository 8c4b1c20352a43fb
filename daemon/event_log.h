// EventLog: the journal's write side: the full-disk guard, one record per
// applied event (a heartbeat's lists its [job, task] assignments), the unsynced
// count, "snapshot due". The Dispatcher appends, the CommitStep syncs,
// Durability attaches each new journal. Event-loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "config/config.h"
#include "daemon/clock.h"
#include "io/store/journal.h"

namespace locsched {

/// One assignment as the journal stores it: the names replay looks up again.
struct JournaledAssignment {
  std::string_view job;
  std::string_view task;
};

/// Journal records and their group commit; no journal attached = nothing is recorded.
class EventLog {
 public:
  /// Reports the journal disk's free bytes (a statvfs); may be empty (never refuse).
  using FreeBytes = std::function<uint64_t()>;

  /// Stamps records with `clock` (which must outlive it); limits from cfg.
  EventLog(const Clock& clock, const JournalConfig& cfg, FreeBytes free_bytes = nullptr);

  /// Records go to `journal` from now on (nullptr: none); a snapshot swaps journals.
  void Attach(Journal* journal);
  /// Applies the reloadable limits (journal.min_free_mb, journal.snapshot_mb).
  void ApplyConfig(const JournalConfig& cfg);
  /// Ok, or the error refusing a mutating event while the disk is nearly full.
  Status Admit();
  /// Appends the record of one applied event: its time, its request line and, for a
  /// heartbeat, the assignments it made. No-op without a journal.
  void Append(std::string_view line, std::span<const JournaledAssignment> assigned);
  /// Makes every appended record durable. On error their replies must not be sent.
  Status Sync();
  /// True if a journal is attached.
  bool attached() const { return journal_ != nullptr; }
  /// Records appended but not yet synced.
  uint64_t unsynced() const { return unsynced_; }
  /// True when the journal has passed journal.snapshot_mb (0 = never).
  bool SnapshotDue() const;

 private:
  const Clock& clock_;
  FreeBytes free_bytes_;
  Journal* journal_ = nullptr;
  uint64_t min_free_bytes_;
  uint64_t snapshot_bytes_;
  uint64_t unsynced_ = 0;
  uint64_t since_disk_check_ = 0;
  bool disk_low_ = false;
  std::string record_;  // reused buffer for one record
};

}  // namespace locsched
