#include "algorithms/core/queues.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace locsched {

LocalityQueues::LocalityQueues(Cluster& cluster, IntraQueue intra)
    : cluster_(cluster), intra_(intra), ranks_(cluster) {}

void LocalityQueues::AddMachine() {
  local_.emplace_back();
  lengths_.push_back(0);
}

void LocalityQueues::AddLength(uint32_t queue, int32_t delta) {
  (queue == kRemote ? remote_length_ : lengths_[queue]) += delta;
}

[[gnu::noinline]] void LocalityQueues::SetRunningAfterGrow(JobId j, uint32_t running,
                                                           uint64_t seq) {
  GrowKeys(j);
  SetRunning(j, running, seq);  // in range now
}

// Out of line: the hot SetRunning stays a compare and a store.
[[gnu::noinline]] void LocalityQueues::GrowKeys(JobId j) {
  fair_keys_.resize(std::max<size_t>(j + 1, fair_keys_.size() * 2), 0);
  seqs_.resize(fair_keys_.size(), 0);
}

size_t LocalityQueues::FindEntry(const Queue& q, uint32_t queue, JobId job) const {
  if (q.hashed) {
    const uint32_t i = index_.Find(MapKey(queue, job));
    return i == FlatMap64::kMissing ? kMissing : i;
  }
  if (q.wide) return FindId(q.ids.data(), q.ids.size(), job);
  return FindJob(q.jobs.data(), q.jobs.size(), job);
}

// The position of `job` among n compact ids, or kMissing. With SSE2 (every x86-64), 16 ids
// a step: four 4-lane compares, one branch on their union. A job has at most one entry,
// so any hit is the answer; blocks go backwards, as FindJob's scan does.
size_t LocalityQueues::FindId(const JobId* ids, size_t n, JobId job) {
#ifdef __SSE2__
  const __m128i key = _mm_set1_epi32(static_cast<int>(job));
  const auto eq = [&](size_t at) {
    return _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ids + at)), key);
  };
  const auto lanes = [](__m128i m) { return _mm_movemask_ps(_mm_castsi128_ps(m)); };
  for (; n >= 16; n -= 16) {
    const __m128i a = eq(n - 16), b = eq(n - 12), c = eq(n - 8), d = eq(n - 4);
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) continue;
    const int hits = lanes(a) | lanes(b) << 4 | lanes(c) << 8 | lanes(d) << 12;
    return n - 16 + static_cast<size_t>(std::countr_zero(static_cast<unsigned>(hits)));
  }
  for (; n >= 4; n -= 4)
    if (const int hits = lanes(eq(n - 4)); hits != 0)
      return n - 4 + static_cast<size_t>(std::countr_zero(static_cast<unsigned>(hits)));
#endif
  while (n-- > 0)
    if (ids[n] == job) return n;
  return kMissing;
}

// The position of `job` among a narrow queue's n entries, or kMissing. Backwards: a job
// that just pushed sits near the end, so the last 8 are checked one by one; the rest in
// blocks of 8 with no exit inside a block. A job has at most one entry, so any hit is
// the answer.
size_t LocalityQueues::FindJob(const Entry* entries, size_t n, JobId job) {
  for (const size_t stop = n > 8 ? n - 8 : 0; n > stop;)
    if (entries[--n].job == job) return n;
  for (; n >= 8; n -= 8) {
    uint32_t hits = 0;
    for (uint32_t k = 0; k < 8; ++k)
      hits |= static_cast<uint32_t>(entries[n - 8 + k].job == job) << k;
    if (hits != 0) return n - 8 + static_cast<size_t>(std::countr_zero(hits));
  }
  while (n-- > 0)
    if (entries[n].job == job) return n;
  return kMissing;
}

