#include "daemon/event_log.h"

#include <string>

#include "io/wire/json_writer.h"

namespace locsched {

EventLog::EventLog(const Clock& clock, const JournalConfig& cfg, FreeBytes free_bytes)
    : clock_(clock),
      free_bytes_(std::move(free_bytes)),
      min_free_bytes_(cfg.min_free_mb << 20),
      snapshot_bytes_(cfg.snapshot_mb << 20) {}

void EventLog::Attach(Journal* journal) {
  journal_ = journal;
  since_disk_check_ = 0;
}

void EventLog::ApplyConfig(const JournalConfig& cfg) {
  min_free_bytes_ = cfg.min_free_mb << 20;
  snapshot_bytes_ = cfg.snapshot_mb << 20;
  since_disk_check_ = 0;
}

// The disk's free space is read every 1024 mutating events (a statvfs each).
Status EventLog::Admit() {
  if (!journal_ || !free_bytes_) return Status::Ok();
  if (since_disk_check_++ % 1024 == 0) disk_low_ = free_bytes_() < min_free_bytes_;
  if (!disk_low_) return Status::Ok();
  return Status::ResourceExhausted("journal.min_free_mb",
                                   "the journal's disk has less than " +
                                       std::to_string(min_free_bytes_ >> 20) +
                                       " MiB free; events are refused until space is freed");
}

// A record: {"t":time,"line":request line} plus, for a heartbeat, "assign": the
// [job, task] pairs it started, which replay re-applies instead of re-deciding.
void EventLog::Append(std::string_view line, std::span<const JournaledAssignment> assigned) {
  if (!journal_) return;
  record_.clear();
  JsonWriter w(&record_);
  w.BeginObject().Field("t", clock_.Now()).Field("line", line);
  if (!assigned.empty()) {
    w.Key("assign").BeginArray();
    for (const JournaledAssignment& a : assigned)
      w.BeginArray().String(a.job).String(a.task).EndArray();
    w.EndArray();
  }
  w.EndObject();
  journal_->Append(record_);
  ++unsynced_;
}

Status EventLog::Sync() {
  if (!journal_ || unsynced_ == 0) return Status::Ok();
  unsynced_ = 0;
  return journal_->Sync();
}

bool EventLog::SnapshotDue() const {
  return journal_ && snapshot_bytes_ > 0 && journal_->size() >= snapshot_bytes_;
}

}  // namespace locsched
