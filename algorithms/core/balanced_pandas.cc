#include "algorithms/core/balanced_pandas.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace locsched {

BalancedPandas::BalancedPandas(const PolicyParams& params, Cluster& cluster) : cluster_(cluster) {
  rate_ = {params.alpha, params.beta, params.gamma};
  keyed_rate_ = rate_;
}

void BalancedPandas::AddMachine(MachineId m) {
  const size_t queues = size_t{m + 1} * kLevels;
  if (head_.size() < queues) {
    head_.resize(queues, kNoId);
    tail_.resize(queues, kNoId);
    length_.resize(queues, 0);
    rack_.resize(m + 1, 0);
  }
  const uint32_t rack = cluster_.machine(m).rack;
  rack_[m] = rack;
  if (by_rack_.size() <= rack) by_rack_.resize(rack + 1);
  racks_in_use_ = racks_in_use_ || rack != rack_[0];
  if (Usable(m)) OnMachineAvailable(m);
}

bool BalancedPandas::Usable(MachineId m) const {
  const Machine& machine = cluster_.machine(m);
  return machine.up && !machine.draining;
}

double BalancedPandas::Workload(MachineId m) const {
  const uint32_t q = m * kLevels;
  const double w = length_[q] / rate_[kLocal] + length_[q + kRack] / rate_[kRack] +
                   length_[q + kRemote] / rate_[kRemote];
  return w / cluster_.machine(m).slots;
}

double BalancedPandas::Wait(MachineId m) const {
  const Machine& machine = cluster_.machine(m);
  const double full = machine.running >= machine.slots ? 1 / (rate_[kLocal] * machine.slots) : 0;
  return Workload(m) + full;
}

void BalancedPandas::Rekey(MachineId m) {
  if (!all_.Contains(m)) return;
  const double w = Workload(m);
  all_.Set(m, w);
  by_rack_[rack_[m]].Set(m, w);
}

void BalancedPandas::RekeyAll() {
  keyed_rate_ = rate_;
  for (MachineId m = 0; m < rack_.size(); ++m) Rekey(m);
}

void BalancedPandas::SetRates(double alpha, double gamma) {
  rate_[kLocal] = alpha;
  rate_[kRemote] = gamma;
  rate_[kRack] = std::clamp(rate_[kRack], gamma, alpha);
  // Learnt rates move on every completion; re-keying every machine costs O(n log n), so
  // it happens only once a rate drifted by more than 2% from the keys' rates.
  for (uint32_t l = 0; l < kLevels; ++l)
    if (std::abs(rate_[l] - keyed_rate_[l]) > 0.02 * keyed_rate_[l]) return RekeyAll();
}

void BalancedPandas::SetRackRate(double beta) {
  rate_[kRack] = std::clamp(beta, rate_[kRemote], rate_[kLocal]);
  if (std::abs(rate_[kRack] - keyed_rate_[kRack]) > 0.02 * keyed_rate_[kRack]) RekeyAll();
}

uint32_t BalancedPandas::Route(TaskId t) const {
  // Candidates: each usable holder at the local rate, the least loaded machine of each
  // holder's rack at the rack rate, the least loaded machine anywhere at the remote rate.
  // Ties go to the better level (local, then rack), then to the first found.
  uint32_t best = kNoId;
  double best_cost = 0;
  auto consider = [&](MachineId m, Level level) {
    if (m == kNoId) return;
    const double cost = Wait(m) / Rate(level);
    if (best == kNoId || cost < best_cost) {
      best = m * kLevels + level;
      best_cost = cost;
    }
  };
  const ReplicaList& replicas = cluster_.task(t).replicas;
  for (MachineId h : replicas)
    if (h < rack_.size() && Usable(h)) consider(h, kLocal);
  if (racks_in_use_) {
    for (MachineId h : replicas)
      if (h < rack_.size()) consider(by_rack_[rack_[h]].Top(), kRack);
  }
  consider(all_.Top(), kRemote);
  return best;
}

void BalancedPandas::Push(TaskId t, uint32_t queue) {
  Task& task = cluster_.task(t);
  task.queue = queue;
  task.prev = tail_[queue];
  task.next = kNoId;
  if (tail_[queue] != kNoId)
    cluster_.task(tail_[queue]).next = t;
  else
    head_[queue] = t;
  tail_[queue] = t;
  ++length_[queue];
  ++queued_;
  Rekey(queue / kLevels);
}

void BalancedPandas::Unlink(TaskId t) {
  Task& task = cluster_.task(t);
  const uint32_t queue = task.queue;
  assert(queue != kNoId);
  if (queue == kParked) {
    parked_.erase(std::find(parked_.begin(), parked_.end(), t));
    task.queue = kNoId;
    --queued_;
    return;
  }
  if (task.prev != kNoId)
    cluster_.task(task.prev).next = task.next;
  else
    head_[queue] = task.next;
  if (task.next != kNoId)
    cluster_.task(task.next).prev = task.prev;
  else
    tail_[queue] = task.prev;
  task.queue = task.prev = task.next = kNoId;
  --length_[queue];
  --queued_;
  Rekey(queue / kLevels);
}

void BalancedPandas::Enqueue(TaskId t) {
  const uint32_t queue = Route(t);
  if (queue != kNoId) return Push(t, queue);
  // No usable machine at all: the task waits apart until one is (OnMachineAvailable).
  // Parking it in some machine's queue would strand it there while that machine is
  // down, and re-routing a down machine's own queues into it again would never end.
  cluster_.task(t).queue = kParked;
  parked_.push_back(t);
  ++queued_;
}

void BalancedPandas::EnqueueTo(TaskId t, uint32_t queue) {
  if (queue < head_.size() && Usable(queue / kLevels))
    Push(t, queue);
  else
    Enqueue(t);
}

void BalancedPandas::Withdraw(TaskId t) {
  Unlink(t);
}

Pick BalancedPandas::PickFor(MachineId m) {
  for (uint32_t level = kLocal; level < kLevels; ++level) {
    const TaskId t = head_[m * kLevels + level];
    if (t == kNoId) continue;
    const JobId j = cluster_.task(t).job;
    Unlink(t);
    return Pick{t, j};
  }
  return Pick{};
}

void BalancedPandas::OnMachineUnavailable(MachineId m) {
  all_.Erase(m);
  by_rack_[rack_[m]].Erase(m);
  // Its queued tasks go to the machines that remain.
  for (uint32_t level = kLocal; level < kLevels; ++level) {
    while (head_[m * kLevels + level] != kNoId) {
      const TaskId t = head_[m * kLevels + level];
      Unlink(t);
      Enqueue(t);
    }
  }
}

void BalancedPandas::OnMachineAvailable(MachineId m) {
  const double w = Workload(m);
  all_.Set(m, w);
  by_rack_[rack_[m]].Set(m, w);
  // The tasks parked while no machine was usable are routed now, in their order.
  std::vector<TaskId> parked;
  parked.swap(parked_);
  for (TaskId t : parked) {
    cluster_.task(t).queue = kNoId;
    --queued_;
    Enqueue(t);
  }
}

QueueStats BalancedPandas::Stats() const {
  QueueStats s;
  s.queued = queued_;
  for (size_t q = 0; q < length_.size(); q += kLevels) {
    s.remote_queue += length_[q + kRemote];
    s.longest_local = std::max<uint64_t>(s.longest_local, length_[q]);
  }
  return s;
}

}  // namespace locsched
