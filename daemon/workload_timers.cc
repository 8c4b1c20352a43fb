#include "daemon/workload_timers.h"

#include <algorithm>
#include <cmath>

namespace locsched {
namespace {

uint64_t WallMs(uint64_t workload_ms, double speed) {
  return std::max<uint64_t>(1, std::llround(static_cast<double>(workload_ms) / speed));
}

}  // namespace

RebalanceConfig WallTimed(const RebalanceConfig& cfg, double workload_speed) {
  RebalanceConfig wall = cfg;
  wall.base_interval_ms = WallMs(cfg.base_interval_ms, workload_speed);
  wall.max_interval_ms =
      std::max(wall.base_interval_ms, WallMs(cfg.max_interval_ms, workload_speed));
  return wall;
}

LpConfig WallTimed(const LpConfig& cfg, double workload_speed) {
  LpConfig wall = cfg;
  wall.base_interval_s = cfg.base_interval_s / workload_speed;
  wall.max_interval_s = cfg.max_interval_s / workload_speed;
  wall.headroom_window_s = cfg.headroom_window_s / workload_speed;
  return wall;
}

std::chrono::steady_clock::duration WallPeriod(double workload_seconds, double workload_speed) {
  const std::chrono::duration<double> wall(workload_seconds / workload_speed);
  return std::max<std::chrono::steady_clock::duration>(
      std::chrono::milliseconds(1),
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(wall));
}

}  // namespace locsched