void LocalityQueues::Push(TaskId t, uint32_t queue) {
  Task& task = cluster_.task(t);
  Queue& q = At(queue);
  task.queue = queue;
  task.next = kNoId;
  AddLength(queue, 1);
  // A job newer than everything this queue ever held (the usual case: a task
  // of a job just submitted, pushed to this queue first) needs no search.
  const uint64_t seq = cluster_.job(task.job).seq;
  const size_t i = seq >= q.seq_bound ? kMissing : FindEntry(q, queue, task.job);
  if (i == kMissing) {
    task.prev = kNoId;
    q.seq_bound = std::max(q.seq_bound, seq + 1);
    AddEntry(queue, Entry{task.job, t, t, 1}, seq);
    return;
  }
  Entry& e = q.jobs[i];
  task.prev = e.tail;
  cluster_.task(e.tail).next = t;
  e.tail = t;
  ++e.count;
}

void LocalityQueues::Remove(TaskId t) {
  const Task& task = cluster_.task(t);
  assert(task.queue != kNoId);
  const size_t i = FindEntry(At(task.queue), task.queue, task.job);
  assert(i != kMissing);
  RemoveAt(task.queue, i, t);
}

void LocalityQueues::RemoveAt(uint32_t queue, size_t i, TaskId t) {
  Task& task = cluster_.task(t);
  Entry& e = At(queue).jobs[i];
  if (e.count == 1) {
    // The job's only task here (the usual case): no links to mend, so the pop does not
    // wait for this task's record, which is seldom still in cache.
    assert(e.head == t && e.tail == t);
  } else if (e.head == t) {
    e.head = task.next;  // the new head's stale prev is never read
  } else {
    cluster_.task(task.prev).next = task.next;
    if (task.next != kNoId)
      cluster_.task(task.next).prev = task.prev;
    else
      e.tail = task.prev;
  }
  task.queue = task.prev = task.next = kNoId;
  AddLength(queue, -1);
  if (--e.count == 0) EraseEntry(queue, i);
}

Pick LocalityQueues::PopBest(uint32_t queue) {
  const Queue& q = At(queue);
  if (Length(queue) == 0) return Pick{};
  // Most pops empty their entry, and its erase moves the last entry into its place. That
  // line's address is known now, so its load overlaps the pick's scan instead of
  // following it (at ~100 jobs a queue it is seldom in cache).
  __builtin_prefetch(&q.jobs.back(), 1);
  const Best best = BestOf(q);
  const Pick pick{q.jobs[best.index].head, best.job};  // read before RemoveAt may erase it
  RemoveAt(queue, best.index, pick.task);
  return pick;
}

JobId LocalityQueues::BestJob(uint32_t queue) const {
  const Queue& q = At(queue);
  return Length(queue) == 0 ? kNoId : BestOf(q).job;
}

uint32_t LocalityQueues::TasksBefore(uint32_t queue, JobId j) const {
  // A scan, not an index: the routing that asks (JsqMaxWeight under `priority`) does so
  // only when JSQ would send a task to R, for its few replicas' queues.
  const Job& job = cluster_.job(j);
  uint64_t key = 0;
  if (intra_ == IntraQueue::kFair) key = FairKey(job.running, job.seq);
  if (intra_ == IntraQueue::kPriority) key = PriorityKey(j, job.seq);
  uint32_t n = 0;
  for (const Entry& e : At(queue).jobs) {
    bool before = e.job == j;
    if (intra_ == IntraQueue::kFair)
      before |= fair_keys_[e.job] < key;
    else if (intra_ == IntraQueue::kPriority && PriorityKey(e) != key)
      before |= PriorityKey(e) < key;
    else
      before |= seqs_[e.job] < job.seq;
    n += before ? e.count : 0;
  }
  return n;
}

