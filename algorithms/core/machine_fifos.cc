#include "algorithms/core/machine_fifos.h"

#include <algorithm>

namespace locsched {

void MachineFifos::AddMachine(MachineId m) {
  if (fifos_.size() <= m) fifos_.resize(m + 1);
  if (count_.size() <= m) count_.resize(m + 1);
}

void MachineFifos::Add(TaskId t, uint32_t stamp, const ReplicaList& replicas) {
  log_.push_back(Entry{t, stamp});
  for (MachineId h : replicas) {
    ++count_[h].live;
    ++count_[h].listed;
  }
  ++queued_;
  // Entries of tasks that left before a Deal stay in the log; once they outnumber the
  // queued tasks, drop them (amortised O(1) per entry).
  if (log_.size() > 2 * queued_ + 16) CompactLog();
  // A log that is never read (a burst, a backlog restored at start) is dealt in pieces,
  // so that no Front pays for more than kLogLimit entries a machine.
  if (log_.size() >= kLogLimit * fifos_.size() + 16) Deal();
}

void MachineFifos::Remove(const ReplicaList& replicas) {
  for (MachineId h : replicas) --count_[h].live;
  --queued_;
}

void MachineFifos::CompactLog() {
  std::erase_if(log_, [&](const Entry& e) { return !Live(e); });
}

// Hands the log's live entries to their holders' lists, in arrival order: each list then
// holds what appending at Add would have left in it, less stale entries. A live task is
// still queued, so its replicas are the ones Add saw.
void MachineFifos::Deal() {
  for (const Entry& e : log_)
    if (Live(e))
      for (MachineId h : cluster_.task(e.task).replicas) Push(h, e);
  log_.clear();
}

void MachineFifos::Push(MachineId m, Entry e) {
  Fifo& fifo = fifos_[m];
  fifo.entries.push_back(e);
  // Taken entries and those of tasks another holder took stay until the front passes
  // them; once they outnumber the live ones, compact (amortised O(1) per entry).
  if (fifo.entries.size() > 2 * size_t{count_[m].live} + 16) Compact(fifo);
}

void MachineFifos::Compact(Fifo& fifo) {
  std::vector<Entry>& entries = fifo.entries;
  const auto live_end = std::remove_if(entries.begin() + fifo.head, entries.end(),
                                       [&](const Entry& e) { return !Live(e); });
  entries.erase(live_end, entries.end());
  entries.erase(entries.begin(), entries.begin() + fifo.head);
  fifo.head = 0;
}

TaskId MachineFifos::Front(MachineId m) {
  if (!log_.empty()) Deal();
  Fifo& fifo = fifos_[m];
  std::vector<Entry>& entries = fifo.entries;
  for (; fifo.head < entries.size(); ++fifo.head)
    if (Live(entries[fifo.head])) return entries[fifo.head].task;
  entries.clear();
  fifo.head = 0;
  return kNoId;
}

size_t MachineFifos::entries() const {
  size_t n = log_.size();
  for (const Fifo& fifo : fifos_) n += fifo.entries.size() - fifo.head;
  return n;
}

}  // namespace locsched
