// Journal: the append-only record log behind "acknowledged means durable".
// A record is [u32 length][u32 CRC-32C of the payload][payload], little-endian.
// The daemon appends each applied event and syncs before it sends the
// acknowledgements (group commit); at start it scans the file, keeps the valid
// prefix and cuts a torn or corrupt tail. FileJournal is the real one,
// MemJournal the fake for tests (after leveldb's Env / NewMemEnv). One thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace locsched {

/// When a Sync really reaches the disk.
enum class SyncMode : uint8_t {
  kAlways,    ///< fdatasync on every Sync: an acknowledged event survives power loss
  kBatched,   ///< the same, but the caller calls Sync once per batch (group commit)
  kInterval,  ///< write on Sync, fdatasync at most every interval: survives a crash, not power loss
};

/// Appends records and makes them durable.
class Journal {
 public:
  virtual ~Journal() = default;
  /// Buffers one record; nothing is written until Sync.
  virtual void Append(std::string_view payload) = 0;
  /// Writes the buffered records and (per the mode) syncs them. On error the
  /// records are not durable and the caller must not acknowledge them.
  virtual Status Sync() = 0;
  /// Bytes in the journal, buffered ones included.
  virtual uint64_t size() const = 0;
};

/// The valid records of a journal image, and what was cut after them.
struct JournalScan {
  std::vector<std::string> records;  ///< payloads, in order
  uint64_t valid_bytes = 0;          ///< length of the valid prefix
  uint64_t cut_bytes = 0;            ///< bytes after it (a torn or corrupt tail)
  std::string cut_reason;            ///< why the tail was cut, "" if nothing was
};

/// Appends the framed record to *out.
void FrameRecord(std::string_view payload, std::string* out);
/// Parses records from the start of `image` until the end or the first bad one.
JournalScan ScanJournal(std::string_view image);
/// CRC-32C (Castagnoli) of data.
uint32_t Crc32c(std::string_view data);
/// errno as text for an IoError; ENOSPC reads "disk full (ENOSPC)".
std::string ErrnoText(int err);
/// Reads and scans the file at path without changing it; NotFound if it does not exist.
Status ReadJournalFile(const std::string& path, JournalScan* scan);

/// A journal in a file, opened for appending after its valid prefix.
class FileJournal final : public Journal {
 public:
  /// Opens (creating) path, scans it into *scan, and cuts any bad tail from the file.
  static Status Open(const std::string& path, SyncMode mode, double interval_seconds,
                     std::unique_ptr<FileJournal>* out, JournalScan* scan);
  ~FileJournal() override;
  /// Buffers one framed record.
  void Append(std::string_view payload) override;
  /// Writes the buffer; fdatasync per the mode. ENOSPC is reported as a full disk.
  Status Sync() override;
  /// Bytes in the file plus the buffer.
  uint64_t size() const override { return written_ + buffer_.size(); }
  /// fdatasyncs what interval mode wrote but has not synced yet (the daemon's timer calls it).
  Status Flush();

 private:
  FileJournal(std::string path, int fd, SyncMode mode, double interval, uint64_t written);
  Status WriteAll();
  Status DataSync();
  std::string path_;
  int fd_;
  SyncMode mode_;
  double interval_;
  uint64_t written_;
  double last_sync_ = 0;
  bool unsynced_writes_ = false;  // interval mode wrote without fdatasync
  std::string buffer_;
};

/// An in-memory journal for tests: the "disk" is a string that survives the object.
class MemJournal final : public Journal {
 public:
  /// Appends to *disk on Sync (fails with a full disk once *disk would pass `capacity`).
  explicit MemJournal(std::string* disk, uint64_t capacity = UINT64_MAX)
      : disk_(disk), capacity_(capacity) {}
  /// Buffers one framed record.
  void Append(std::string_view payload) override { FrameRecord(payload, &buffer_); }
  /// Moves the buffer to the disk string.
  Status Sync() override;
  /// Bytes on the disk plus the buffer.
  uint64_t size() const override { return disk_->size() + buffer_.size(); }

 private:
  std::string* disk_;
  uint64_t capacity_;
  std::string buffer_;
};

}  // namespace locsched
