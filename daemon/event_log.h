// EventLog: the journal's write side: the full-disk guard, one record per
// applied event (a heartbeat's lists its [job, task] assignments), the unsynced
// count, the hold after a failed write (ENOSPC, EIO) and its retries, "snapshot
// due" with the failed-snapshot backoff, and their status and metrics. The
// Dispatcher appends, the CommitStep syncs and retries, Durability attaches each
// new journal and reports snapshots. Event-loop thread only.
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
#include "io/wire/json_writer.h"

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
  /// Ok, or the error refusing a mutating event: the journal cannot be written
  /// (`journal_unavailable`, naming the cause) or its disk is nearly full.
  Status Admit();
  /// Appends the record of one applied event: its time, its request line, for a
  /// heartbeat the assignments it made and the tasks it preempted, and for an event that
  /// submitted a job with tenancy on the tenant queue it placed the job in (replay does not
  /// place it again). No-op without a journal.
  void Append(std::string_view line, std::span<const JournaledAssignment> assigned,
              std::string_view queue = {}, std::span<const JournaledAssignment> preempted = {});
  /// Counts a heartbeat that changed nothing and so has no record (see Dispatcher::Run).
  /// No-op without a journal.
  void SkipUnchanged() {
    if (journal_) ++skipped_;
  }
  /// Records appended since the start.
  uint64_t records() const { return records_; }
  /// Bytes appended since the start, framing included, across every journal attached.
  uint64_t bytes() const { return bytes_; }
  /// Heartbeats not journaled because they changed nothing, since the start.
  uint64_t skipped() const { return skipped_; }
  /// Makes every appended record durable. On error their replies must not be sent:
  /// the records stay in the journal's buffer (held), every further mutating event
  /// is refused, and Retry writes them again. While held this returns the error.
  Status Sync();
  /// Writes the held records again; Ok (and no longer held) once they are durable.
  Status Retry();
  /// True while records are held after a failed write.
  bool held() const { return !unavailable_.ok(); }
  /// Events held since the failed write.
  uint64_t held_events() const { return held_; }
  /// The error that holds the journal (Ok when it is writable).
  const Status& unavailable() const { return unavailable_; }
  /// Records a snapshot's outcome at `now`: a failure delays the next automatic one
  /// (1 s, doubling per consecutive failure, capped at 5 min).
  void SnapshotResult(const Status& s, double now);
  /// Consecutive failed snapshots.
  uint64_t snapshot_failures() const { return snapshot_failures_; }
  /// Seconds until the next automatic snapshot may run after failures (0: now).
  double SnapshotBackoff(double now) const;
  /// Writes the "journal" object of `status`.
  void WriteStatus(JsonWriter& w) const;
  /// Appends the locsched_journal_* and locsched_snapshot_* series.
  void AppendMetrics(std::string* text) const;
  /// True if a journal is attached.
  bool attached() const { return journal_ != nullptr; }
  /// Records appended but not yet synced.
  uint64_t unsynced() const { return unsynced_; }
  /// True when the journal has passed journal.snapshot_mb (0 = never), nothing is
  /// held, and no failed snapshot's backoff is running.
  bool SnapshotDue() const;

 private:
  const Clock& clock_;
  FreeBytes free_bytes_;
  Journal* journal_ = nullptr;
  uint64_t min_free_bytes_;
  uint64_t snapshot_bytes_;
  uint64_t unsynced_ = 0;
  uint64_t records_ = 0, bytes_ = 0, skipped_ = 0;  // since the start
  uint64_t since_disk_check_ = 0;
  bool disk_low_ = false;
  Status unavailable_;              // the failed write that holds the journal
  uint64_t held_ = 0;               // records held since then
  uint64_t write_failures_ = 0;     // failed syncs and retries, all time
  uint64_t snapshot_failures_ = 0;  // consecutive
  uint64_t snapshot_failures_total_ = 0;
  uint64_t snapshots_ = 0;
  double next_snapshot_ = 0;  // clock time before which no automatic snapshot runs
  std::string last_snapshot_error_;
  std::string record_;  // reused buffer for one record
};

}  // namespace locsched
