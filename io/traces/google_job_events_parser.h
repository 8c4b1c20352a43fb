// GoogleJobEventsParser: Google cluster-data 2011 job_events CSV (timestamp µs,
// missing_info, job_id, event_type, user, scheduling_class, job_name,
// logical_job_name). SUBMIT rows become job arrivals; other valid rows are skipped.
// The table has no tasks: each job gets `tasks_per_job` placeholder maps, seeded replicas.
#pragma once

#include "io/traces/trace_parser.h"

namespace locsched {

/// Parses job_events rows into job arrivals.
class GoogleJobEventsParser : public TraceParser {
 public:
  /// A parser placing the placeholder tasks' replicas as `options` says.
  explicit GoogleJobEventsParser(SynthesisOptions options) : options_(std::move(options)) {}
  /// Parses one row; a blank line is skipped.
  void Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) override;
  /// Nothing is ever open between rows.
  void Finish(ParseSink*) override {}
  /// Event type of a SUBMIT row.
  static constexpr uint64_t kSubmit = 0;
  /// Highest valid event type (UPDATE_RUNNING).
  static constexpr uint64_t kMaxEventType = 8;
  /// Placeholder tasks per submitted job.
  static constexpr uint64_t kTasksPerJob = 1;

 private:
  SynthesisOptions options_;
};

}  // namespace locsched
