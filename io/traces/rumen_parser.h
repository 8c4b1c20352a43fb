// RumenParser: Rumen JSON job traces (LoggedJob objects, pretty-printed and
// concatenated). A brace counter that knows strings cuts the line stream into
// objects; each becomes a job submission (map and reduce tasks, preferred
// locations as replicas) and its attempts' start and finish. Not thread-safe.
#pragma once

#include "io/traces/trace_parser.h"

namespace locsched {

/// Parses concatenated Rumen LoggedJob objects into events.
class RumenParser : public TraceParser {
 public:
  /// Feeds one line; an object ends where its braces balance (the next may start on that line).
  void Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) override;
  /// An object still open at the end is reported as truncated.
  void Finish(ParseSink* sink) override;
  /// True inside an object.
  bool InRecord() const override { return depth_ > 0; }
  /// The open object's first line.
  SourcePos OpenRecord() const override { return pos_; }
  /// Largest object accepted.
  static constexpr size_t kMaxObjectBytes = size_t{64} << 20;

 private:
  // Scans `line` for braces; returns the index just after the object's end, or npos.
  size_t Scan(std::string_view line, size_t from);
  void EmitObject(ParseSink* sink);
  void Reset();
  std::string text_;
  SourcePos pos_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

/// Turns one Rumen LoggedJob (JSON text) into events; an error names the bad field.
Status RumenJobEvents(std::string_view json, const SourcePos& pos, std::vector<TraceEvent>* out);

}  // namespace locsched
