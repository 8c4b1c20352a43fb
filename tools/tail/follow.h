// FollowedFile: one path followed like `tail -F` by locsched-tail's follow mode:
// files that do not exist yet, partial last lines, rotation by rename (the old file
// is read to its end first) and copy-truncate, resuming from a checkpoint cursor.
// Plain files only (no gzip). Used from the tailer's one thread.
#pragma once

#include <memory>
#include <string>

#include "io/traces/line_splitter.h"
#include "io/traces/trace_parser.h"
#include "tools/tail/checkpoint.h"

namespace locsched {

/// A followed path and the parser of its current file.
class FollowedFile {
 public:
  /// Follows `path` as `format`; `resume` is its checkpoint cursor (if `has_resume`).
  FollowedFile(std::string path, TraceFormat format, SynthesisOptions options, FileCursor resume,
               bool has_resume);
  /// Closes the file.
  ~FollowedFile();
  /// One owner per descriptor.
  FollowedFile(const FollowedFile&) = delete;
  /// One owner per descriptor.
  FollowedFile& operator=(const FollowedFile&) = delete;

  /// Reads what is new into `sink`; *progressed says whether any byte was read.
  Status Poll(ParseSink* sink, bool* progressed);
  /// Where a restart resumes, given everything parsed so far (open records excluded).
  FileCursor Cursor() const;
  /// The path as given.
  const std::string& path() const { return path_; }
  /// The generation of the file being read (part of event ids).
  uint64_t generation() const { return cursor_.generation; }
  /// Rotations and truncations noticed since start.
  uint64_t rotations() const { return rotations_; }

 private:
  Status TryOpen(bool* opened);
  Status ReadAvailable(ParseSink* sink, bool* progressed);
  Status CheckReplaced(bool* replaced);
  void CloseFile();

  std::string path_;
  TraceFormat format_;
  SynthesisOptions options_;
  FileCursor cursor_;  // dev/ino of the open file; offset/line = start of the splitter's buffer
  bool has_resume_;
  int fd_ = -1;
  uint64_t read_offset_ = 0;  // bytes of the open file consumed into the splitter
  LineSplitter lines_;
  std::string tail_;  // the last bytes read (up to 64): a changed copy means a truncation
  std::unique_ptr<TraceParser> parser_;
  uint64_t rotations_ = 0;
};

}  // namespace locsched
