// HostMapper: locsched-tail's --map-hosts. Renames the replica hosts a real trace
// names (JobHistory SPLITS, Rumen preferredLocations) to emulated machine names,
// prefix + index in first-seen order, so locsched-agents can run the trace's tasks.
// Used by the replay and --check modes of tools/tail/*_mode(s).cc; one thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "base/status.h"
#include "io/traces/trace_event.h"

namespace locsched {

/// Trace host names -> "<prefix><index>", index < machines, the same host always the same.
class HostMapper {
 public:
  /// Maps onto `prefix` + 0 .. `machines` - 1.
  HostMapper(std::string prefix, uint32_t machines);
  /// Renames the replicas of e's tasks in place; fails, naming the host, past `machines`.
  Status Map(TraceEvent* e);
  /// Distinct hosts mapped so far.
  size_t hosts() const { return names_.size(); }

 private:
  std::string prefix_;
  uint32_t machines_;
  std::unordered_map<std::string, std::string> names_;
};

}  // namespace locsched
