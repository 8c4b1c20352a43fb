// JournalLock: one process per journal. An flock(2) on `<journal.path>.lock`,
// taken before anything of the journal is read and held until the process
// ends; the kernel drops it however the process ends, so a killed daemon never
// leaves a lock that blocks a start. The holder writes its pid into the file,
// so a refused starter can name it. The file is kept on exit: unlinking it
// would let a starter waiting on the old inode and one creating a new file
// both hold "the" lock. Taken by Durability (locschedd) and by
// `locschedd --recover`; one thread, before serving.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"

namespace locsched {

/// The lock file of journal `journal_path`: `journal_path` + ".lock".
std::string JournalLockPath(const std::string& journal_path);

/// A held lock on one journal; released (the file kept) when destroyed.
class JournalLock {
 public:
  /// Locks the journal at `journal_path` without waiting and writes this
  /// process's pid into the lock file. Fails with kFailedPrecondition naming
  /// the journal and the holder's pid when another process holds it, and with
  /// kInvalidArgument when the lock file is not a regular file (left as it is).
  /// A journal that is a character device (/dev/null) needs no lock: *out
  /// stays null and the call succeeds.
  static Status Acquire(const std::string& journal_path, std::unique_ptr<JournalLock>* out);

  ~JournalLock();
  JournalLock(const JournalLock&) = delete;
  JournalLock& operator=(const JournalLock&) = delete;

  /// The lock file's path.
  const std::string& path() const { return path_; }

 private:
  JournalLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_;
};

}  // namespace locsched
