#include "daemon/arrival_window.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace locsched {
namespace {

uint64_t HashType(std::span<const uint32_t> sorted) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ sorted.size();
  for (uint32_t m : sorted) h = (h ^ m) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

// The held_hint_ counter of a type hash (its top bits: the map buckets by the low ones).
// 16 bits: with 4,096 types held, about 6% of the counters are nonzero, so about 6% of
// the arrivals of types not held probe the map (with 13 bits it was 40%, and each
// probe missed the cache twice).
size_t HintOf(uint64_t h) {
  return static_cast<size_t>(h >> 48);
}

// Adds 1 at index m, growing the vector as machine ids appear.
template <typename T>
void Bump(std::vector<T>& counts, uint32_t m) {
  if (m >= counts.size()) counts.resize(m + 1, 0);
  ++counts[m];
}

// Sorts the first n (<= 3) ids with at most three compare-exchanges.
void SortSmall(std::array<uint32_t, 3>& ids, size_t n) {
  auto order = [&](size_t i, size_t j) {
    if (ids[j] < ids[i]) std::swap(ids[i], ids[j]);
  };
  if (n >= 2) order(0, 1);
  if (n == 3) {
    order(1, 2);
    order(0, 1);
  }
}

}  // namespace

void ArrivalWindow::Add(double now, std::span<const TaskSpec> tasks) {
  Evict(now);  // first, so that evicted types free their room in the table
  const auto second = static_cast<int64_t>(std::floor(now));
  if (!first_) first_ = now;
  if (buckets_.empty() || buckets_.back().second != second) buckets_.push_back({second, {}, {}, 0});
  Type scratch;
  for (const TaskSpec& t : tasks) {
    if (t.replicas.size() <= 3) {  // the usual case: sorted in place, no heap copy
      std::array<uint32_t, 3> ids{};
      std::copy(t.replicas.begin(), t.replicas.end(), ids.begin());
      SortSmall(ids, t.replicas.size());
      Count(std::span<const uint32_t>(ids.data(), t.replicas.size()));
      continue;
    }
    scratch.assign(t.replicas.begin(), t.replicas.end());
    std::sort(scratch.begin(), scratch.end());
    Count(scratch);
  }
}

// Exact while the type is held or there is room; else (or on a hash collision with
// a held type) folded into its first replica. Tasks without replicas count apart.
void ArrivalWindow::Count(std::span<const uint32_t> sorted) {
  Bucket& b = buckets_.back();
  if (sorted.empty()) {
    ++b.remote, ++remote_;
    return;
  }
  const uint64_t h = HashType(sorted);
  // Once the table is full, most arrivals are of types it does not hold: the
  // hint answers those without probing the map.
  auto it = held_hint_[HintOf(h)] != 0 ? exact_.find(h) : exact_.end();
  const bool held = it != exact_.end() && std::ranges::equal(it->second.type, sorted);
  if (held || (it == exact_.end() && exact_.size() < max_types_)) {
    if (held) {
      ++it->second.count;
    } else {
      exact_.emplace(h, Held{Type(sorted.begin(), sorted.end()), 1});
      ++held_hint_[HintOf(h)];
    }
    ++b.exact[h];
  } else {
    Bump(b.folded, sorted.front());
    Bump(folded_, sorted.front());
  }
}

void ArrivalWindow::Evict(double now) {
  while (!buckets_.empty() && static_cast<double>(buckets_.front().second) + 1 < now - window_) {
    const Bucket& b = buckets_.front();
    for (const auto& [h, n] : b.exact) {
      auto it = exact_.find(h);
      if ((it->second.count -= n) != 0) continue;
      exact_.erase(it);
      --held_hint_[HintOf(h)];
    }
    for (uint32_t m = 0; m < b.folded.size(); ++m) folded_[m] -= b.folded[m];
    remote_ -= b.remote;
    buckets_.pop_front();
  }
}

// Counts over the window divided by the time covered (the window, or less just
// after the first arrival, so that a young daemon does not understate its rates).
std::vector<ArrivalType> ArrivalWindow::Rates(double now, size_t exact_types) {
  Evict(now);
  const double span = first_ ? std::clamp(now - *first_, 1.0, window_) : window_;
  static const Type kRemoteOnly;
  std::vector<std::pair<uint64_t, const Type*>> by_count;
  for (const auto& [h, held] : exact_) by_count.emplace_back(held.count, &held.type);
  if (remote_ > 0) by_count.emplace_back(remote_, &kRemoteOnly);
  const size_t keep = std::min(exact_types, by_count.size());
  std::partial_sort(by_count.begin(), by_count.begin() + static_cast<ptrdiff_t>(keep),
                    by_count.end(), [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : *a.second < *b.second;
                    });
  // The most frequent types stay exact; the rest fold into {their first replica}
  // (at most one type per machine), which understates capacity, never overstates it.
  std::vector<ArrivalType> types;
  double remote = 0;
  std::vector<double> folded;  // by first replica, dense: one flat pass per solve
  const auto fold = [&folded](uint32_t m, double rate) {
    if (m >= folded.size()) folded.resize(m + 1, 0);
    folded[m] += rate;
  };
  for (size_t i = 0; i < by_count.size(); ++i) {
    const double rate = static_cast<double>(by_count[i].first) / span;
    const Type& type = *by_count[i].second;
    if (i < keep)
      types.push_back({type, rate});
    else if (type.empty())
      remote += rate;
    else
      fold(type.front(), rate);
  }
  for (uint32_t m = 0; m < folded_.size(); ++m)
    if (folded_[m] > 0) fold(m, static_cast<double>(folded_[m]) / span);
  if (remote > 0) types.push_back({{}, remote});
  for (uint32_t m = 0; m < folded.size(); ++m)
    if (folded[m] > 0) types.push_back({{m}, folded[m]});
  return types;
}

}  // namespace locsched
