#include "algorithms/core/job_index.h"

#include <algorithm>

#include "base/slot_pool.h"

namespace locsched {

void JobIndex::Add(TaskId t) {
  const Task& task = cluster_.task(t);
  if (jobs_.size() <= task.job) jobs_.resize(task.job + 1);
  JobLists& job = jobs_[task.job];
  if (stamp_.size() <= t) stamp_.resize(std::max<size_t>(t + 1, 2 * stamp_.size()), 0);
  const uint32_t stamp = ++stamp_[t];
  // A new job's list is sized once for all its tasks: growing it by doubling left a
  // quarter of it unused on average and freed every smaller copy.
  if (job.any.items.empty()) {
    const size_t tasks = cluster_.job(task.job).tasks.size();
    if (job.any.items.capacity() < tasks) job.any.items.reserve(tasks);
  }
  const Queued q = MakeQueued(t, stamp);
  Push(job.any, q);
  if (job.indexed) AddLocal(job, q);
}

JobIndex::Queued JobIndex::MakeQueued(TaskId t, uint32_t stamp) const {
  Queued q{t, stamp, {kNoId, kNoId, kNoId}};
  const ReplicaList& replicas = cluster_.task(t).replicas;
  if (replicas.size() > kHeld) {
    q.holders[0] = kMany;
    return q;
  }
  for (uint32_t i = 0; i < replicas.size(); ++i) q.holders[i] = replicas[i];
  return q;
}

template <typename E>
void JobIndex::Push(Fifo<E>& list, E e) {
  std::vector<E>& items = list.items;
  // A full array drops its taken and stale entries before it grows, and keeps room for as
  // many pushes as it has live entries before the next try (amortised O(1) per entry).
  if (items.size() == items.capacity() && items.size() >= 16) {
    Prune(list);
    if (2 * items.size() > items.capacity()) items.reserve(2 * items.size());
  }
  items.push_back(e);
  ++entries_;
}

void JobIndex::AddLocal(JobLists& job, const Queued& q) {
  ForEachHolder(q, [&](MachineId m) {
    uint32_t l = ListOf(job, m);
    if (l == kNoId) l = NewList(job, m);
    Push(lists_[l], Entry{q.task, q.stamp});
  });
}

// The index into lists_ of job's list for machine m, or kNoId.
uint32_t JobIndex::ListOf(const JobLists& job, MachineId m) const {
  if (!job.table.empty()) return m < job.table.size() ? job.table[m] : kNoId;
  const uint32_t l = job.by_machine.Find(m);
  return l == FlatMap64::kMissing ? kNoId : l;
}

uint32_t JobIndex::NewList(JobLists& job, MachineId m) {
  const uint32_t l = TakeSlot(lists_, free_lists_);
  if (job.table.empty()) {
    job.by_machine.Put(m, l);
  } else {
    if (job.table.size() <= m) job.table.resize(m + 1, kNoId);
    job.table[m] = l;
  }
  job.machines.push_back(m);
  return l;
}

// Indexes job j's live tasks under their machines, in the order of its `any` list (the
// order Add saw them), once its stale entries are dropped: the lists are what Add would
// have built, so FindLocal answers the same. The machine lookup is a table by machine
// (4 bytes a machine) when that is smaller than a map at half load (32 bytes a key).
void JobIndex::Build(JobId j) {
  JobLists& job = jobs_[j];
  job.indexed = true;
  Prune(job.any);
  size_t replicas = 0;
  for (const Queued& e : job.any.items) ForEachHolder(e, [&](MachineId) { ++replicas; });
  const size_t keys = std::min<size_t>(replicas, cluster_.num_machines());
  if (keys > 0 && 8 * keys >= cluster_.num_machines()) {
    job.table.assign(cluster_.num_machines(), kNoId);
    job.by_machine.Reset(0);
    ReserveLists(job);
  } else {
    job.by_machine.Reset(keys);
  }
  for (const Queued& e : job.any.items) AddLocal(job, e);
}

// A job with a table: each machine's list is made and sized once, before Build fills it.
void JobIndex::ReserveLists(JobLists& job) {
  std::vector<uint32_t> sizes(cluster_.num_machines(), 0);
  for (const Queued& e : job.any.items)
    ForEachHolder(e, [&](MachineId m) {
      if (m < sizes.size()) ++sizes[m];
    });
  for (MachineId m = 0; m < sizes.size(); ++m)
    if (sizes[m] > 0) lists_[NewList(job, m)].items.reserve(sizes[m]);
}

// Drops the taken prefix and every stale entry of a list, keeping the order.
template <typename E>
void JobIndex::Prune(Fifo<E>& list) {
  std::vector<E>& items = list.items;
  const auto first = items.begin() + list.head;
  const auto live_end = std::remove_if(first, items.end(), [&](const E& e) { return !Live(e); });
  entries_ -= static_cast<size_t>(items.end() - live_end);
  items.erase(live_end, items.end());
  items.erase(items.begin(), first);
  list.head = 0;
}

template <typename E>
TaskId JobIndex::FrontLive(Fifo<E>& list) {
  std::vector<E>& items = list.items;
  // Pass stale entries at the front until a live one (or nothing) remains.
  uint32_t head = list.head;
  for (; head < items.size(); ++head) {
    // The caller reads the task found next: its record loads while the stamp is checked.
    __builtin_prefetch(&cluster_.task(items[head].task));
    if (Live(items[head])) break;
  }
  entries_ -= head - list.head;
  if (head == items.size()) {
    items.clear();
    list.head = 0;
    return kNoId;
  }
  // Amortised O(1): the read prefix goes once it outgrows what is left.
  if (head > 16 && 2 * size_t{head} > items.size()) {
    items.erase(items.begin(), items.begin() + head);
    head = 0;
  }
  list.head = head;
  return items[head].task;
}

TaskId JobIndex::FindLocal(JobId j, MachineId m) {
  if (j >= jobs_.size()) return kNoId;
  JobLists& job = jobs_[j];
  if (!job.indexed) {
    if (small_ == SmallJobs::kScan && job.any.items.size() - job.any.head <= kScanLimit)
      return ScanLocal(job.any, m);
    Build(j);
  }
  const uint32_t l = ListOf(job, m);
  return l == kNoId ? kNoId : FrontLive(lists_[l]);
}

// The first live entry of `any` held by m: what the machine list would answer.
TaskId JobIndex::ScanLocal(const Fifo<Queued>& any, MachineId m) const {
  for (size_t i = any.head; i < any.items.size(); ++i) {
    const Queued& q = any.items[i];
    if (Holds(q, m) && Live(q)) return q.task;
  }
  return kNoId;
}

bool JobIndex::Holds(const Queued& q, MachineId m) const {
  if (q.holders[0] == kMany) [[unlikely]]
    return cluster_.task(q.task).replicas.Contains(m);
  // No early exit, as in ReplicaList::Contains: which holder matches is data-dependent.
  bool held = false;
  for (const MachineId h : q.holders) held |= h == m;
  return held;
}

TaskId JobIndex::FindAny(JobId j) {
  return j < jobs_.size() ? FrontLive(jobs_[j].any) : kNoId;
}

// Empties a list for reuse; a small one keeps its buffer, so recycled lists rarely allocate.
template <typename E>
void JobIndex::FreeList(Fifo<E>& list) {
  entries_ -= list.items.size() - list.head;
  if (list.items.capacity() > 64)
    list.items = {};
  else
    list.items.clear();
  list.head = 0;
}

void JobIndex::DropJob(JobId j) {
  if (j >= jobs_.size()) return;
  JobLists& job = jobs_[j];
  FreeList(job.any);
  for (const MachineId m : job.machines) {
    const uint32_t l = ListOf(job, m);
    FreeList(lists_[l]);
    free_lists_.push_back(l);
  }
  // The map is sized anew when a recycled id is indexed; until then it stays unread.
  job.indexed = false;
  job.table = {};
  job.machines.clear();
}

}  // namespace locsched