// The job comes from what the choice just read: a heap's root entry, or the ids a wide
// queue's fair scan went through, so a pop's per-job counting need not wait for the
// winning entry's line.
LocalityQueues::Best LocalityQueues::BestOf(const Queue& q) const {
  if (Heaped()) return Best{0, q.jobs[0].job};
  // Fair: running counts change on every start and finish of any task of a
  // job, so the keys are read live from the dense fair_keys_ mirror.
  if (q.wide) {
    const size_t i = FairMin(q.ids.data(), q.ids.size(), [](JobId id) { return id; });
    return Best{i, q.ids[i]};
  }
  const size_t i = FairMin(q.jobs.data(), q.jobs.size(), [](const Entry& e) { return e.job; });
  return Best{i, q.jobs[i].job};
}

// The position of the job with the smallest fair key among n >= 1 items. Keys are
// unique (they embed the seq), so the first minimum wins.
template <typename T, typename JobOf>
size_t LocalityQueues::FairMin(const T* items, size_t n, JobOf job_of) const {
  const uint64_t* keys = fair_keys_.data();
  if (n < kWideScanFrom) {
    size_t best = 0;
    uint64_t best_key = keys[job_of(items[0])];
    for (size_t i = 1; i < n; ++i) {
      const uint64_t k = keys[job_of(items[i])];
      best = k < best_key ? i : best;
      best_key = k < best_key ? k : best_key;
    }
    return best;
  }
  // Many jobs: four running minima over interleaved positions, merged at the end. One
  // chain of compare-and-select per job was the scan's bottleneck (+18% decisions/s at
  // 100 jobs per queue); with a few jobs the merge costs more than it saves.
  size_t best[4] = {0, 0, 0, 0};
  uint64_t low[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (size_t lane = 0; lane < 4; ++lane) {
      const uint64_t k = keys[job_of(items[i + lane])];
      best[lane] = k < low[lane] ? i + lane : best[lane];
      low[lane] = k < low[lane] ? k : low[lane];
    }
  }
  for (; i < n; ++i) {
    const uint64_t k = keys[job_of(items[i])];
    best[0] = k < low[0] ? i : best[0];
    low[0] = k < low[0] ? k : low[0];
  }
  size_t winner = 0;
  for (size_t lane = 1; lane < 4; ++lane) winner = low[lane] < low[winner] ? lane : winner;
  return best[winner];
}

// Most queues under `fair` (the default) are neither wide nor heaped: their entries
// are appended and swap-removed inline, and the rest goes out of line, so that a push
// or a pop saves no registers for work it seldom does.
void LocalityQueues::AddEntry(uint32_t queue, Entry e, uint64_t seq) {
  Queue& q = At(queue);
  if (e.job >= fair_keys_.size()) GrowKeys(e.job);  // a job never reported yet
  fair_keys_[e.job] = FairKey(cluster_.job(e.job).running, seq);
  seqs_[e.job] = seq;
  q.jobs.push_back(e);
  if (q.wide || Heaped() || q.jobs.size() > kWideAbove) IndexLastEntry(q, queue);
}

// The entry just appended: its id mirror, hash slot and heap place, then the thresholds.
[[gnu::noinline]] void LocalityQueues::IndexLastEntry(Queue& q, uint32_t queue) {
  const size_t i = q.jobs.size() - 1;
  const JobId job = q.jobs[i].job;
  if (q.wide) q.ids.push_back(job);
  if (q.hashed) index_.Put(MapKey(queue, job), static_cast<uint32_t>(i));
  if (Heaped()) SiftUp(q, queue, i);
  if (!q.hashed && q.jobs.size() > kHashAbove) SetHashed(q, queue, true);
  if (!q.wide && q.jobs.size() > kWideAbove) SetWide(q, true);  // a hashed queue is wide
}

void LocalityQueues::EraseEntry(uint32_t queue, size_t i) {
  Queue& q = At(queue);
  if (q.hashed || q.wide || Heaped()) return EraseIndexedEntry(q, queue, i);
  q.jobs[i] = q.jobs.back();
  q.jobs.pop_back();
}

