// The checkpoint of locsched-tail's follow mode: per followed path, the identity
// of the file (dev + inode) and the byte offset, line and rotation generation up
// to which every event was acknowledged. Saved atomically (temp file, fsync,
// rename). Called from the tailer's one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"

namespace locsched {

/// Where reading a followed file resumes.
struct FileCursor {
  uint64_t dev = 0;         ///< st_dev of the file read
  uint64_t ino = 0;         ///< st_ino of the file read
  uint64_t offset = 0;      ///< bytes before the first unacknowledged record
  uint64_t line = 1;        ///< that record's line number
  uint64_t generation = 0;  ///< rotations and truncations seen (part of every event id)
};

/// The cursors of all followed paths, by path as given on the command line.
using Checkpoint = std::map<std::string, FileCursor>;

/// Reads `path`; a missing file is an empty checkpoint, a corrupt one an error naming it.
Status LoadCheckpoint(const std::string& path, Checkpoint* out);
/// Writes `cp` to `path` atomically: readers see the old or the new file, never a mix.
Status SaveCheckpoint(const std::string& path, const Checkpoint& cp);

}  // namespace locsched
