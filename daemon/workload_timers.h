// Workload timers: in a replay on an accelerated clock (locsched-tail --speed N with
// the emulator at the same speed), the rebalance and LP re-solve timers count
// workload seconds, not wall seconds: with scheduler.workload_speed = N they run N
// times faster on the daemon's wall clock. These turn the configured intervals
// (workload seconds) into the wall-clock ones that the Rebalancer, the LpPlanner and
// the daemon's timers run on. Pure functions; any thread.
#pragma once

#include <chrono>

#include "config/config.h"

namespace locsched {

/// cfg with its timer intervals divided by workload_speed (at least 1 ms each).
RebalanceConfig WallTimed(const RebalanceConfig& cfg, double workload_speed);
/// cfg with its re-solve intervals and its arrival window divided by workload_speed.
LpConfig WallTimed(const LpConfig& cfg, double workload_speed);
/// The wall-clock period of `workload_seconds` (at least 1 ms).
std::chrono::steady_clock::duration WallPeriod(double workload_seconds, double workload_speed);

}  // namespace locsched
