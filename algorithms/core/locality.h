// Locality: the three levels a task can run at, as YARN counts them (node-local,
// rack-local, off-rack), and how to tell which one a placement is. Called by the
// daemon's engine (metrics, rate learning) and the rate estimator. Pure; any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "algorithms/core/cluster.h"

namespace locsched {

/// Where a task runs relative to its input.
enum class Locality : uint8_t {
  kNode,     ///< on a machine holding a replica
  kRack,     ///< elsewhere in the rack of a replica holder
  kOffRack,  ///< elsewhere (and every non-local run when machines carry no racks)
};

/// Number of levels (array sizes).
inline constexpr int kLocalityLevels = 3;

/// "node", "rack" or "off_rack": the metrics' label values.
std::string_view LocalityName(Locality level);

/// The level at which task t runs on machine m. With `racks` false (the machines span one
/// rack, or carry none), a run off the task's holders is off-rack.
Locality LocalityOf(const Cluster& cluster, TaskId t, MachineId m, bool racks);

}  // namespace locsched
