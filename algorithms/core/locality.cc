#include "algorithms/core/locality.h"

namespace locsched {

std::string_view LocalityName(Locality level) {
  switch (level) {
    case Locality::kNode:
      return "node";
    case Locality::kRack:
      return "rack";
    case Locality::kOffRack:
      return "off_rack";
  }
  return "off_rack";
}

Locality LocalityOf(const Cluster& cluster, TaskId t, MachineId m, bool racks) {
  const Task& task = cluster.task(t);
  if (task.IsLocalTo(m)) return Locality::kNode;
  if (!racks) return Locality::kOffRack;
  const uint32_t rack = cluster.machine(m).rack;
  for (const MachineId h : task.replicas)
    if (h < cluster.num_machines() && cluster.machine(h).rack == rack) return Locality::kRack;
  return Locality::kOffRack;
}

}  // namespace locsched
