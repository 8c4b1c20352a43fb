#include "algorithms/core/job_ranks.h"

#include <algorithm>
#include <functional>

#include "algorithms/core/job_order.h"

namespace locsched {

double JobRanks::SmithRatio(const Job& job) {
  return job.weight / static_cast<double>(std::max<uint32_t>(1, RemainingTasks(job)));
}

void JobRanks::Set(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs, bool place_new) {
  ranks_ = std::move(ranks);
  seqs_ = std::move(seqs);
  place_new_ = place_new;
  ranked_ranks_.clear();
  ranked_ratios_.clear();
  std::fill(placed_seq_.begin(), placed_seq_.end(), 0);
  for (JobId j = 0; j < ranks_.size() && j < cluster_.job_capacity(); ++j) {
    const Job& job = cluster_.job(j);
    if (!job.alive || !Ranked(j, job.seq)) continue;
    ranked_ranks_.push_back(ranks_[j]);
    ranked_ratios_.push_back(SmithRatio(job));
  }
  std::sort(ranked_ranks_.begin(), ranked_ranks_.end());
  std::sort(ranked_ratios_.begin(), ranked_ratios_.end(), std::greater<>());
}

uint64_t JobRanks::PlacedKey(JobId j, uint64_t seq) const {
  if (j < placed_seq_.size() && placed_seq_[j] == seq + 1) return placed_key_[j];
  // c = ranked jobs at least as Smith-worthy; the job sits right after the c-th of them.
  const auto c =
      static_cast<size_t>(std::upper_bound(ranked_ratios_.begin(), ranked_ratios_.end(),
                                           SmithRatio(cluster_.job(j)), std::greater<>()) -
                          ranked_ratios_.begin());
  const uint64_t key = c == 0 ? 1 : uint64_t{ranked_ranks_[c - 1]} * 2 + 3;
  if (j >= placed_seq_.size()) {
    placed_seq_.resize(std::max<size_t>(j + 1, 2 * placed_seq_.size()), 0);
    placed_key_.resize(placed_seq_.size(), 0);
  }
  placed_seq_[j] = seq + 1;
  placed_key_[j] = key;
  return key;
}

}  // namespace locsched
