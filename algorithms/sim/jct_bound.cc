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

JctBound TraceJctBound(const TraceWorkload& w, std::span<const double> work, double local_mean_s,
                       uint64_t slots, std::span<const double> jct_s) {
  JctBound b;
  SrptFlow srpt(static_cast<double>(slots));
  std::vector<double> maps, reduces;
  double path_sum = 0;
  for (size_t j = 0; j < w.jobs.size() && j < jct_s.size(); ++j) {
    if (jct_s[j] < 0) continue;
    const TraceJob& job = w.jobs[j];
    maps.clear();
    reduces.clear();
    double total = 0;
    for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t) {
      const double local = work[t] * local_mean_s;
      (w.kinds[t] == TaskKind::kMap ? maps : reduces).push_back(local);
      total += local;
    }
    const double path = PhaseBound(maps, slots) + PhaseBound(reduces, slots);
    const double weight = w.weights.empty() ? 1 : w.weights[j];
    ++b.jobs;
    path_sum += path;
    b.weighted += weight * path;
    b.weight += weight;
    srpt.Release(job.submit_s, total);
  }
  if (b.jobs == 0) return b;
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
