// LineSplitter: cuts a byte stream that arrives in arbitrary chunks into whole
// lines, each with its line number and byte offsets; a partial last line waits
// for the rest. Used by the trace reader and follow mode. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/traces/trace_event.h"

namespace locsched {

/// Buffers bytes and hands out complete lines with their positions.
class LineSplitter {
 public:
  /// Starts counting at byte `offset` and 1-based line `line` (a resumed stream).
  void Reset(uint64_t offset = 0, uint64_t line = 1);
  /// Appends bytes read from the stream.
  void Append(std::string_view bytes) { buffer_.append(bytes); }
  /// Takes the next complete line (without '\n') and its position; false if none is whole yet.
  /// The view stays valid until the next Append or Reset.
  bool Next(std::string_view* line, SourcePos* pos);
  /// Takes the partial last line as a line (the stream ended without a final newline).
  bool TakePartial(std::string_view* line, SourcePos* pos);
  /// Bytes buffered after the last complete line.
  size_t partial_bytes() const { return buffer_.size() - begin_; }
  /// Byte offset just after the last line handed out.
  uint64_t offset() const { return offset_; }
  /// Number of the next line to hand out.
  uint64_t line() const { return line_; }

 private:
  void Compact();
  std::string buffer_;
  size_t begin_ = 0;  // buffer_[begin_, end) is not handed out yet
  uint64_t offset_ = 0;
  uint64_t line_ = 1;
};

}  // namespace locsched
