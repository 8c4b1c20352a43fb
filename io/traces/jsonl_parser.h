// JsonlParser: locsched's own protocol as a log, one request a line
// (docs/protocol.md). Each line is checked with DecodeRequest (so errors name the
// field) and forwarded as it is. Stateless between lines; not thread-safe.
#pragma once

#include "io/traces/trace_parser.h"

namespace locsched {

/// Parses locsched JSON lines into kRequest events.
class JsonlParser : public TraceParser {
 public:
  /// Decodes one line; a blank line is skipped.
  void Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) override;
  /// Nothing is ever open between lines.
  void Finish(ParseSink*) override {}
};

}  // namespace locsched
