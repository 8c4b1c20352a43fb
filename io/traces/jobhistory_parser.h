// JobHistoryParser: Hadoop 0.20 JobHistory text logs (`Type KEY="value" ... .`
// records, values with backslash escapes, a record may span lines). Job, Task,
// MapAttempt and ReduceAttempt records of map and reduce tasks become events;
// SPLITS give a map's replica hosts; a Job record's USER and JOB_QUEUE are passed
// on with the job's tasks. One parser per stream; not thread-safe.
#pragma once

#include <map>
#include <unordered_map>
#include <utility>

#include "io/traces/trace_parser.h"

namespace locsched {

/// One parsed record: its type and its KEY="value" pairs, unescaped.
struct JobHistoryRecord {
  std::string type;                         ///< Job, Task, MapAttempt, ReduceAttempt, Meta...
  std::map<std::string, std::string> keys;  ///< every pair of the record
};

/// Result of parsing the text of one record.
enum class RecordParse : uint8_t { kComplete, kNeedMore, kBad };

/// Parses `text` (one or more lines joined by '\n'); kBad fills *error. *in_value (if
/// given) says whether kNeedMore stopped inside a quoted value.
RecordParse ParseJobHistoryRecord(std::string_view text, JobHistoryRecord* out, Status* error,
                                  bool* in_value = nullptr);

/// Parses Hadoop JobHistory text into events.
class JobHistoryParser : public TraceParser {
 public:
  /// Feeds one line; a record continues over lines until its closing " .".
  void Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) override;
  /// A record still open at the end is reported as truncated.
  void Finish(ParseSink* sink) override;
  /// True inside a record that spans lines.
  bool InRecord() const override { return !pending_.empty(); }
  /// The open record's first line.
  SourcePos OpenRecord() const override { return pending_pos_; }
  /// Longest record accepted (a runaway quote would otherwise buffer the whole log).
  static constexpr size_t kMaxRecordBytes = size_t{1} << 20;

 private:
  void Complete(ParseSink* sink);
  Status Emit(const JobHistoryRecord& r, const SourcePos& pos, ParseSink* sink);
  Status EmitTask(const JobHistoryRecord& r, const std::string& type, TraceEvent* e,
                  ParseSink* sink) const;
  static Status EmitAttempt(const JobHistoryRecord& r, TraceEvent* e, ParseSink* sink);
  std::string pending_;
  SourcePos pending_pos_;
  bool in_value_ = false;  // pending_ ends inside a quoted value
  // Job id -> its USER and JOB_QUEUE, from its Job record, for its tasks' events. Bounded:
  // past kMaxOwners jobs it starts over (tasks of a job seen before then go without).
  std::unordered_map<std::string, std::pair<std::string, std::string>> owners_;
  static constexpr size_t kMaxOwners = 100000;
};

}  // namespace locsched
