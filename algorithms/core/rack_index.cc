#include "algorithms/core/rack_index.h"

#include <span>

#include "base/slot_pool.h"

namespace locsched {

void RackIndex::Add(TaskId t, uint32_t stamp) {
  const Task& task = cluster_.task(t);
  const JobId j = task.job;
  if (racks_of_.size() <= j) racks_of_.resize(j + 1);
  // Each distinct rack of its replicas once (HDFS puts two of three in one rack).
  const std::span<const uint32_t> replicas = task.replicas.view();
  auto rack_of = [&](MachineId h) {
    return h < cluster_.num_machines() ? cluster_.machine(h).rack : kNoId;
  };
  for (size_t i = 0; i < replicas.size(); ++i) {
    const uint32_t rack = rack_of(replicas[i]);
    bool seen = rack == kNoId;
    for (size_t k = 0; k < i; ++k) seen |= rack_of(replicas[k]) == rack;
    if (seen) continue;
    uint32_t l = lists_by_key_.Find(Key(j, rack));
    if (l == FlatMap64::kMissing) {
      l = TakeSlot(lists_, free_lists_);
      lists_[l] = List{};
      lists_by_key_.Put(Key(j, rack), l);
      racks_of_[j].push_back(rack);
    }
    lists_[l].items.push_back(Entry{t, stamp});
    ++entries_;
  }
}

TaskId RackIndex::Find(JobId j, uint32_t rack, const std::vector<uint32_t>& stamps) {
  if (j >= racks_of_.size() || racks_of_[j].empty()) return kNoId;
  const uint32_t l = lists_by_key_.Find(Key(j, rack));
  if (l == FlatMap64::kMissing) return kNoId;
  List& list = lists_[l];
  while (list.head < list.items.size()) {
    const Entry& e = list.items[list.head];
    if (stamps[e.task] == e.stamp) break;
    ++list.head;
    --entries_;
  }
  // Amortised O(1): the read half goes once it outgrows what is left.
  if (list.head > 16 && 2 * list.head > list.items.size()) {
    list.items.erase(list.items.begin(), list.items.begin() + static_cast<ptrdiff_t>(list.head));
    list.head = 0;
  }
  return list.head < list.items.size() ? list.items[list.head].task : kNoId;
}

void RackIndex::DropJob(JobId j) {
  if (j >= racks_of_.size()) return;
  for (const uint32_t rack : racks_of_[j]) {
    const uint32_t l = lists_by_key_.Find(Key(j, rack));
    entries_ -= lists_[l].items.size() - lists_[l].head;
    lists_[l] = List{};
    free_lists_.push_back(l);
    lists_by_key_.Erase(Key(j, rack));
  }
  racks_of_[j].clear();
  racks_of_[j].shrink_to_fit();
}

}  // namespace locsched
