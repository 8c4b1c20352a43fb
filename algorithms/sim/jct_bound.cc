#include "algorithms/sim/jct_bound.h"

#include <algorithm>
#include <functional>

namespace locsched {
namespace {

// Heap order of SrptFlow: the job with the least work left on top.
struct MoreLeft {
  template <typename Job>
  bool operator()(const Job& a, const Job& b) const {
    return a.left > b.left;
  }
};

}  // namespace

double PhaseBound(std::span<double> works, uint64_t slots) {
  const uint64_t n = works.size();
  double total = 0, longest = 0;
  for (const double x : works) {
    total += x;
    longest = std::max(longest, x);
  }
  double bound = std::max(longest, total / static_cast<double>(slots));
  if (n <= slots) return bound;
  std::sort(works.begin(), works.end(), std::greater<>());
  // prefix[i]: the i longest works together.
  std::vector<double> prefix(n + 1, 0);
  for (uint64_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + works[i];
  // Of the r x slots + 1 longest tasks some slot runs r + 1, one after another: at least
  // the r + 1 shortest of them, works[r x slots - r .. r x slots].
  for (uint64_t r = 1; r * slots < n; ++r)
    bound = std::max(bound, prefix[r * slots + 1] - prefix[r * slots - r]);
  return bound;
}

void SrptFlow::RunUntil(double t) {
  while (!heap_.empty() && now_ < t) {
    Job& top = heap_.front();
    const double end = now_ + top.left / speed_;
    if (end > t) {
      top.left -= (t - now_) * speed_;  // it stays the least: the heap holds
      break;
    }
    flow_ += end - top.release;
    now_ = end;
    std::pop_heap(heap_.begin(), heap_.end(), MoreLeft{});
    heap_.pop_back();
  }
  now_ = std::max(now_, t);
}

void SrptFlow::Release(double at, double work) {
  RunUntil(at);
  heap_.push_back(Job{work, at});
  std::push_heap(heap_.begin(), heap_.end(), MoreLeft{});
}

double SrptFlow::Drain() {
  while (!heap_.empty()) {
    const Job& top = heap_.front();
    now_ += top.left / speed_;
    flow_ += now_ - top.release;
    std::pop_heap(heap_.begin(), heap_.end(), MoreLeft{});
    heap_.pop_back();
  }
  return flow_;
}

HolderRate::HolderRate(const TraceClusterModel& c)
    : machines_(c.machines),
      slots_per_machine_(c.slots_per_machine),
      racks_(c.racks > 1 ? c.racks : 0),
      rack_rate_(1 / RackSlowdown(c)),
      remote_rate_(1 / c.remote_slowdown),
      rack_size_(racks_, 0),
      machine_seen_(c.machines, 0),
      rack_seen_(racks_, 0) {
  for (MachineId m = 0; m < machines_ && racks_ > 0; ++m) ++rack_size_[RackOf(m)];
}

uint32_t HolderRate::RackOf(MachineId m) const {
  return static_cast<uint32_t>(uint64_t{m} * racks_ / machines_);  // TraceRun's racks
}

double HolderRate::Of(std::span<const MachineId> holders) {
  ++call_;
  uint64_t held = 0, in_racks = 0;  // holders, and the machines of their racks
  for (const MachineId m : holders) {
    if (m >= machines_ || machine_seen_[m] == call_) continue;
    machine_seen_[m] = call_;
    ++held;
    if (racks_ == 0) continue;
    const uint32_t r = RackOf(m);
    if (rack_seen_[r] != call_) in_racks += rack_size_[r];
    rack_seen_[r] = call_;
  }
  if (racks_ == 0) in_racks = held;
  const double rate = static_cast<double>(held) +
                      static_cast<double>(in_racks - held) * rack_rate_ +
                      static_cast<double>(machines_ - in_racks) * remote_rate_;
  return rate * slots_per_machine_;
}

namespace {

// One phase of a job: PhaseBound on every slot, or its local work at its holders' rate.
double PhaseOf(std::vector<double>& works, std::span<const MachineId> holders, HolderRate& rate) {
  if (works.empty()) return 0;
  double total = 0;
  for (const double x : works) total += x;
  return std::max(PhaseBound(works, rate.slots()), total / rate.Of(holders));
}

}  // namespace

JctBound TraceJctBound(const TraceWorkload& w, std::span<const double> work,
                       const TraceClusterModel& c, std::span<const double> jct_s) {
  JctBound b;
  HolderRate rate(c);
  std::vector<double> works[2];                     // the job's maps, its reduces
  std::vector<MachineId> holders[2], all;           // ... their replicas; every counted task's
  std::vector<std::pair<double, double>> releases;  // (submit, local work) per counted job
  double path_sum = 0;
  for (size_t j = 0; j < w.jobs.size() && j < jct_s.size(); ++j) {
    if (jct_s[j] < 0) continue;
    const TraceJob& job = w.jobs[j];
    for (int k = 0; k < 2; ++k) works[k].clear(), holders[k].clear();
    double total = 0;
    for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t) {
      const int k = w.kinds[t] == TaskKind::kMap ? 0 : 1;
      works[k].push_back(work[t] * c.local_mean_s);
      total += works[k].back();
      holders[k].insert(holders[k].end(), w.replicas.begin() + w.replica_begin[t],
                        w.replicas.begin() + w.replica_begin[t + 1]);
    }
    all.insert(all.end(), holders[0].begin(), holders[0].end());
    all.insert(all.end(), holders[1].begin(), holders[1].end());
    const double path = PhaseOf(works[0], holders[0], rate) + PhaseOf(works[1], holders[1], rate);
    const double weight = w.weights.empty() ? 1 : w.weights[j];
    ++b.jobs;
    path_sum += path;
    b.weighted += weight * path;
    b.weight += weight;
    releases.emplace_back(job.submit_s, total);
  }
  if (b.jobs == 0) return b;
  SrptFlow srpt(rate.Of(all));
  for (const auto& [at, total] : releases) srpt.Release(at, total);
  const auto n = static_cast<double>(b.jobs);
  b.critical_path_mean = path_sum / n;
  b.srpt_mean = srpt.Drain() / n;
  b.mean = std::max(b.critical_path_mean, b.srpt_mean);
  return b;
}

void WindowJctBound::Arrive(double at, double work) {
  srpt_.Release(at, work);
  ++arrived_;
  arrived_at_ += at;
  arrived_work_ += work;
}

void WindowJctBound::Done(double at, double work, double critical_path, double weight) {
  ++b_.jobs;
  done_at_ += at;
  done_work_ += work;
  b_.critical_path_mean += critical_path;  // a sum until Finish
  b_.weighted += weight * critical_path;
  b_.weight += weight;
}

JctBound WindowJctBound::Finish(double end) {
  if (b_.jobs == 0) return JctBound{};
  const auto n = static_cast<double>(b_.jobs);
  // Each unfinished job ends, at the latest, once the run's end is past and all their
  // work has run on the one fast server.
  const double left = static_cast<double>(arrived_ - b_.jobs);
  const double latest = end + std::max(0.0, arrived_work_ - done_work_) / speed_;
  const double slack = left * latest - (arrived_at_ - done_at_);
  b_.critical_path_mean /= n;
  b_.srpt_mean = std::max(0.0, srpt_.Drain() - slack) / n;
  b_.mean = std::max(b_.critical_path_mean, b_.srpt_mean);
  return b_;
}

}  // namespace locsched
