#include "tools/tail/follow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace locsched {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxBytesPerPoll = 1 << 20;  // then the caller sends before reading on
constexpr size_t kTailBytes = 64;  // last bytes read, kept to notice a refilled truncated file

Status Errno(const std::string& path, const char* what) {
  return Status::IoError(path, std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

FollowedFile::FollowedFile(std::string path, TraceFormat format, SynthesisOptions options,
                           FileCursor resume, bool has_resume)
    : path_(std::move(path)),
      format_(format),
      options_(std::move(options)),
      cursor_(has_resume ? resume : FileCursor{}),
      has_resume_(has_resume) {}

FollowedFile::~FollowedFile() {
  CloseFile();
}

void FollowedFile::CloseFile() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status FollowedFile::TryOpen(bool* opened) {
  *opened = false;
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return errno == ENOENT ? Status::Ok() : Errno(path_, "open");
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Errno(path_, "fstat");
  const auto dev = static_cast<uint64_t>(st.st_dev), ino = static_cast<uint64_t>(st.st_ino);
  const bool same = cursor_.ino == ino && cursor_.dev == dev;
  if (same && static_cast<uint64_t>(st.st_size) >= cursor_.offset) {
    // The checkpointed file, at least as long as before: resume where it left off.
    if (::lseek(fd_, static_cast<off_t>(cursor_.offset), SEEK_SET) < 0)
      return Errno(path_, "lseek");
  } else {
    // A new file (rotated, recreated or truncated while we were away), or the very first one.
    if (cursor_.ino != 0 || has_resume_) ++cursor_.generation;
    if (cursor_.ino != 0 || has_resume_) ++rotations_;
    cursor_.offset = 0;
    cursor_.line = 1;
  }
  has_resume_ = false;
  cursor_.dev = dev;
  cursor_.ino = ino;
  read_offset_ = cursor_.offset;
  lines_.Reset(cursor_.offset, cursor_.line);
  tail_.clear();  // a resumed file is not checked for replacement until it is read again
  parser_ = MakeTraceParser(format_, options_);
  *opened = true;
  return Status::Ok();
}

Status FollowedFile::ReadAvailable(ParseSink* sink, bool* progressed) {
  char buf[kReadChunk];
  size_t total = 0;
  std::string_view line;
  SourcePos pos;
  while (total < kMaxBytesPerPoll) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno(path_, "read");
    if (n == 0) break;
    total += static_cast<size_t>(n);
    read_offset_ += static_cast<uint64_t>(n);
    lines_.Append(std::string_view(buf, static_cast<size_t>(n)));
    tail_.append(buf, static_cast<size_t>(n));
    if (tail_.size() > kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
    while (lines_.Next(&line, &pos)) parser_->Feed(line, pos, sink);
  }
  *progressed = total > 0;
  return Status::Ok();
}

Status FollowedFile::CheckReplaced(bool* replaced) {
  *replaced = false;
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Errno(path_, "fstat");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < read_offset_) {
    *replaced = true;  // shorter than what was read: truncated in place
  } else if (!tail_.empty()) {
    // Truncated and refilled to at least the old size: the bytes before the
    // offset would differ from the ones read there.
    std::string now(tail_.size(), '\0');
    const ssize_t n =
        ::pread(fd_, now.data(), now.size(), static_cast<off_t>(read_offset_ - tail_.size()));
    if (n < 0) return Errno(path_, "pread");
    *replaced = static_cast<size_t>(n) != tail_.size() || now != tail_;
  }
  if (!*replaced) return Status::Ok();
  ++rotations_;
  ++cursor_.generation;
  cursor_.offset = read_offset_ = 0;
  cursor_.line = 1;
  if (::lseek(fd_, 0, SEEK_SET) < 0) return Errno(path_, "lseek");
  lines_.Reset();
  tail_.clear();
  parser_ = MakeTraceParser(format_, options_);
  return Status::Ok();
}

Status FollowedFile::Poll(ParseSink* sink, bool* progressed) {
  *progressed = false;
  if (fd_ < 0) {
    bool opened = false;
    if (Status s = TryOpen(&opened); !s.ok() || !opened) return s;
  }
  bool replaced = false;
  if (Status s = CheckReplaced(&replaced); !s.ok()) return s;
  if (Status s = ReadAvailable(sink, progressed); !s.ok()) return s;
  *progressed |= replaced;
  if (*progressed) return Status::Ok();
  // Idle at the end of the file: has another file taken its place (rotation by rename)?
  struct stat now {};
  if (::stat(path_.c_str(), &now) != 0 || static_cast<uint64_t>(now.st_ino) == cursor_.ino)
    return Status::Ok();  // moved away and not recreated yet, or unchanged
  // The old file is complete, so its last line counts even without a newline.
  std::string_view line;
  SourcePos pos;
  if (lines_.TakePartial(&line, &pos)) parser_->Feed(line, pos, sink);
  parser_->Finish(sink);
  cursor_.offset = lines_.offset();
  cursor_.line = lines_.line();
  CloseFile();
  *progressed = true;
  return Status::Ok();
}

FileCursor FollowedFile::Cursor() const {
  FileCursor c = cursor_;
  if (fd_ < 0) return c;
  if (parser_ && parser_->InRecord()) {
    const SourcePos open = parser_->OpenRecord();
    c.offset = open.offset;
    c.line = open.line;
  } else {
    c.offset = lines_.offset();
    c.line = lines_.line();
  }
  return c;
}

}  // namespace locsched
