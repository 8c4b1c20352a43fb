#include "daemon/durability.h"

#include <spdlog/spdlog.h>
#include <sys/statvfs.h>

#include <chrono>
#include <string>

#include "daemon/journal_replay.h"
#include "io/store/store_files.h"

namespace locsched {

namespace {

SyncMode ToSyncMode(JournalSync s) {
  switch (s) {
    case JournalSync::kAlways:
      return SyncMode::kAlways;
    case JournalSync::kBatched:
      return SyncMode::kBatched;
    case JournalSync::kInterval:
      return SyncMode::kInterval;
  }
  return SyncMode::kBatched;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

Status Durability::Recover(const JournalConfig& cfg) {
  cfg_ = cfg;
  if (cfg.path.empty()) {
    spdlog::warn("journal.path is empty: events are not made durable");
    return Status::Ok();
  }
  const auto start = std::chrono::steady_clock::now();
  if (Status s = JournalLock::Acquire(cfg.path, &lock_); !s.ok()) return s;
  Recovery rec;
  if (Status s = SnapshotStore::Open(cfg.path, ToSyncMode(cfg.sync), cfg.interval_ms / 1000.0,
                                     &store_, &rec);
      !s.ok()) {
    // A path that is not the daemon's to use names the key; damage names the file.
    if (s.code() == Status::Code::kInvalidArgument || s.code() == Status::Code::kPermissionDenied)
      return Status::InvalidArgument("journal.path", s.message());
    return s;
  }
  for (const std::string& w : rec.warnings) spdlog::warn("journal: {}", w);
  if (Status s = dispatcher_.Load(rec.snapshot); !s.ok())
    return Status::Internal(rec.snapshot_file, "cannot load the snapshot: " + s.message());
  const uint64_t failed = Replay(rec);
  const Scheduler& sched = dispatcher_.engine().scheduler();
  spdlog::info(
      "journal {}: recovered {} snapshot records{}{} and {} events in {:.0f} ms: {} live jobs, "
      "{} queued, {} running tasks{}",
      cfg.path, rec.snapshot.size(), rec.snapshot_file.empty() ? "" : " from ", rec.snapshot_file,
      rec.events.size() - failed, MillisecondsSince(start), sched.cluster().live_jobs(),
      sched.queued(), sched.running(),
      failed ? ", " + std::to_string(failed) + " events could not be applied" : "");
  Attach();
  if (!rec.fell_back) return Status::Ok();
  // A newer snapshot was unusable: write a good one now, so there are two again.
  return Snapshot(nullptr);
}

// Re-applies the journal after the snapshot; returns how many records failed.
uint64_t Durability::Replay(const Recovery& rec) {
  uint64_t failed = 0;
  for (const std::string& record : rec.events)
    if (Status s = ReplayRecord(record, dispatcher_, clock_); !s.ok() && failed++ < 5)
      spdlog::error("journal replay: {}", s.message());
  clock_.Release();
  return failed;
}

int RecoverJournalFiles(const JournalConfig& cfg, std::FILE* out) {
  if (cfg.path.empty()) {
    std::fprintf(out, "locschedd --recover: journal.path is empty: there is no journal\n");
    return 1;
  }
  std::unique_ptr<JournalLock> lock;
  SalvageReport report;
  Status s = JournalLock::Acquire(cfg.path, &lock);
  if (s.ok()) s = SalvageStore(cfg.path, &report);
  if (!s.ok()) {
    std::fprintf(out, "locschedd --recover: %s\n", s.message().c_str());
    return 1;
  }
  for (const std::string& line : report.lines) std::fprintf(out, "%s\n", line.c_str());
  std::fprintf(out,
               "locschedd --recover: %llu damaged journal files repaired, %llu records kept, "
               "%llu records lost\n",
               static_cast<unsigned long long>(report.files_repaired),
               static_cast<unsigned long long>(report.records_kept),
               static_cast<unsigned long long>(report.records_lost));
  return 0;
}

uint64_t JournalDiskFreeBytes(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  struct statvfs st {};
  if (statvfs(dir.c_str(), &st) != 0) return UINT64_MAX;  // unknown: do not refuse
  return uint64_t{st.f_bavail} * st.f_frsize;
}

// Points the event log at the store's (new) journal.
void Durability::Attach() {
  log_.Attach(&store_->journal());
}

Status Durability::Snapshot(JsonWriter* reply) {
  if (!store_) return Status::FailedPrecondition("journal.path", "no journal to snapshot");
  if (Status s = log_.Sync(); !s.ok()) {
    spdlog::error("snapshot not taken: the journal cannot be written: {}", s.message());
    return s;
  }
  const auto start = std::chrono::steady_clock::now();
  SnapshotInfo info;
  const Status s =
      store_->Snapshot([this](const SnapshotSink& emit) { dispatcher_.Save(emit); }, &info);
  Attach();  // the store may have switched journals even if a later step failed
  const double ms = MillisecondsSince(start);
  log_.SnapshotResult(s, clock_.Now());
  if (!s.ok()) {
    spdlog::error(
        "snapshot failed after {:.0f} ms ({} in a row; the next automatic one in {:.0f} s): {}", ms,
        log_.snapshot_failures(), log_.SnapshotBackoff(clock_.Now()), s.message());
    return s;
  }
  ++snapshots_;
  spdlog::info("snapshot {}: {} records, {} bytes in {:.0f} ms; the journal was {} bytes",
               info.generation, info.records, info.bytes, ms, info.journal_bytes);
  if (!reply) return Status::Ok();
  reply->Field("generation", info.generation).Field("records", info.records);
  reply->Field("bytes", info.bytes).Field("journal_bytes", info.journal_bytes).Field("ms", ms);
  return Status::Ok();
}

// While a failed write holds the journal, the commit step's retries own it.
Status Durability::Flush() {
  return store_ && !log_.held() ? store_->journal().Flush() : Status::Ok();
}

}  // namespace locsched
