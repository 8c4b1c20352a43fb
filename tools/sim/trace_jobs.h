// TraceJobs: turns a workload log into the trace simulator's jobs (TraceWorkload) the way
// tools/replay.sh and locsched-tail do: the io/traces parsers, the tailer's request lines
// (placed replicas for tasks without hosts, --map-hosts renaming for real hosts) and its
// pacing (times from the first sent job). Called by locsched-sim --trace; one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/sim/trace_sim.h"
#include "base/status.h"
#include "io/traces/trace_event.h"
#include "io/traces/trace_parser.h"

namespace locsched {

/// What to read and how the replay would shape it.
struct TraceJobsOptions {
  std::string path;                         ///< the log, plain or gzip
  TraceFormat format = TraceFormat::kSwim;  ///< its format
  int hour = -1;  ///< swim: only jobs submitted in [hour, hour + 1) h (-1: all)
  /// Cluster size; 0: the hosts jobhistory/rumen name, else DefaultClusterSize (FB-2010's
  /// 3000 for SWIM's with-input-paths format, 600 otherwise)
  uint32_t machines = 0;
  uint64_t seed = 1;   ///< the tailer's replica placement seed
  uint32_t racks = 0;  ///< above 1: synthesized replicas follow HDFS's rack placement
  /// swim: each job's explicit queue by the tailer's seeded draw (--tenants; empty: none)
  std::vector<TenantShare> tenants;
};

/// The jobs and the cluster size they were shaped for.
struct TraceJobs {
  TraceWorkload workload;
  uint32_t machines = 0;   ///< options.machines, or the default it stood for
  uint64_t malformed = 0;  ///< records the parser skipped
  /// Per job, in workload order: the queue and user the log (or the tenant draw) names
  /// ("" if none), for the tree's placement rules.
  std::vector<std::string> queues, users;
};

/// Reads options.path into *out; the error names the file, the record or the flag.
Status LoadTraceJobs(const TraceJobsOptions& options, TraceJobs* out);

}  // namespace locsched
