// Coordinator: what high-availability mode asks of its coordination service
// (after leveldb's Env: one small interface, a real implementation and a fake).
// Leader election among instances, a fencing epoch, the committed batch log and
// its chunked snapshots. ZkCoordinator talks to ZooKeeper; MemCoordinator is the
// in-memory fake for tests. Calls block for at most the implementation's
// operation timeout; the daemon's event-loop thread makes them all, and only
// session() may be read from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace locsched {

/// The link to the coordination service.
enum class CoordSession : uint8_t {
  kConnecting,  ///< no live connection now; the session may still be alive
  kConnected,   ///< connected, the session is alive
  kExpired,     ///< the session ended: its candidacy is gone, it may never write again
};

/// Largest entry or snapshot chunk handed to Append / WriteSnapshot, in bytes
/// (ZooKeeper's default jute.maxbuffer is 1 MiB per request).
inline constexpr size_t kMaxCoordEntryBytes = 512 * 1024;

/// Election, epoch, log and snapshots in the coordination service.
///
/// Errors: a write refused because a newer epoch exists, or from a session that
/// ended, is FailedPrecondition with subject "ha.epoch" (this instance was deposed
/// and must never acknowledge again); an unreachable or slow service is IoError
/// with subject "ha.zookeeper" (retry: a retried Append with the same data is
/// idempotent).
class Coordinator {
 public:
  virtual ~Coordinator() = default;
  /// The session's state; safe from any thread.
  virtual CoordSession session() const = 0;
  /// Waits up to `timeout_ms` for the first connection.
  virtual Status WaitConnected(int timeout_ms) = 0;
  /// Creates the folders the others use (idempotent).
  virtual Status Prepare() = 0;
  /// Enters the election as `instance` (the address clients use); the candidacy
  /// ends with the session.
  virtual Status Join(std::string_view instance) = 0;
  /// The leading candidate's instance, and whether it is this coordinator's
  /// candidacy; NotFound when there is no candidate.
  virtual Status Leader(std::string* instance, bool* self) = 0;
  /// Starts a new epoch, greater than every earlier one: writes fenced with an
  /// older epoch fail from now on.
  virtual Status NewEpoch(std::string_view instance, uint64_t* epoch) = 0;
  /// Appends log entry `index` (1, 2, ...) if `epoch` is still the newest.
  virtual Status Append(uint64_t epoch, uint64_t index, std::string_view data) = 0;
  /// Reads log entry `index`; *found is false if it does not exist (yet, or any more).
  virtual Status Read(uint64_t index, std::string* data, bool* found) = 0;
  /// Writes a snapshot of the state after entry `index`, in chunks, fenced by `epoch`;
  /// it becomes visible to ReadSnapshot only once whole. A whole snapshot at `index`
  /// already (the same log, so the same state) is kept and Ok; one cut short is rewritten.
  virtual Status WriteSnapshot(uint64_t epoch, uint64_t index,
                               std::span<const std::string> chunks) = 0;
  /// The newest whole snapshot: *index (0: none) and its chunks (skipped if null).
  virtual Status ReadSnapshot(uint64_t* index, std::vector<std::string>* chunks) = 0;
  /// Deletes, fenced by `epoch`, every whole snapshot but the newest two and the
  /// log entries the older of those two covers, and every snapshot older than the
  /// newest whole one that never became whole; a standby further behind must load a
  /// snapshot again. Runs in the background where it can.
  virtual Status Trim(uint64_t epoch) = 0;
};

/// The subject of a fenced write ("ha.epoch").
inline constexpr std::string_view kFencedSubject = "ha.epoch";
/// True if `s` says this instance was deposed (a newer epoch, or its session ended).
inline bool IsFenced(const Status& s) {
  return s.code() == Status::Code::kFailedPrecondition && s.subject() == kFencedSubject;
}

}  // namespace locsched
