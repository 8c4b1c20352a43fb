#include "io/store/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

// 0 when fewer than four bytes are left (for the zero-tail check only).
uint32_t GetU32Safe(std::string_view s, size_t at) {
  return s.size() - at >= 4 ? GetU32(s, at) : 0;
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

namespace {

// Why the record at `at` is not valid, "" if it is. `nonempty`: a zero-length
// record does not count (the daemon never writes one; zeros would match).
std::string RecordError(std::string_view image, size_t at, bool nonempty) {
  if (image.size() - at < kHeader) return "torn record header";
  const uint32_t len = GetU32(image, at);
  if (len > kMaxRecord) return "impossible record length " + std::to_string(len);
  if (nonempty && len == 0) return "empty record";
  if (image.size() - at - kHeader < len)
    return "torn record (" + std::to_string(len) + " bytes announced)";
  if (Crc32c(image.substr(at + kHeader, len)) != GetU32(image, at + 4)) return "checksum mismatch";
  return "";
}

bool AllZero(std::string_view s) {
  return s.find_first_not_of('\0') == std::string_view::npos;
}

// The first offset >= from where a whole non-empty record checks out; 0 if none.
uint64_t Resync(std::string_view image, size_t from) {
  for (size_t at = from; at + kHeader < image.size(); ++at) {
    const uint32_t len = GetU32(image, at);
    if (len == 0 || len > image.size() - at - kHeader) continue;
    if (Crc32c(image.substr(at + kHeader, len)) == GetU32(image, at + 4)) return at;
  }
  return 0;
}

// A partial last record (its header, or the length it announces, runs past
// the end) or zeros: what a write torn by a crash leaves.
bool IsTorn(std::string_view tail) {
  if (tail.size() < kHeader || AllZero(tail)) return true;
  const uint32_t len = GetU32(tail, 0);
  return len <= kMaxRecord && tail.size() - kHeader < len;
}

// Records in [from, to) if their headers chain exactly from `from` to `to`, else 0.
uint64_t ChainedRecords(std::string_view image, size_t from, size_t to) {
  uint64_t n = 0;
  for (size_t at = from; at < to; ++n) {
    if (to - at < kHeader) return 0;
    const uint32_t len = GetU32(image, at);
    if (len > to - at - kHeader) return 0;
    at += kHeader + len;
  }
  return n;
}

}  // namespace

// Records until the first one that is cut short, too long or fails its checksum
// (or zeros to the end); then what the rest is.
JournalScan ScanJournal(std::string_view image) {
  JournalScan scan;
  size_t at = 0;
  while (at < image.size()) {
    if (GetU32Safe(image, at) == 0 && AllZero(image.substr(at))) {
      scan.cut_reason = "zeros to the end";
      break;
    }
    scan.cut_reason = RecordError(image, at, false);
    if (!scan.cut_reason.empty()) break;
    const uint32_t len = GetU32(image, at);
    scan.records.emplace_back(image.substr(at + kHeader, len));
    at += kHeader + len;
  }
  scan.valid_bytes = at;
  scan.cut_bytes = image.size() - at;
  if (scan.cut_bytes == 0) return scan;
  scan.resync_at = Resync(image, at + 1);
  scan.torn = scan.resync_at == 0 && IsTorn(image.substr(at));
  return scan;
}

JournalSalvage SalvageJournal(std::string_view image) {
  JournalSalvage out;
  size_t at = 0;
  while (at < image.size()) {
    const std::string reason = RecordError(image, at, true);
    if (reason.empty()) {
      const uint32_t len = GetU32(image, at);
      out.records.emplace_back(image.substr(at + kHeader, len));
      out.offsets.push_back(at);
      at += kHeader + len;
      continue;
    }
    const uint64_t next = Resync(image, at + 1);
    const size_t end = next ? next : image.size();
    out.lost.push_back({at, end - at, ChainedRecords(image, at, end), reason});
    at = end;
  }
  return out;
}

FileJournal::FileJournal(std::string path, int fd, SyncMode mode, double interval, uint64_t size)
    : path_(std::move(path)),
      fd_(fd),
      mode_(mode),
      interval_(interval),
      durable_(size),
      written_(size) {}

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
  if (err == ENOSPC) return "No space left on device (ENOSPC)";
  if (err == EIO) return "Input/output error (EIO)";
  return std::strerror(err);
}

