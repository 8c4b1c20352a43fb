#include "io/store/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace locsched {

namespace {

constexpr size_t kHeader = 8;
constexpr uint32_t kMaxRecord = 1u << 30;  // a length above this is corruption, not data

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

void PutU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t GetU32(std::string_view s, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(s[at + i])} << (8 * i);
  return v;
}

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  uint32_t c = 0xffffffffu;
  for (const char ch : data) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xff] ^ (c >> 8);
  return ~c;
}

void FrameRecord(std::string_view payload, std::string* out) {
  PutU32(static_cast<uint32_t>(payload.size()), out);
  PutU32(Crc32c(payload), out);
  out->append(payload);
}

// Records until the first one that is cut short, too long or fails its checksum.
JournalScan ScanJournal(std::string_view image) {
  JournalScan scan;
  size_t at = 0;
  while (at < image.size()) {
    if (image.size() - at < kHeader) {
      scan.cut_reason = "torn record header";
      break;
    }
    const uint32_t len = GetU32(image, at);
    if (len > kMaxRecord) {
      scan.cut_reason = "impossible record length " + std::to_string(len);
      break;
    }
    if (image.size() - at - kHeader < len) {
      scan.cut_reason = "torn record (" + std::to_string(len) + " bytes announced)";
      break;
    }
    const std::string_view payload = image.substr(at + kHeader, len);
    if (Crc32c(payload) != GetU32(image, at + 4)) {
      scan.cut_reason = "checksum mismatch";
      break;
    }
    scan.records.emplace_back(payload);
    at += kHeader + len;
  }
  scan.valid_bytes = at;
  scan.cut_bytes = image.size() - at;
  return scan;
}

FileJournal::FileJournal(std::string path, int fd, SyncMode mode, double interval, uint64_t written)
    : path_(std::move(path)), fd_(fd), mode_(mode), interval_(interval), written_(written) {}

FileJournal::~FileJournal() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {
Status ReadFile(int fd, const std::string& path, std::string* out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return Status::Ok();
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(path, std::string("read: ") + std::strerror(errno));
    out->append(buf, static_cast<size_t>(n));
  }
}
}  // namespace

std::string ErrnoText(int err) {
  return err == ENOSPC ? "disk full (ENOSPC)" : std::strerror(err);
}

Status ReadJournalFile(const std::string& path, JournalScan* scan) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return Status::NotFound(path, "no such file");
  if (fd < 0) return Status::IoError(path, "open: " + ErrnoText(errno));
  std::string image;
  const Status s = ReadFile(fd, path, &image);
  ::close(fd);
  if (s.ok()) *scan = ScanJournal(image);
  return s;
}

Status FileJournal::Open(const std::string& path, SyncMode mode, double interval_seconds,
                         std::unique_ptr<FileJournal>* out, JournalScan* scan) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(path, std::string("open: ") + std::strerror(errno));
  // A character device (/dev/null to measure without a disk, /dev/full to test a
  // full one) is written but never read back.
  struct stat st {};
  std::string image;
  if (::fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
    *scan = JournalScan{};
    out->reset(new FileJournal(path, fd, mode, interval_seconds, 0));
    return Status::Ok();
  }
  if (Status s = ReadFile(fd, path, &image); !s.ok()) {
    ::close(fd);
    return s;
  }
  *scan = ScanJournal(image);
  if (scan->cut_bytes > 0 &&
      (::ftruncate(fd, static_cast<off_t>(scan->valid_bytes)) != 0 || ::fdatasync(fd) != 0)) {
    ::close(fd);
    return Status::IoError(path, std::string("cutting the torn tail: ") + std::strerror(errno));
  }
  ::lseek(fd, static_cast<off_t>(scan->valid_bytes), SEEK_SET);
  out->reset(new FileJournal(path, fd, mode, interval_seconds, scan->valid_bytes));
  return Status::Ok();
}

void FileJournal::Append(std::string_view payload) {
  FrameRecord(payload, &buffer_);
}

// A failed or partial write is undone (truncated back), so the file never
// holds half a batch that was reported as failed.
Status FileJournal::WriteAll() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      if (::ftruncate(fd_, static_cast<off_t>(written_)) == 0)
        ::lseek(fd_, static_cast<off_t>(written_), SEEK_SET);
      buffer_.clear();
      return Status::IoError(path_, "write: " + ErrnoText(err));
    }
    done += static_cast<size_t>(n);
  }
  written_ += buffer_.size();
  buffer_.clear();
  return Status::Ok();
}

Status FileJournal::Sync() {
  if (buffer_.empty()) return Status::Ok();
  if (Status s = WriteAll(); !s.ok()) return s;
  if (mode_ == SyncMode::kInterval && Seconds() - last_sync_ < interval_) {
    unsynced_writes_ = true;
    return Status::Ok();
  }
  return DataSync();
}

Status FileJournal::Flush() {
  return unsynced_writes_ ? DataSync() : Status::Ok();
}

Status FileJournal::DataSync() {
  if (mode_ == SyncMode::kInterval) last_sync_ = Seconds();
  unsynced_writes_ = false;
  if (::fdatasync(fd_) != 0) return Status::IoError(path_, "fdatasync: " + ErrnoText(errno));
  return Status::Ok();
}

Status MemJournal::Sync() {
  if (disk_->size() + buffer_.size() > capacity_) {
    buffer_.clear();
    return Status::IoError("journal", "write: disk full (ENOSPC)");
  }
  disk_->append(buffer_);
  buffer_.clear();
  return Status::Ok();
}

}  // namespace locsched
