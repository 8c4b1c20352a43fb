#include "algorithms/sim/arrival_pipeline.h"

#include <algorithm>

namespace locsched {

ArrivalPipeline::ArrivalPipeline(const SimParams& params, bool threaded)
    : workload_(params),
      total_slots_(params.slots),
      batches_((params.slots + kSlotsPerBatch - 1) / kSlotsPerBatch),
      threaded_(threaded),
      ring_(kRing) {
  if (threaded_) thread_ = std::thread([this] { Produce(); });
}

ArrivalPipeline::~ArrivalPipeline() {
  if (!threaded_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t ArrivalPipeline::BatchSlots(uint64_t index) const {
  return std::min(kSlotsPerBatch, total_slots_ - index * kSlotsPerBatch);
}

void ArrivalPipeline::Produce() {
  // Fill batch i into ring slot i % kRing once the consumer has moved past the
  // batch that used that slot (it may still be reading batch consumed_ - 1).
  for (uint64_t i = 0; i < batches_; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || i + 1 < consumed_ + kRing; });
      if (stop_) return;
    }
    workload_.Fill(i * kSlotsPerBatch, BatchSlots(i), ring_[i % kRing]);
    {
      std::lock_guard<std::mutex> lock(mu_);
      produced_ = i + 1;
    }
    cv_.notify_all();
  }
}

const ArrivalBatch& ArrivalPipeline::Next() {
  const uint64_t i = consumed_;
  if (!threaded_) {
    workload_.Fill(i * kSlotsPerBatch, BatchSlots(i), ring_[i % kRing]);
    ++consumed_;
    return ring_[i % kRing];
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return produced_ > i; });
  ++consumed_;
  lock.unlock();
  cv_.notify_all();
  return ring_[i % kRing];
}

}  // namespace locsched