Status ReadFileImage(const std::string& path, std::string* image) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return Status::NotFound(path, "no such file");
  if (fd < 0) return Status::IoError(path, "open: " + ErrnoText(errno));
  image->clear();
  const Status s = ReadFile(fd, path, image);
  ::close(fd);
  return s;
}

Status ReadJournalFile(const std::string& path, JournalScan* scan) {
  std::string image;
  const Status s = ReadFileImage(path, &image);
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
  if (scan->resync_at != 0) {
    ::close(fd);
    return Status::FailedPrecondition(path, "damaged at byte " + std::to_string(scan->valid_bytes) +
                                                " (" + scan->cut_reason +
                                                ") with valid records after it; not cutting it");
  }
  if (scan->cut_bytes > 0 &&
      (::ftruncate(fd, static_cast<off_t>(scan->valid_bytes)) != 0 || ::fdatasync(fd) != 0)) {
    ::close(fd);
    return Status::IoError(path, std::string("cutting the torn tail: ") + std::strerror(errno));
  }
  out->reset(new FileJournal(path, fd, mode, interval_seconds, scan->valid_bytes));
  return Status::Ok();
}

void FileJournal::Append(std::string_view payload) {
  FrameRecord(payload, &pending_);
}

// Writes what is pending past written_ (all of it after a failed fdatasync). A
// failed or short write is cut back, so the file never ends in half a batch;
// the batch stays pending for the next Sync.
Status FileJournal::WriteAll() {
  const uint64_t from = rewrite_ ? durable_ : written_;
  uint64_t at = from;
  const uint64_t end = durable_ + pending_.size();
  while (at < end) {
    const ssize_t n =
        ::pwrite(fd_, pending_.data() + (at - durable_), end - at, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      (void)::ftruncate(fd_, static_cast<off_t>(std::max(written_, from)));
      return Status::IoError(path_, "write: " + ErrnoText(err));
    }
    at += static_cast<uint64_t>(n);
  }
  written_ = end;
  rewrite_ = false;
  return Status::Ok();
}

Status FileJournal::Sync() {
  if (pending_.empty()) return Status::Ok();
  if (Status s = WriteAll(); !s.ok()) return s;
  if (mode_ == SyncMode::kInterval && Seconds() - last_sync_ < interval_) {
    unsynced_writes_ = true;
    return Status::Ok();
  }
  return DataSync();
}

Status FileJournal::Flush() {
  if (rewrite_)
    if (Status s = WriteAll(); !s.ok()) return s;
  return unsynced_writes_ || written_ > durable_ ? DataSync() : Status::Ok();
}

// After a failed fdatasync the written pages may be lost (the kernel reports the
// error once and may drop them), so they are written again before the next one.
Status FileJournal::DataSync() {
  if (mode_ == SyncMode::kInterval) last_sync_ = Seconds();
  unsynced_writes_ = false;
  if (::fdatasync(fd_) != 0) {
    rewrite_ = true;
    return Status::IoError(path_, "fdatasync: " + ErrnoText(errno));
  }
  pending_.erase(0, written_ - durable_);
  durable_ = written_;
  return Status::Ok();
}

Status MemJournal::Sync() {
  if (disk_->size() + buffer_.size() > capacity_)
    return Status::IoError("journal", "write: " + ErrnoText(ENOSPC));
  disk_->append(buffer_);
  buffer_.clear();
  return Status::Ok();
}

}  // namespace locsched