[[gnu::noinline]] void LocalityQueues::EraseIndexedEntry(Queue& q, uint32_t queue, size_t i) {
  if (q.hashed) index_.Erase(MapKey(queue, q.jobs[i].job));
  const Entry last = q.jobs.back();
  q.jobs.pop_back();
  if (q.wide) q.ids.pop_back();
  if (i < q.jobs.size()) {
    Place(q, queue, i, last);
    if (Heaped()) SiftUp(q, queue, SiftDown(q, queue, i));
  }
  if (q.hashed && q.jobs.size() < kUnhashBelow) SetHashed(q, queue, false);
  if (q.wide && q.jobs.size() < kNarrowBelow) SetWide(q, false);
}

void LocalityQueues::Place(Queue& q, uint32_t queue, size_t i, const Entry& e) {
  q.jobs[i] = e;
  if (q.wide) q.ids[i] = e.job;
  if (q.hashed) index_.Put(MapKey(queue, e.job), static_cast<uint32_t>(i));
}

size_t LocalityQueues::SiftUp(Queue& q, uint32_t queue, size_t i) {
  const Entry e = q.jobs[i];
  while (i > 0 && Before(e, q.jobs[(i - 1) / 2])) {
    Place(q, queue, i, q.jobs[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  Place(q, queue, i, e);
  return i;
}

size_t LocalityQueues::SiftDown(Queue& q, uint32_t queue, size_t i) {
  const Entry e = q.jobs[i];
  const size_t n = q.jobs.size();
  for (size_t child = 2 * i + 1; child < n; child = 2 * i + 1) {
    if (child + 1 < n && Before(q.jobs[child + 1], q.jobs[child])) ++child;
    if (!Before(q.jobs[child], e)) break;
    Place(q, queue, i, q.jobs[child]);
    i = child;
  }
  Place(q, queue, i, e);
  return i;
}

void LocalityQueues::SetHashed(Queue& q, uint32_t queue, bool hashed) {
  for (size_t i = 0; i < q.jobs.size(); ++i) {
    if (hashed)
      index_.Put(MapKey(queue, q.jobs[i].job), static_cast<uint32_t>(i));
    else
      index_.Erase(MapKey(queue, q.jobs[i].job));
  }
  q.hashed = hashed;
}

void LocalityQueues::SetWide(Queue& q, bool wide) {
  q.ids.clear();
  if (wide)
    for (const Entry& e : q.jobs) q.ids.push_back(e.job);
  q.wide = wide;
}

void LocalityQueues::Reorder(Queue& q, uint32_t queue) {
  if (!Heaped()) return;
  for (size_t i = q.jobs.size() / 2; i-- > 0;) SiftDown(q, queue, i);
}

void LocalityQueues::SetPriorityRanks(std::vector<uint32_t> ranks) {
  SetPriorityRanks(std::move(ranks), {});
}

void LocalityQueues::SetPriorityRanks(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs,
                                      bool place_new) {
  assert(seqs.empty() || seqs.size() == ranks.size());
  ranks_.Set(std::move(ranks), std::move(seqs), place_new);
  if (intra_ == IntraQueue::kPriority) SetIntraQueue(intra_);
}

bool LocalityQueues::PriorityBefore(const Entry& a, const Entry& b) const {
  const uint64_t ka = PriorityKey(a), kb = PriorityKey(b);
  return ka != kb ? ka < kb : seqs_[a.job] < seqs_[b.job];
}

void LocalityQueues::SetIntraQueue(IntraQueue intra) {
  intra_ = intra;
  for (uint32_t m = 0; m < local_.size(); ++m) Reorder(local_[m], m);
  Reorder(remote_, kRemote);
}

std::vector<TaskId> LocalityQueues::DrainQueue(uint32_t queue) {
  std::vector<TaskId> out;
  out.reserve(Length(queue));
  while (Length(queue) > 0) {
    const size_t i = At(queue).jobs.size() - 1;
    const TaskId t = At(queue).jobs[i].head;
    out.push_back(t);
    RemoveAt(queue, i, t);
  }
  return out;
}

}  // namespace locsched
