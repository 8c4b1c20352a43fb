// TraceParser: the line-oriented interface every workload-log parser implements,
// so one driver serves --check, replays and follow mode: feed whole lines in
// order, collect events and malformed records. MakeTraceParser picks one by format.
// One parser per input stream; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/traces/trace_event.h"

namespace locsched {

/// Where parsed events and malformed records go.
struct ParseSink {
  std::vector<TraceEvent> events;    ///< finished events, in input order
  std::vector<Malformed> malformed;  ///< skipped records, in input order
};

/// Settings for formats that lack task-level data (SWIM, Google job_events).
/// One tenant of a seeded draw (`--tenants NAME:SHARE,...`).
struct TenantShare {
  std::string name;                                     ///< the queue the drawn jobs ask for
  double share = 0;                                     ///< probability in (0, 1]
  bool operator==(const TenantShare&) const = default;  ///< field-wise equality
};

struct SynthesisOptions {
  /// Cluster size replicas are placed on (FB-2009: 600; FB-2010: 3000, SwimClusterSize).
  uint32_t machines = 600;
  uint32_t replication = 3;  ///< replicas per task, on distinct machines
  uint64_t seed = 1;         ///< seeds replica placement (per job, order-independent)
  /// Racks (machine i in rack i * racks / machines); above 1, replicas follow HDFS's default
  /// placement: one on a random machine, the next two together on another rack. 0 or 1:
  /// every replica on a uniformly random machine.
  uint32_t racks = 0;
  std::string machine_prefix = "m";  ///< machine i is named prefix + i (locsched-agents' names)
  double block_bytes = 64.0 * 1024 * 1024;     ///< SWIM: maps = ceil(input bytes / block)
  double reduce_bytes = 1024.0 * 1024 * 1024;  ///< SWIM: reduces = ceil(shuffle bytes / this)
  /// SWIM (which names no users or queues): each job is drawn into a tenant's queue
  /// (DrawTenant); empty: none.
  std::vector<TenantShare> tenants;
};

/// Turns the lines of one log into events.
class TraceParser {
 public:
  virtual ~TraceParser() = default;
  /// Feeds one line without its newline; `pos` is that line's own position.
  virtual void Feed(std::string_view line, const SourcePos& pos, ParseSink* sink) = 0;
  /// End of input: a record still open is reported as truncated.
  virtual void Finish(ParseSink* sink) = 0;
  /// True while a multi-line record is open (a restart must resume at its first line).
  virtual bool InRecord() const { return false; }
  /// While InRecord(): the byte offset and line of the open record's first line.
  virtual SourcePos OpenRecord() const { return {}; }
};

/// A parser for `format`.
std::unique_ptr<TraceParser> MakeTraceParser(TraceFormat format, const SynthesisOptions& options);

/// Places `replication` distinct replicas for task `index` of `job` (seeded by job name, not
/// order).
std::vector<std::string> PlaceReplicas(const SynthesisOptions& o, std::string_view job,
                                       uint64_t index);

/// Parses `--tenants` text, "NAME:SHARE,..." (each share in (0, 1], together at most 1);
/// the error names the part at fault.
Status ParseTenants(std::string_view text, std::vector<TenantShare>* out);

/// The tenant `job` is drawn into: tenant i with probability o.tenants[i].share, by a draw
/// seeded by o.seed and the job's name (not its place in the log); "" for the rest.
std::string_view DrawTenant(const SynthesisOptions& o, std::string_view job);

/// The holders of block `block` of the input named `input`, placed once as HDFS places a
/// block (the same policy and seed as PlaceReplicas, keyed by input name and block, never by
/// the job): every job that reads that block of that input finds it on the same machines,
/// in the tailer and the simulator alike. Map task i of a job reads block i of its input
/// (the first k blocks for a job of k maps; docs/tail.md#shared-inputs says why).
std::vector<std::string> PlaceInputBlock(const SynthesisOptions& o, std::string_view input,
                                         uint64_t block);

}  // namespace locsched
