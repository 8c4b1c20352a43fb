// SwimParser: SWIM job traces (tab-separated, one job a row: id, submit s, gap s,
// input, shuffle and output bytes; then optionally the input path, or SWIM's three
// path columns: input path, output path, an empty field). Maps and reduces are derived
// from bytes; replicas are placed by the seeded policy (SynthesisOptions): a map of a
// job with a named input on the holders of its block of that input (PlaceInputBlock),
// any other task per job (PlaceReplicas). Called by MakeTraceParser's users on one thread.
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

/// FB-2009's cluster: the size a SWIM trace is replayed on unless it says otherwise.
inline constexpr uint32_t kSwimFb2009Machines = 600;
/// FB-2010's cluster (SWIM's "3000 machines"), which its with-input-paths files come from.
inline constexpr uint32_t kSwimFb2010Machines = 3000;
/// The cluster a SWIM row's file was recorded on: 3000 for SWIM's with-input-paths format
/// (9 fields, an input path named), which only FB-2010 publishes; else FB-2009's 600.
uint32_t SwimClusterSize(std::string_view row);

/// Splits `line` at every `sep` (empty fields kept).
std::vector<std::string_view> SplitFields(std::string_view line, char sep);
/// Parses a whole field as a non-negative integer; the error names `what`.
Status ParseCount(std::string_view field, const char* what, uint64_t* out);

}  // namespace locsched
