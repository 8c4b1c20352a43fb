// JobRanks: an LP's job order held as ranks, for late binding's `lp` job order and
// JSQ+MaxWeight's `priority` machine-queue order. A job the order ranked keeps its rank; a
// job it did not see (it arrived since the solve) is placed once, by Smith's rule, right
// after the last ranked job at least as Smith-worthy (or last, without placement). Set by
// LateBinding::SetPriorityOrder and LocalityQueues::SetPriorityRanks, read by their
// comparators. Pure; single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"

namespace locsched {

/// Job ranks of the last LP order, with unranked jobs placed among them by Smith's rule.
class JobRanks {
 public:
  explicit JobRanks(const Cluster& cluster) : cluster_(cluster) {}

  /// Replaces the order: ranks[j] (UINT32_MAX: none) holds for the job of arrival seq
  /// seqs[j] (empty: whichever job has id j). place_new: an unranked job is placed by
  /// Smith's rule; otherwise it goes last. Every key may change: the owner re-sorts.
  void Set(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs, bool place_new = true);
  /// Job j's place: 2 * rank + 2 if ranked; else 2 * r + 3 right after the ranked job of
  /// rank r, or 1 before them all (fixed until the next Set, so a heap stays valid);
  /// UINT64_MAX for an unranked job without placement.
  uint64_t Key(JobId j) const { return Key(j, cluster_.job(j).seq); }
  /// Key for live job j whose arrival seq the caller holds (it reads the job's record
  /// only to place it).
  uint64_t Key(JobId j, uint64_t seq) const {
    if (ranks_.empty()) return 1;  // no order yet: every job ties
    if (Ranked(j, seq)) return uint64_t{ranks_[j]} * 2 + 2;
    return place_new_ ? PlacedKey(j, seq) : UINT64_MAX;
  }
  /// True once an order was set.
  bool any() const { return !ranks_.empty(); }
  /// Smith's ratio of the `lp` order's tie-break: weight per task not yet done.
  static double SmithRatio(const Job& job);

 private:
  uint64_t PlacedKey(JobId j, uint64_t seq) const;
  bool Ranked(JobId j, uint64_t seq) const {
    return j < ranks_.size() && ranks_[j] != UINT32_MAX && (seqs_.empty() || seqs_[j] == seq);
  }

  const Cluster& cluster_;
  std::vector<uint32_t> ranks_;
  std::vector<uint64_t> seqs_;
  bool place_new_ = true;
  std::vector<uint32_t> ranked_ranks_;        // the live ranked jobs' ranks, ascending
  std::vector<double> ranked_ratios_;         // ... and their Smith ratios, descending
  mutable std::vector<uint64_t> placed_seq_;  // by job: seq + 1 of the job placed, 0: none
  mutable std::vector<uint64_t> placed_key_;  // by job: its placed key
};

}  // namespace locsched
