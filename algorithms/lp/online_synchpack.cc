#include "algorithms/lp/online_synchpack.h"

#include <algorithm>
#include <cmath>

#include "algorithms/lp/synchpack_list.h"

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

OnlineSynchPack::OnlineSynchPack(const LpInstance& in, const OnlineSynchPackOptions& options)
    : in_(in),
      options_(options),
      flat_(FlattenTasks(in)),
      arrived_(in.jobs.size(), 0),
      ready_(flat_.size(), 0),
      started_(flat_.size(), 0),
      rank_(flat_.size(), -1),
      local_(in.capacity.size()),
      interval_(options.first_interval) {
  for (size_t j = 0, t = 0; j < in.jobs.size(); t += in.jobs[j++].tasks.size()) first_.push_back(t);
}

OnlineSynchPack::Key OnlineSynchPack::KeyOf(size_t t) const {
  if (rank_[t] >= 0) return {0, rank_[t], t};
  const LpJob& job = in_.jobs[flat_[t].job];
  return {1, -job.weight / static_cast<double>(job.tasks.size()), t};
}

// Keeps sizes_ in step with local_[m], which held `before` tasks.
void OnlineSynchPack::Resize(uint32_t m, size_t before) {
  if (before > 0) sizes_.erase({before, m});
  if (!local_[m].empty()) sizes_.insert({local_[m].size(), m});
}

void OnlineSynchPack::Insert(size_t t) {
  const Key key = KeyOf(t);
  if (Task(t).placement.empty()) anywhere_.insert(key);
  for (const uint32_t m : Task(t).placement) {
    if (m >= local_.size()) continue;
    const size_t before = local_[m].size();
    local_[m].insert(key);
    Resize(m, before);
  }
}

void OnlineSynchPack::Erase(size_t t) {
  const Key key = KeyOf(t);
  anywhere_.erase(key);
  for (const uint32_t m : Task(t).placement) {
    if (m >= local_.size()) continue;
    const size_t before = local_[m].size();
    local_[m].erase(key);
    Resize(m, before);
  }
}

void OnlineSynchPack::OnReady(size_t t, double now) {
  arrived_[flat_[t].job] = 1;
  ready_[t] = 1;
  ++ready_count_;
  (void)now;
  Insert(t);
}

// The sub-instance of arrived jobs' unstarted tasks, released now; its LP order ranks them.
void OnlineSynchPack::Resolve(double now) {
  (void)now;
  LpInstance sub;
  sub.capacity = in_.capacity;
  std::vector<size_t> back;  // sub flat index -> flat index
  std::vector<uint32_t> job_back;
  for (uint32_t j = 0; j < in_.jobs.size(); ++j) {
    if (!arrived_[j]) continue;
    LpJob job;
    job.weight = in_.jobs[j].weight;
    for (size_t k = 0; k < in_.jobs[j].tasks.size(); ++k) {
      if (started_[first_[j] + k]) continue;
      job.tasks.push_back(in_.jobs[j].tasks[k]);
      back.push_back(first_[j] + k);
    }
    if (job.tasks.empty()) continue;
    sub.jobs.push_back(std::move(job));
    job_back.push_back(j);
  }
  if (sub.jobs.empty()) return;
  ++solves_;
  ClassLpResult lp;
  if (!SolveClassLp(sub, options_.lp, &lp).ok()) {
    ++failures_;
    return;
  }
  const std::vector<size_t> order = LpOrders(sub, ClassLpAsTaskLp(lp), {}).front().second;
  for (size_t t = 0; t < flat_.size(); ++t)
    if (ready_[t]) Erase(t);
  last_order_.clear();
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t t = back[order[i]];
    rank_[t] = static_cast<double>(i);
    const uint32_t j = flat_[t].job;
    if (last_order_.empty() || last_order_.back() != j) last_order_.push_back(j);
  }
  for (size_t t = 0; t < flat_.size(); ++t)
    if (ready_[t]) Insert(t);
}

// The first task of `set` (in rank order) allowed on `machine` that fits `free`, or -1.
long OnlineSynchPack::Best(const std::set<Key>& set, uint32_t machine, double free) const {
  for (const Key& key : set) {
    const size_t t = std::get<2>(key);
    if (Task(t).demand <= free * (1 + 1e-9) && TaskDuration(in_, flat_[t], machine) != kNotAllowed)
      return static_cast<long>(t);
  }
  return -1;
}

// From the longest queue of another machine, the task at the position past which waiting
// there costs more than running remotely, if it may run on `machine` and fits; else -1.
long OnlineSynchPack::Spill(uint32_t machine, double free) const {
  if (options_.spill <= 0 || sizes_.empty()) return -1;
  const auto [size, other] = *sizes_.rbegin();
  if (other == machine) return -1;
  const size_t front = std::get<2>(*local_[other].begin());
  const double penalty = Task(front).remote_penalty;
  if (!(penalty >= 1)) return -1;
  const double keep = options_.spill * (penalty - 1) * in_.capacity[other] / Task(front).demand;
  const auto position = static_cast<size_t>(std::ceil(keep));
  if (size <= position) return -1;
  const size_t t = std::get<2>(*std::next(local_[other].begin(), static_cast<long>(position)));
  if (Task(t).demand > free * (1 + 1e-9) || TaskDuration(in_, flat_[t], machine) == kNotAllowed)
    return -1;
  return static_cast<long>(t);
}

long OnlineSynchPack::Pick(uint32_t machine, double now, double free) {
  if (now >= next_solve_) {
    Resolve(now);
    while (next_solve_ <= now) {
      next_solve_ += interval_;
      interval_ *= options_.growth;
    }
  }
  if (ready_count_ == 0 || machine >= local_.size()) return -1;
  // The first ranked of the machine's own tasks and the tasks without a placement; else a
  // task spilled from the longest queue.
  const long local = Best(local_[machine], machine, free);
  const long any = Best(anywhere_, machine, free);
  long pick = local;
  if (any >= 0 &&
      (local < 0 || KeyOf(static_cast<size_t>(any)) < KeyOf(static_cast<size_t>(local))))
    pick = any;
  if (pick < 0) pick = Spill(machine, free);
  if (pick < 0) return -1;
  const auto t = static_cast<size_t>(pick);
  Erase(t);
  ready_[t] = 0;
  started_[t] = 1;
  --ready_count_;
  return pick;
}

double OnlineSynchPack::NextWake(double now) {
  return ready_count_ > 0 && next_solve_ > now ? next_solve_ : kInf;
}

}  // namespace locsched
