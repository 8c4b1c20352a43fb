// Turning parsed trace events into locschedd requests for locsched-tail: each
// request gets an "id" derived from the event's source position, so the daemon
// drops a duplicate after a retry or a restart. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/trace_parser.h"

namespace locsched {

/// The id of `e` in the file named `source` (its basename) at rotation `generation`.
std::string EventId(std::string_view source, uint64_t generation, const TraceEvent& e);

/// The request line for `e` with `id`, or "" when the event is not sent (attempt events,
/// JobHistory job records without tasks). Tasks without replicas get placed ones.
std::string RequestLine(const TraceEvent& e, const std::string& id, const SynthesisOptions& o);

}  // namespace locsched
