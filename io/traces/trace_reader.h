// TraceInput reads a log file, plain or gzip (detected by its magic bytes, read
// through zlib), and ParseTraceFile runs a TraceParser over a whole file for
// --check, replays and tests. Blocking; one owner per TraceInput.
#pragma once

#include <functional>
#include <string>

#include "io/traces/trace_parser.h"

namespace locsched {

/// A file read through zlib: gzip is decompressed, anything else passes through.
class TraceInput {
 public:
  /// Not open.
  TraceInput() = default;
  /// Closes the file.
  ~TraceInput();
  /// One owner per file.
  TraceInput(const TraceInput&) = delete;
  /// One owner per file.
  TraceInput& operator=(const TraceInput&) = delete;
  /// Opens `path`; the error names it.
  Status Open(const std::string& path);
  /// Reads up to `size` (decompressed) bytes; *got = 0 at the end of the file.
  Status Read(char* buf, size_t size, size_t* got);
  /// Closes (safe twice).
  void Close();

 private:
  void* gz_ = nullptr;  // gzFile, kept opaque so users need not include zlib.h
  std::string path_;
};

/// Parses all of `path` with `parser`, tallying into *counts; `drain` is called after each
/// chunk and at the end (it should take the events and malformed records out of the sink).
Status ParseTraceFile(const std::string& path, TraceParser* parser, TraceCounts* counts,
                      const std::function<void(ParseSink*)>& drain);

/// The cluster `format`'s log at `path` was recorded on, for a replay that is not told
/// (--machines): a SWIM file's first non-blank row decides (SwimClusterSize: 3000 for
/// FB-2010's with-input-paths format); any other format, or a file that cannot be read or
/// holds no row yet: FB-2009's 600. Reads at most up to the end of that row.
uint32_t DefaultClusterSize(TraceFormat format, const std::string& path);

}  // namespace locsched
