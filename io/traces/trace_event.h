// TraceEvent: what every workload-log parser (io/*_parser.h) produces, with the
// source position it came from, and TraceCounts, the tally `locsched-tail --check`
// prints. Plain values: built by one parser thread, then moved to the sender.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/core/cluster.h"
#include "base/status.h"

namespace locsched {

/// Where a record starts and ends in its (decompressed) input.
struct SourcePos {
  uint64_t line = 0;    ///< 1-based line of the record's first line
  uint64_t offset = 0;  ///< byte offset of the record's first line
  uint64_t end = 0;     ///< byte offset just after the record's last line
};

/// One task of a submitted job.
struct TraceTask {
  std::string task;                   ///< task name, unique within its job
  TaskKind kind = TaskKind::kMap;     ///< map or reduce
  std::vector<std::string> replicas;  ///< machines holding its input (may be empty: unknown)
  double size = 0;                    ///< input bytes, 0 if unknown
  double duration = 0;                ///< seconds it ran in the trace, 0 if unknown
};

/// What happened.
enum class TraceEventKind : uint8_t {
  kJobSubmit,      ///< a job arrives with `tasks` (JobHistory: with none; they follow one by one)
  kTaskSubmit,     ///< one task of an already submitted job becomes known (`tasks` holds it)
  kAttemptStart,   ///< an attempt of `task` started on `machine`
  kAttemptFinish,  ///< an attempt of `task` ended on `machine`; `success` says how
  kRequest,        ///< a locsched protocol line (`request`), forwarded as it is
};

/// One event of a workload log.
struct TraceEvent {
  TraceEventKind kind = TraceEventKind::kJobSubmit;  ///< what happened
  SourcePos pos;                                     ///< the record it came from
  uint32_t index = 0;            ///< its position among the events of that record
  double time = -1;              ///< seconds (epoch or trace-relative); -1 if unknown
  std::string job;               ///< the job's name
  std::string task;              ///< attempt events: the task
  std::string attempt;           ///< attempt events: the attempt's id, if the log has one
  std::string machine;           ///< attempt events: where it ran, if known
  bool success = true;           ///< kAttemptFinish: it succeeded
  std::vector<TraceTask> tasks;  ///< kJobSubmit, kTaskSubmit: the tasks
  std::string user;              ///< kJobSubmit, kTaskSubmit: the job's user, if the log names one
  std::string queue;             ///< kJobSubmit, kTaskSubmit: the job's queue, if the log names one
  std::string op;                ///< kRequest: the command name
  std::string request;           ///< kRequest: the JSON line
};

/// A record that could not be parsed: where, and why.
struct Malformed {
  SourcePos pos;  ///< the record (its first line)
  Status error;   ///< what was wrong
};

/// Tallies over a parsed log (the output of `locsched-tail --check`).
struct TraceCounts {
  uint64_t lines = 0;      ///< input lines read
  uint64_t jobs = 0;       ///< jobs submitted
  uint64_t tasks = 0;      ///< map and reduce tasks submitted
  uint64_t attempts = 0;   ///< task attempts started
  uint64_t events = 0;     ///< events of any kind
  uint64_t malformed = 0;  ///< records skipped as malformed
  /// Counts `e` into the tallies (not `lines` or `malformed`).
  void Add(const TraceEvent& e);
};

/// The input formats `locsched-tail` reads.
enum class TraceFormat : uint8_t { kLocsched, kJobHistory, kRumen, kSwim, kGoogleJobEvents };

/// Parses a --format value ("locsched", "jobhistory", "rumen", "swim", "google").
Status ParseTraceFormat(std::string_view name, TraceFormat* out);
/// The --format name of `f`.
const char* TraceFormatName(TraceFormat f);

}  // namespace locsched
