#include "daemon/event_log.h"

#include <algorithm>
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
  if (held())
    return Status::IoError(
        unavailable_.subject() == "ha.zookeeper" ? "ha.zookeeper" : "journal.path",
        "journal_unavailable: " + unavailable_.message() +
            "; state-changing requests are refused until the journal can be "
            "written again (retrying), reads still work");
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
namespace {

// "key":[[job,task],...], or nothing for an empty list.
void WritePairs(JsonWriter& w, const char* key, std::span<const JournaledAssignment> pairs) {
  if (pairs.empty()) return;
  w.Key(key).BeginArray();
  for (const JournaledAssignment& a : pairs) w.BeginArray().String(a.job).String(a.task).EndArray();
  w.EndArray();
}

}  // namespace

void EventLog::Append(std::string_view line, std::span<const JournaledAssignment> assigned,
                      std::string_view queue, std::span<const JournaledAssignment> preempted) {
  if (!journal_) return;
  record_.clear();
  JsonWriter w(&record_);
  w.BeginObject().Field("t", clock_.Now()).Field("line", line);
  WritePairs(w, "preempt", preempted);
  WritePairs(w, "assign", assigned);
  if (!queue.empty()) w.Field("queue", queue);
  w.EndObject();
  const uint64_t before = journal_->size();
  journal_->Append(record_);
  bytes_ += journal_->size() - before;
  ++records_;
  ++unsynced_;
}

Status EventLog::Sync() {
  if (held()) return unavailable_;
  if (!journal_ || unsynced_ == 0) return Status::Ok();
  const uint64_t batch = unsynced_;
  unsynced_ = 0;
  Status s = journal_->Sync();
  if (s.ok()) return s;
  ++write_failures_;
  held_ = batch;
  unavailable_ = s;
  return s;
}

Status EventLog::Retry() {
  if (!held()) return Status::Ok();
  Status s = journal_ ? journal_->Sync() : Status::Ok();
  if (!s.ok()) {
    ++write_failures_;
    unavailable_ = s;
    return s;
  }
  unavailable_ = Status::Ok();
  held_ = 0;
  return s;
}

bool EventLog::SnapshotDue() const {
  return journal_ && !held() && snapshot_bytes_ > 0 && journal_->size() >= snapshot_bytes_ &&
         clock_.Now() >= next_snapshot_;
}

void EventLog::SnapshotResult(const Status& s, double now) {
  if (s.ok()) {
    ++snapshots_;
    snapshot_failures_ = 0;
    next_snapshot_ = 0;
    return;
  }
  ++snapshot_failures_total_;
  last_snapshot_error_ = s.message();
  const uint64_t n = std::min<uint64_t>(++snapshot_failures_, 20);
  next_snapshot_ = now + std::min(300.0, static_cast<double>(uint64_t{1} << (n - 1)));
}

double EventLog::SnapshotBackoff(double now) const {
  return snapshot_failures_ ? std::max(0.0, next_snapshot_ - now) : 0.0;
}

void EventLog::WriteStatus(JsonWriter& w) const {
  w.Key("journal").BeginObject().Field("attached", attached());
  w.Key("unavailable");
  if (held())
    w.String(unavailable_.message());
  else
    w.Null();
  w.Field("held_events", held_).Field("write_failures", write_failures_);
  w.Field("snapshots", snapshots_).Field("snapshot_failures", snapshot_failures_);
  w.Field("snapshot_failures_total", snapshot_failures_total_);
  w.Key("last_snapshot_error");
  if (last_snapshot_error_.empty())
    w.Null();
  else
    w.String(last_snapshot_error_);
  w.Field("next_snapshot_in_s", SnapshotBackoff(clock_.Now()));
  w.Field("records", records_).Field("bytes", bytes_).Field("skipped_heartbeats", skipped_);
  w.EndObject();
}

void EventLog::AppendMetrics(std::string* text) const {
  const auto gauge = [text](const char* name, const char* help, const char* type, double v) {
    *text += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
             name + " ";
    JsonWriter(text).Double(v);
    *text += "\n";
  };
  gauge("locsched_journal_unavailable", "1 while a failed journal write holds events.", "gauge",
        held() ? 1 : 0);
  gauge("locsched_journal_held_events", "Events held since the failed journal write.", "gauge",
        static_cast<double>(held_));
  gauge("locsched_journal_write_failures_total", "Failed journal writes and retries.", "counter",
        static_cast<double>(write_failures_));
  gauge("locsched_journal_records_total", "Journal records appended.", "counter",
        static_cast<double>(records_));
  gauge("locsched_journal_bytes_total", "Journal bytes appended, framing included.", "counter",
        static_cast<double>(bytes_));
  gauge("locsched_journal_skipped_heartbeats_total",
        "Heartbeats not journaled because they changed nothing.", "counter",
        static_cast<double>(skipped_));
  gauge("locsched_snapshot_failures", "Consecutive failed snapshots.", "gauge",
        static_cast<double>(snapshot_failures_));
  gauge("locsched_snapshot_failures_total", "Failed snapshots.", "counter",
        static_cast<double>(snapshot_failures_total_));
  gauge("locsched_snapshot_next_attempt_seconds",
        "Seconds until the next automatic snapshot after failures (0: due when the journal is).",
        "gauge", SnapshotBackoff(clock_.Now()));
}

}  // namespace locsched
