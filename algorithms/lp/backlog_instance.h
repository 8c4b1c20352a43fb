// BacklogSnapshot: the live scheduling state as the backlog LP's instance (task counts
// per job and machine class, running work per class), and the LP's order back as the
// `priority` policy's ranks. Called by the daemon's LpPlanner and the simulator's
// SimLpPlanner, so both plan the same LP. Pure; on the thread that owns the Scheduler.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/lp/backlog_lp.h"

namespace locsched {

/// What the snapshot needs besides the cluster: rates, the clock and start times.
struct BacklogClock {
  double alpha = 0.8;    ///< local service rate: a task without duration lasts 1/alpha local
  double gamma = 0.2;    ///< remote service rate: remote runs take alpha/gamma times longer
  double now = 0;        ///< the caller's time (daemon: seconds; simulator: slots)
  uint32_t classes = 4;  ///< machine classes (racks, or ids when no rack is set, modulo this)
  std::function<double(TaskId)> started_at;  ///< when running task t started, in now's unit
};

/// The LP instance of the live backlog; seqs[j] gets the arrival seq of each live job j.
BacklogInstance SnapshotBacklog(const Cluster& c, const BacklogClock& clock,
                                std::vector<uint64_t>* seqs);

/// The priority policy's ranks for an LP order: rank = position for the ordered jobs that
/// are still the ones the snapshot saw (same id and seq), UINT32_MAX for every other id.
void OrderToRanks(const Cluster& c, std::span<const uint32_t> order,
                  std::span<const uint64_t> snapshot_seqs, std::vector<uint32_t>* ranks,
                  std::vector<uint64_t>* seqs);

}  // namespace locsched
