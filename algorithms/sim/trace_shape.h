// TraceShape: reshapes a loaded workload for the trace simulator's scenarios: a skewed
// cluster whose data sits on a hot subset of the machines, a cluster grown by new racks
// that hold no data yet, and a burst in which one tenant floods an idle cluster (job
// weights are JobWeights'). Called by locsched-sim
// --trace (--hot-share, --new-rack-share, --burst) and tests. Pure and deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/sim/trace_sim.h"

namespace locsched {

/// Moves every replica onto the first ceil(share * machines) machines (at least each
/// task's replica count where the cluster has that many): replica m goes to m modulo
/// that count, or the next free one past it, so a task keeps distinct replicas. share in (0, 1].
void ConcentrateReplicas(TraceWorkload& w, uint32_t machines, double share);

/// A cluster's size and racks (machine m in rack m * racks / machines; 0 or 1: none).
struct ClusterShape {
  uint32_t machines = 0;
  uint32_t racks = 0;
};

/// The cluster `data` (whose machines hold every replica) grown by new machines that hold
/// none, numbered after them, as when racks join a cluster before HDFS's balancer has run:
/// ceil(share * machines) of them; with racks above 1, ceil(share * racks) new racks of
/// machines / racks each, so every machine keeps its rack. Returns "" with *out set, or
/// what is wrong: share outside (0, 10], racks that do not divide machines, or more than
/// 2^24 machines.
std::string AddEmptyMachines(const ClusterShape& data, double share, ClusterShape* out);

/// A burst: every job of leaf `flood` is submitted at the workload's first submit time, all
/// at once onto the idle cluster, and the other jobs keep their spacing, shifted so that
/// the first of them comes `after_s` seconds later. Jobs are put back in submit order
/// (stable: ties keep their order), tasks and replicas with them, and *leaves (each job's
/// queue) with them. Returns "" or what is wrong: no job in `flood`, or after_s not in
/// [0, 1e6].
std::string Burst(TraceWorkload& w, std::vector<uint32_t>* leaves, uint32_t flood, double after_s);

}  // namespace locsched
