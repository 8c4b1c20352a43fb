// Workload: the simulator's arrival process (Poisson jobs, job sizes, replica
// placement, and each task's service-time draws), generated in batches of time
// slots. It never looks at scheduler state, so it can run ahead on another
// thread and the results do not depend on whether it does. Single-threaded.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/sim/simulator.h"
#include "base/rng.h"

namespace locsched {

/// A task's run lengths packed in one word: local in the low 16 bits, remote in the high
/// 16, or kWideRuns when either is 0xFFFF or more (the batch's `wide` list has those).
constexpr uint32_t kWideRuns = UINT32_MAX;
/// PackRuns(local, remote): the word, or kWideRuns.
constexpr uint32_t PackRuns(uint32_t local, uint32_t remote) {
  return local < 0xFFFF && remote < 0xFFFF ? local | remote << 16 : kWideRuns;
}
/// The local or remote run length in a word from PackRuns other than kWideRuns.
constexpr uint32_t PackedRun(uint32_t packed, bool local) {
  return local ? packed & 0xFFFF : packed >> 16;
}

/// Run lengths of a task too long for PackRuns.
struct WideRuns {
  uint64_t task = 0;  ///< its index among the batch's tasks
  uint32_t local = 0, remote = 0;
};

/// The arrivals of a run of consecutive time slots.
struct ArrivalBatch {
  uint64_t first_slot = 0;
  std::vector<uint32_t> jobs_per_slot;  ///< jobs arriving in each slot of the batch
  std::vector<uint32_t> job_sizes;      ///< tasks of each job, in arrival order
  std::vector<uint32_t> job_weights;    ///< weight of each job, in arrival order
  std::vector<MachineId> replicas;      ///< `replicas` machines per task, tasks in order
  std::vector<uint32_t> runs;           ///< per task: PackRuns(slots run local, slots remote)
  std::vector<WideRuns> wide;           ///< the tasks whose runs are kWideRuns, in order
};

/// Deterministic generator of the arrival process for one SimParams.
class Workload {
 public:
  explicit Workload(const SimParams& params);
  /// Overwrites `batch` with the arrivals of slots [first, first + count).
  void Fill(uint64_t first, uint64_t count, ArrivalBatch& batch);

 private:
  uint32_t DrawJobSize();
  void DrawReplicas(std::vector<MachineId>& out);

  SimParams p_;
  Rng rng_;
  Rng weight_rng_;  // a stream of its own, so weights leave every other draw unchanged
  std::poisson_distribution<uint64_t> job_arrivals_;
  double inv_log_local_, inv_log_remote_, inv_log_size_;
  double pareto_xm_;
  uint32_t pareto_cap_;
};

}  // namespace locsched
