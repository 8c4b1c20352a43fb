// Journal: the append-only record log behind "acknowledged means durable".
// A record is [u32 length][u32 CRC-32C of the payload][payload], little-endian.
// The daemon appends each applied event and syncs before it sends the
// acknowledgements (group commit); at start it scans the file, keeps the valid
// prefix and cuts only a torn tail; damage with valid records after it is never
// cut (SalvageJournal finds them). FileJournal is the real one, MemJournal the
// fake for tests (after leveldb's Env / NewMemEnv). One thread.
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
  /// records are not durable and the caller must not acknowledge them; they stay
  /// buffered, and the next Sync writes them again (a retry after ENOSPC or EIO).
  virtual Status Sync() = 0;
  /// Bytes in the journal, buffered ones included.
  virtual uint64_t size() const = 0;
};

/// The valid records at the start of a journal image, and what follows them.
struct JournalScan {
  std::vector<std::string> records;  ///< payloads, in order
  uint64_t valid_bytes = 0;          ///< length of the valid prefix
  uint64_t cut_bytes = 0;            ///< bytes after it (a torn tail, or damage)
  std::string cut_reason;            ///< why the prefix ends early, "" if it does not
  /// The bytes after the prefix are a partial last record (a write torn by a
  /// crash) or zeros: safe to cut. False for a whole record that fails its
  /// checksum or for garbage longer than one record.
  bool torn = false;
  /// Offset of the first valid record after the prefix (damage in the middle of
  /// the journal: the bytes after the prefix must not be cut); 0 if there is none.
  uint64_t resync_at = 0;
  /// True if the tail may be cut: nothing valid follows it.
  bool tail_only() const { return cut_bytes > 0 && resync_at == 0; }
};

/// A stretch of a journal image that holds no valid record.
struct LostRange {
  uint64_t offset = 0;   ///< first byte of the stretch
  uint64_t bytes = 0;    ///< its length
  uint64_t records = 0;  ///< records it held, if its headers still chain; 0 = unknown (>= 1)
  std::string reason;    ///< why the record at `offset` is invalid
};

/// Every valid record of an image, found by resynchronising after each bad stretch.
struct JournalSalvage {
  std::vector<std::string> records;  ///< payloads, in order
  std::vector<uint64_t> offsets;     ///< each record's offset in the image
  std::vector<LostRange> lost;       ///< the bad stretches, in order
};

/// Appends the framed record to *out.
void FrameRecord(std::string_view payload, std::string* out);
/// Parses records from the start of `image` until the end or the first bad one,
/// then says whether the rest is a torn tail or whether valid records follow.
JournalScan ScanJournal(std::string_view image);
/// Every valid record of `image`: after a bad record it resumes at the next offset
/// where a whole non-empty record with a matching checksum starts.
JournalSalvage SalvageJournal(std::string_view image);
/// CRC-32C (Castagnoli) of data.
uint32_t Crc32c(std::string_view data);
/// errno as text for an IoError: "No space left on device (ENOSPC)", "Input/output error (EIO)".
std::string ErrnoText(int err);
/// Reads the whole file at path; NotFound if it does not exist.
Status ReadFileImage(const std::string& path, std::string* image);
/// Reads and scans the file at path without changing it; NotFound if it does not exist.
Status ReadJournalFile(const std::string& path, JournalScan* scan);

/// A journal in a file, opened for appending after its valid prefix.
class FileJournal final : public Journal {
 public:
  /// Opens (creating) path, scans it into *scan, and cuts a bad tail from the file
  /// when nothing valid follows it. Damage followed by valid records is refused
  /// (FailedPrecondition) and the file is left as it is.
  static Status Open(const std::string& path, SyncMode mode, double interval_seconds,
                     std::unique_ptr<FileJournal>* out, JournalScan* scan);
  ~FileJournal() override;
  /// Buffers one framed record.
  void Append(std::string_view payload) override;
  /// Writes the buffer; fdatasync per the mode. ENOSPC is reported as a full disk.
  Status Sync() override;
  /// Bytes synced plus those not yet known to be on the disk.
  uint64_t size() const override { return durable_ + pending_.size(); }
  /// fdatasyncs what interval mode wrote but has not synced yet (the daemon's timer calls it).
  Status Flush();

 private:
  FileJournal(std::string path, int fd, SyncMode mode, double interval, uint64_t size);
  Status WriteAll();
  Status DataSync();
  std::string path_;
  int fd_;
  SyncMode mode_;
  double interval_;
  // The file holds [0, durable_) synced; pending_ holds every byte after it, of
  // which [durable_, written_) are written. After a failed fdatasync the written
  // bytes are written again (the kernel may have dropped them) before the next one.
  uint64_t durable_;
  uint64_t written_;
  bool rewrite_ = false;
  double last_sync_ = 0;
  bool unsynced_writes_ = false;  // interval mode wrote without fdatasync
  std::string pending_;
};

/// An in-memory journal for tests: the "disk" is a string that survives the object.
class MemJournal final : public Journal {
 public:
  /// Appends to *disk on Sync (fails with a full disk once *disk would pass `capacity`,
  /// keeping the batch for the next Sync).
  explicit MemJournal(std::string* disk, uint64_t capacity = UINT64_MAX)
      : disk_(disk), capacity_(capacity) {}
  /// Changes the capacity (a test frees or fills the disk).
  void set_capacity(uint64_t capacity) { capacity_ = capacity; }
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
