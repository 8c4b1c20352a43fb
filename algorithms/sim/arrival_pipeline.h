// ArrivalPipeline: hands the simulator its arrivals batch by batch, generating
// them with a Workload either inline or on one helper thread that runs a few
// batches ahead (the second core). Either way the batches are identical.
// Owned by one Simulation; Next() is called from that thread only.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "algorithms/sim/workload.h"

namespace locsched {

/// A bounded producer/consumer ring of ArrivalBatch over one Workload.
class ArrivalPipeline {
 public:
  static constexpr uint64_t kSlotsPerBatch = 256;

  /// Arrivals for params.slots slots; `threaded` runs the generator on its own thread.
  ArrivalPipeline(const SimParams& params, bool threaded);
  /// Stops and joins the generator thread.
  ~ArrivalPipeline();
  ArrivalPipeline(const ArrivalPipeline&) = delete;
  ArrivalPipeline& operator=(const ArrivalPipeline&) = delete;

  /// The next batch; valid until the following call.
  const ArrivalBatch& Next();

 private:
  static constexpr size_t kRing = 4;
  void Produce();
  uint64_t BatchSlots(uint64_t index) const;

  Workload workload_;
  uint64_t total_slots_;
  uint64_t batches_;
  bool threaded_;
  std::vector<ArrivalBatch> ring_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t produced_ = 0;  // batches filled
  uint64_t consumed_ = 0;  // batches handed out (the last one is in use)
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace locsched
