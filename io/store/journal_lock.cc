#include "io/store/journal_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "io/store/journal.h"

namespace locsched {

namespace {

// The pid the holder wrote, or "" (the file is empty between its flock and its write).
std::string ReadHolder(int fd) {
  char buf[32];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string text(buf, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.find_first_not_of("0123456789") == std::string::npos ? text : "";
}

// The refusal: names the journal, the lock file and, when it can be read, the holder.
Status Held(const std::string& journal_path, const std::string& lock_path, int fd) {
  std::string pid = ReadHolder(fd);
  // The holder may be between its flock and writing its pid: give it a moment.
  for (int i = 0; i < 50 && pid.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    pid = ReadHolder(fd);
  }
  return Status::FailedPrecondition(
      journal_path, "is in use by pid " + (pid.empty() ? "unknown" : pid) +
                        " (a locschedd, or locschedd --recover), which holds the lock " +
                        lock_path + "; stop it first, or give this daemon another journal.path");
}

// Replaces the file's contents with this process's pid.
Status WritePid(int fd, const std::string& lock_path) {
  const std::string text = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    return Status::IoError(lock_path, "cannot write the pid: " + ErrnoText(errno));
  return Status::Ok();
}

}  // namespace

std::string JournalLockPath(const std::string& journal_path) {
  return journal_path + ".lock";
}

Status JournalLock::Acquire(const std::string& journal_path, std::unique_ptr<JournalLock>* out) {
  out->reset();
  struct stat st {};
  if (::stat(journal_path.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) return Status::Ok();
  const std::string path = JournalLockPath(journal_path);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) {
    if (errno == ELOOP || errno == EISDIR)
      return Status::InvalidArgument(path, "is not a regular file; it is left as it is");
    return Status::IoError(path, "cannot open the lock file: " + ErrnoText(errno));
  }
  std::unique_ptr<JournalLock> lock(new JournalLock(path, fd));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Status::InvalidArgument(path, "is not a regular file; it is left as it is");
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) return Held(journal_path, path, fd);
    return Status::IoError(path, "flock: " + ErrnoText(errno));
  }
  if (Status s = WritePid(fd, path); !s.ok()) return s;
  *out = std::move(lock);
  return Status::Ok();
}

JournalLock::~JournalLock() {
  ::close(fd_);  // releases the flock; the file stays (see the header)
}

}  // namespace locsched
