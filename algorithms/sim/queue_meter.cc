#include "algorithms/sim/queue_meter.h"

#include <algorithm>
#include <utility>

#include "base/stats.h"

namespace locsched {

QueueMeter::QueueMeter(std::vector<uint32_t> guarantee_slots, uint32_t capacity)
    : guarantee_(std::move(guarantee_slots)),
      capacity_(std::max<uint32_t>(1, capacity)),
      gap_(guarantee_.size(), 0),
      since_(guarantee_.size(), -1),
      out_(guarantee_.size()) {}

void QueueMeter::Observe(double now, std::span<const uint32_t> held,
                         std::span<const uint32_t> demand) {
  const double dt = now - last_;
  for (size_t q = 0; q < guarantee_.size(); ++q) {
    out_[q].share_deficit_s += gap_[q] * dt / capacity_;
    const uint32_t target = std::min(demand[q], guarantee_[q]);
    gap_[q] = held[q] < target ? target - held[q] : 0;
    if (gap_[q] > 0 && since_[q] < 0) since_[q] = now;
    if (gap_[q] == 0 && since_[q] >= 0) {
      out_[q].ttg_s.push_back(now - since_[q]);
      since_[q] = -1;
    }
  }
  last_ = now;
}

std::vector<QueueMeterResult> QueueMeter::Finish(double now) {
  for (size_t q = 0; q < guarantee_.size(); ++q) {
    out_[q].share_deficit_s += gap_[q] * (now - last_) / capacity_;
    gap_[q] = 0;
    out_[q].open_episodes += since_[q] >= 0;
    since_[q] = -1;
    if (!out_[q].ttg_s.empty()) {
      out_[q].ttg_p50_s = Quantile(out_[q].ttg_s, 0.5);
      out_[q].ttg_p99_s = Quantile(out_[q].ttg_s, 0.99);
    }
  }
  last_ = now;
  return out_;
}

}  // namespace locsched
