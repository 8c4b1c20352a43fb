#include "algorithms/core/order_front.h"

#include <algorithm>
#include <cassert>

namespace locsched {

OrderFront::OrderFront(const Cluster& cluster, const JobHeap::Less& less, JobIndex& index)
    : cluster_(cluster), index_(index), rest_(less) {
  front_.reserve(kFront);
}

void OrderFront::AddMachine(MachineId m) {
  if (masks_.size() <= m) masks_.resize(m + 1, Bits{});
}

// The front stays full while other jobs wait, and every front job goes before every other.
void OrderFront::Insert(JobId j) {
  if (front_.size() < kFront) {
    Admit(j);
  } else if (Before(j, front_.back())) {
    const JobId last = front_.back();
    Unplace(last);
    rest_.Insert(last);
    Admit(j);
  } else {
    rest_.Insert(j);
  }
}

void OrderFront::Erase(JobId j) {
  if (!InFront(j)) {
    if (!rest_.Contains(j)) return;
    rest_.Erase(j);
    if (SlotOf(j) != kNoId) Release(j);
    return;
  }
  Unplace(j);
  Release(j);
  if (rest_.size() == 0) return;
  const JobId next = rest_.Top();
  rest_.Erase(next);
  Admit(next);
}

// One job moved: it takes its new place, and at most the front's last and the rest's
// first trade places.
void OrderFront::Update(JobId j) {
  if (InFront(j)) {
    Move(rank_[slot_[j]]);
  } else {
    rest_.Update(j);
  }
  Balance();
}

// The front job at `at` moved: it trades places with its neighbours until the front is
// sorted again (O(the places it moves), usually none).
void OrderFront::Move(size_t at) {
  while (at > 0 && Before(front_[at], front_[at - 1])) {
    Swap(at - 1, at);
    --at;
  }
  while (at + 1 < front_.size() && Before(front_[at + 1], front_[at])) {
    Swap(at, at + 1);
    ++at;
  }
}

void OrderFront::Swap(size_t a, size_t b) {
  std::swap(front_[a], front_[b]);
  rank_[slot_[front_[a]]] = static_cast<uint32_t>(a);
  rank_[slot_[front_[b]]] = static_cast<uint32_t>(b);
}

void OrderFront::Balance() {
  if (rest_.size() == 0 || !Before(rest_.Top(), front_.back())) return;
  const JobId last = front_.back(), next = rest_.Top();
  Unplace(last);
  rest_.Erase(next);
  rest_.Insert(last);
  Admit(next);
}

// Job j (in neither part) enters the front with the slot it kept, or a slot whose
// holders learn of its queued tasks (O(its queued tasks x replicas)).
void OrderFront::Admit(JobId j) {
  if (slot_.size() <= j) slot_.resize(j + 1, kNoId);
  uint32_t s = slot_[j];
  if (s == kNoId) {
    s = TakeSlot(j);
    index_.ForEachQueued(j, [this, s](TaskId t) {
      for (const MachineId h : cluster_.task(t).replicas) Set(masks_[h], s);
    });
  }
  Set(front_slots_, s);
  Place(j);
}

// A free slot for job j, else the one kept longest (its job loses it). Bits a slot's
// former job left set are cleared by FirstLocal's look-ups.
uint32_t OrderFront::TakeSlot(JobId j) {
  uint32_t s = kNoId;
  for (uint32_t w = 0; w < kWords && s == kNoId; ++w)
    if (~held_[w] != 0) s = 64 * w + Lowest(~held_[w]);
  if (s == kNoId) {
    for (uint32_t k = 0; k < kSlots; ++k)
      if (!Has(front_slots_, k) && (s == kNoId || kept_since_[k] < kept_since_[s])) s = k;
    slot_[owner_[s]] = kNoId;
  }
  assert(s != kNoId);
  Set(held_, s);
  owner_[s] = j;
  slot_[j] = s;
  return s;
}

// Front job j (holding a front slot, not in front_) takes its place in front_: after
// the jobs that go before it.
void OrderFront::Place(JobId j) {
  const auto it = std::upper_bound(front_.begin(), front_.end(), j,
                                   [this](JobId a, JobId b) { return Before(a, b); });
  const auto at = static_cast<size_t>(it - front_.begin());
  front_.insert(it, j);
  Renumber(at);
}

// Front job j leaves the front and keeps its slot.
void OrderFront::Unplace(JobId j) {
  const uint32_t s = slot_[j];
  front_.erase(front_.begin() + rank_[s]);
  Renumber(rank_[s]);
  Clear(front_slots_, s);
  kept_since_[s] = ++clock_;
}

// Job j, out of the front, leaves the order and gives up its slot. Its bits would each
// cost the slot's next job a failed look-up: they go now (O(machines), once per job).
void OrderFront::Release(JobId j) {
  const uint32_t s = slot_[j];
  for (Bits& mask : masks_) Clear(mask, s);
  Clear(held_, s);
  slot_[j] = kNoId;
}

void OrderFront::Renumber(size_t from) {
  for (size_t i = from; i < front_.size(); ++i) rank_[slot_[front_[i]]] = static_cast<uint32_t>(i);
}

void OrderFront::Enqueued(TaskId t) {
  const Task& task = cluster_.task(t);
  const uint32_t s = SlotOf(task.job);
  if (s == kNoId) return;
  for (const MachineId h : task.replicas) Set(masks_[h], s);
}

// The slot of the first front job among `candidates` (kNoId if none): the least rank of
// a few candidates, else the first of the front in order that is one.
uint32_t OrderFront::FirstCandidate(const Bits& candidates) const {
  int count = 0;
  for (const uint64_t w : candidates) count += __builtin_popcountll(w);
  if (count == 0) return kNoId;
  if (count > 4) {
    for (const JobId j : front_)
      if (Has(candidates, slot_[j])) return slot_[j];
  }
  uint32_t best = kNoId;
  for (uint32_t w = 0; w < kWords; ++w) {
    for (uint64_t bits = candidates[w]; bits != 0; bits &= bits - 1) {
      const uint32_t s = 64 * w + Lowest(bits);
      if (best == kNoId || rank_[s] < rank_[best]) best = s;
    }
  }
  return best;
}

TaskId OrderFront::FirstLocal(MachineId m) {
  Bits& mask = masks_[m];
  while (true) {
    Bits candidates;
    for (uint32_t w = 0; w < kWords; ++w) candidates[w] = mask[w] & front_slots_[w];
    const uint32_t s = FirstCandidate(candidates);
    if (s == kNoId) return kNoId;
    if (const TaskId t = index_.FindLocal(front_[rank_[s]], m); t != kNoId) return t;
    Clear(mask, s);
  }
}

uint32_t OrderFront::JobsAhead(JobId j, uint32_t cap) const {
  if (InFront(j)) return std::min(rank_[slot_[j]], cap);
  const auto ahead = static_cast<uint32_t>(front_.size());
  if (ahead >= cap) return cap;
  return ahead + rest_.CountBefore(j, cap - ahead);
}

}  // namespace locsched
