// SwimParser: SWIM job traces (tab-separated, one job a row: id, submit s, gap s,
// input, shuffle and output bytes, optional input path). Maps and reduces are
// derived from bytes and replicas placed by the seeded policy (SynthesisOptions).
// Called by MakeTraceParser's users on one thread.
#pragma once

#include "io/traces/trace_parser.h"

namespace locsched {

/// Parses SWIM TSV rows into job submissions.
class SwimParser : public TraceParser {
 public:
  /// A parser placing replicas as `options` says.
  explicit SwimParser(SynthesisOptions options) : options_(std::move(options)) {}
  /// Parses one row; a blank line is skipped.
  void Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) override;
  /// Nothing is ever open between rows.
  void Finish(ParseSink*) override {}

 private:
  Status ParseRow(std::string_view line, TraceEvent* out) const;
  SynthesisOptions options_;
};

/// Splits `line` at every `sep` (empty fields kept).
std::vector<std::string_view> SplitFields(std::string_view line, char sep);
/// Parses a whole field as a non-negative integer; the error names `what`.
Status ParseCount(std::string_view field, const char* what, uint64_t* out);

}  // namespace locsched
