#include "algorithms/core/quincy_policy.h"

#include <algorithm>
#include <cmath>

#include "algorithms/quincy/quincy_flow.h"

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Tasks whose wait is this close below a threshold still enter the network (the costs
// are rounded to milliseconds; taking a few more is always safe).
constexpr double kSlackS = 0.002;

}  // namespace

QuincyPolicy::QuincyPolicy(const PolicyParams& params, Cluster& cluster)
    : cluster_(cluster),
      alpha_(params.alpha),
      gamma_(params.gamma),
      beta_(params.beta),
      fair_(params.quincy_fair) {
  SetRates(params.alpha, params.gamma);
}

void QuincyPolicy::AddMachine(MachineId m) {
  if (local_.size() <= m) local_.resize(m + 1);
  if (plan_.size() <= m) plan_.resize(m + 1);
  dirty_ = true;
}

void QuincyPolicy::SetRates(double alpha, double gamma) {
  alpha_ = alpha;
  gamma_ = gamma;
  remote_wait_ = gamma > 0 && alpha > 0 ? std::max(0.0, 1 / gamma - 1 / alpha) : 0;
  SetRackRate(beta_);
}

// A run in a holder's rack loses 1/beta - 1/alpha (beta kept within [gamma, alpha]).
void QuincyPolicy::SetRackRate(double beta) {
  beta_ = beta;
  const double b = std::clamp(beta, std::min(gamma_, alpha_), alpha_);
  rack_wait_ = b > 0 && alpha_ > 0 ? 1 / b - 1 / alpha_ : 0;
}

int64_t QuincyPolicy::Cost(double seconds) const {
  return std::llround(std::max(0.0, seconds) * 1000);
}

void QuincyPolicy::Enqueue(TaskId t) {
  if (serial_.size() <= t) {
    serial_.resize(t + 1, 0);
    since_.resize(t + 1, 0);
    planned_.resize(t + 1, kNoId);
    seen_.resize(t + 1, 0);
  }
  const Entry e{t, ++serial_[t], now_};
  since_[t] = now_;
  planned_[t] = kNoId;
  all_.q.push_back(e);
  std::vector<uint32_t> racks;
  for (const MachineId h : cluster_.task(t).replicas) {
    if (h >= local_.size()) continue;
    local_[h].q.push_back(e);
    const uint32_t r = cluster_.machine(h).rack;
    if (std::find(racks.begin(), racks.end(), r) != racks.end()) continue;
    racks.push_back(r);
    if (rack_.size() <= r) rack_.resize(r + 1);
    rack_[r].q.push_back(e);
  }
  if (!HasLiveHolder(t)) orphans_.push_back(e);
  const JobId j = cluster_.task(t).job;
  if (by_job_.size() <= j) by_job_.resize(j + 1);
  by_job_[j].q.push_back(e);
  ++queued_;
  dirty_ = true;
}

bool QuincyPolicy::HasLiveHolder(TaskId t) const {
  for (const MachineId h : cluster_.task(t).replicas) {
    const Machine& machine = cluster_.machine(h);
    if (machine.up && !machine.draining) return true;
  }
  return false;
}

void QuincyPolicy::OnMachineUnavailable(MachineId m) {
  dirty_ = true;
  if (m >= local_.size()) return;
  for (const Entry& e : local_[m].q)
    if (Live(e) && !HasLiveHolder(e.task)) orphans_.push_back(e);
}

// Drops dead entries from f's front; compacts f once the dead outnumber the live.
void QuincyPolicy::Bury(Fifo& f) {
  while (!f.q.empty() && !Live(f.q.front())) {
    f.q.pop_front();
    if (f.dead > 0) --f.dead;
  }
  if (f.dead <= f.q.size() - std::min<size_t>(f.dead, f.q.size()) + 32) return;
  std::erase_if(f.q, [this](const Entry& e) { return !Live(e); });
  f.dead = 0;
}

void QuincyPolicy::Remove(TaskId t) {
  ++serial_[t];
  planned_[t] = kNoId;
  --queued_;
  ++all_.dead;
  Bury(all_);
  Fifo& job = by_job_[cluster_.task(t).job];
  ++job.dead;
  Bury(job);
  std::vector<uint32_t> racks;
  for (const MachineId h : cluster_.task(t).replicas) {
    if (h >= local_.size()) continue;
    ++local_[h].dead;
    Bury(local_[h]);
    const uint32_t r = cluster_.machine(h).rack;
    if (r >= rack_.size() || std::find(racks.begin(), racks.end(), r) != racks.end()) continue;
    racks.push_back(r);
    ++rack_[r].dead;
    Bury(rack_[r]);
  }
}

void QuincyPolicy::Withdraw(TaskId t) {
  Remove(t);
  dirty_ = true;
}

// A job whose running count fell freed a slot (a finish, a requeue, a cancel).
void QuincyPolicy::OnJobChanged(JobId j) {
  if (running_.size() <= j) running_.resize(j + 1, 0);
  const Job& job = cluster_.job(j);
  const uint32_t running = job.alive ? job.running : 0;
  if (running < running_[j]) dirty_ = true;
  running_[j] = running;
  if (active_at_.size() <= j) active_at_.resize(j + 1, kNoId);
  const bool active = job.alive && (job.queued > 0 || job.running > 0);
  if (active && active_at_[j] == kNoId) {
    active_at_[j] = static_cast<uint32_t>(active_.size());
    active_.push_back(j);
  } else if (!active && active_at_[j] != kNoId) {
    active_at_[active_.back()] = active_at_[j];
    active_[active_at_[j]] = active_.back();
    active_.pop_back();
    active_at_[j] = kNoId;
  }
  if (!job.alive && j < by_job_.size()) by_job_[j] = Fifo{};
}

Pick QuincyPolicy::PickFor(MachineId m) {
  if (queued_ == 0) return Pick{};
  // A slot freed that no event of this policy's jobs told it of (in a tenant queue, the
  // other queues' tasks end unseen): the last flow did not have it.
  if (m < free_seen_.size() && FreeSlots(cluster_.machine(m)) > free_seen_[m]) dirty_ = true;
  if (dirty_ || now_ >= next_solve_) Solve();
  std::vector<TaskId>& plan = plan_[m];
  while (!plan.empty()) {
    const TaskId t = plan.back();
    plan.pop_back();
    if (planned_[t] != m) continue;  // withdrawn since
    return Picked(t, m);
  }
  return Pick{};
}

// Hands out queued task t for a slot of m, which is one slot less free than the flow saw.
Pick QuincyPolicy::Picked(TaskId t, MachineId m) {
  Remove(t);
  if (m < free_seen_.size() && free_seen_[m] > 0) --free_seen_[m];
  return Pick{t, cluster_.task(t).job};
}

Pick QuincyPolicy::PickAnyFor(MachineId m) {
  if (const Pick p = PickFor(m); p.task != kNoId || queued_ == 0) return p;
  for (const Entry& e : all_.q)
    if (Live(e)) return Picked(e.task, m);  // also voids where the last flow placed it
  return Pick{};
}

uint64_t QuincyPolicy::LocalQueueLength(MachineId m) const {
  if (m >= local_.size()) return 0;
  const Fifo& f = local_[m];
  return f.q.size() - std::min<size_t>(f.dead, f.q.size());
}

// Each machine's rack and free slots into p; returns the free slots in all, and the
// usable machines' slots in *slots.
size_t QuincyPolicy::ScanMachines(QuincyProblem& p, size_t* slots) {
  const MachineId machines = cluster_.num_machines();
  p.rack.resize(machines);
  p.free_slots.resize(machines);
  free_seen_.resize(machines);
  size_t free = 0;
  racks_in_use_ = false;
  for (MachineId m = 0; m < machines; ++m) {
    const Machine& machine = cluster_.machine(m);
    p.rack[m] = static_cast<int>(machine.rack);
    p.free_slots[m] = static_cast<int>(FreeSlots(machine));
    free += FreeSlots(machine);
    free_seen_[m] = FreeSlots(machine);
    if (machine.up && !machine.draining) *slots += machine.slots;
    racks_in_use_ |= machine.rack != cluster_.machine(0).rack;
  }
  return free;
}

// Appends to out the first k live entries of f (oldest first) that waited at least
// min_wait, each task once per solve.
void QuincyPolicy::Take(Fifo& f, size_t k, double min_wait, std::vector<TaskId>& out) {
  Bury(f);
  size_t taken = 0;
  for (const Entry& e : f.q) {
    if (taken == k) return;
    if (!Live(e)) continue;
    if (now_ - e.since < min_wait - kSlackS) return;  // younger ones follow
    ++taken;
    if (seen_[e.task] == stamp_) continue;
    seen_[e.task] = stamp_;
    out.push_back(e.task);
  }
}

// The tasks some optimal flow may place, given k free slots in all. Every arc into a
// machine, a rack aggregator or X costs the same for each task that has it, and a longer
// wait costs more; so if a task enters through one of these with k tasks queued before it
// that also could, one of those is unscheduled and swapping the two costs no more: only
// the first k at each entry are needed. A task placed at cost c has waited at least c (or
// unscheduling it would be cheaper): racks and X take only tasks that waited that long.
std::vector<TaskId> QuincyPolicy::Candidates(const QuincyProblem& p, size_t k) {
  std::vector<TaskId> out;
  std::vector<char> rack_free(rack_.size(), 0);
  for (size_t m = 0; m < p.free_slots.size(); ++m) {
    if (p.free_slots[m] == 0) continue;
    Take(local_[m], k, -kInf, out);
    if (static_cast<size_t>(p.rack[m]) < rack_free.size()) rack_free[p.rack[m]] = 1;
  }
  if (racks_in_use_)
    for (size_t r = 0; r < rack_.size(); ++r)
      if (rack_free[r]) Take(rack_[r], k, rack_wait_, out);
  Take(all_, k, remote_wait_, out);
  AddOrphans(out);
  for (const auto& [j, tasks] : forced_) Take(by_job_[j], tasks, -kInf, out);
  return out;
}

// Quincy's fair shares without preemption: the slots split evenly among the jobs with
// work, none above what it asks (water-filling), rounded up; a job running less than its
// share must place the rest of it, as far as the free slots go (the jobs running fewest
// first, then the oldest). Fills forced_.
void QuincyPolicy::FairShares(size_t free, size_t slots) {
  forced_.clear();
  if (!fair_ || active_.empty()) return;
  std::vector<uint32_t> demand;
  for (const JobId j : active_) demand.push_back(cluster_.job(j).running + cluster_.job(j).queued);
  std::sort(demand.begin(), demand.end());
  double left = static_cast<double>(slots), level = kInf;
  for (size_t i = 0; i < demand.size(); ++i) {
    const auto rest = static_cast<double>(demand.size() - i);
    if (demand[i] * rest > left) {
      level = std::ceil(left / rest);
      break;
    }
    left -= demand[i];
  }
  for (const JobId j : active_) {
    const Job& job = cluster_.job(j);
    const double share = std::min<double>(job.running + job.queued, level);
    if (share > job.running) forced_.emplace_back(j, static_cast<uint32_t>(share) - job.running);
  }
  std::sort(forced_.begin(), forced_.end(), [this](const auto& a, const auto& b) {
    const Job &x = cluster_.job(a.first), &y = cluster_.job(b.first);
    return x.running != y.running ? x.running < y.running : x.seq < y.seq;
  });
  for (auto& f : forced_) {
    f.second = static_cast<uint32_t>(std::min<size_t>(f.second, free));
    free -= f.second;
  }
  std::erase_if(forced_, [](const auto& f) { return f.second == 0; });
}

// Each forced job's unscheduled node holds at most its tasks in the network less what it
// must place.
void QuincyPolicy::BoundUnscheduled(QuincyProblem& p, const std::vector<JobId>& jobs) const {
  if (forced_.empty()) return;
  std::vector<int> count(jobs.size(), 0);
  for (const QuincyTask& t : p.tasks) ++count[static_cast<size_t>(t.job)];
  p.max_unscheduled.assign(jobs.size(), -1);
  for (const auto& [j, tasks] : forced_) {
    const uint32_t d = job_slot_[j];
    p.max_unscheduled[d] = std::max(0, count[d] - static_cast<int>(tasks));
  }
}

// Every task still without a live holder: nothing is worth waiting for (AddTask).
void QuincyPolicy::AddOrphans(std::vector<TaskId>& out) {
  std::erase_if(orphans_, [this](const Entry& e) { return !Live(e) || HasLiveHolder(e.task); });
  for (const Entry& e : orphans_) {
    if (seen_[e.task] == stamp_) continue;
    seen_[e.task] = stamp_;
    out.push_back(e.task);
  }
}

// Task t into p: its holders, its job's dense index, the cost of its wait so far (+1, so
// that a free holder beats waiting even at no wait). A task without a live holder has
// nothing to wait for: waiting costs it a remote run more, so it runs on any free slot.
void QuincyPolicy::AddTask(QuincyProblem& p, TaskId t, std::vector<JobId>& jobs) {
  const JobId j = cluster_.task(t).job;
  if (job_stamp_.size() <= j) {
    job_stamp_.resize(j + 1, 0);
    job_slot_.resize(j + 1, 0);
  }
  if (job_stamp_[j] != stamp_) {
    job_stamp_[j] = stamp_;
    job_slot_[j] = static_cast<uint32_t>(jobs.size());
    jobs.push_back(j);
  }
  QuincyTask& qt = p.tasks.emplace_back();
  qt.job = static_cast<int>(job_slot_[j]);
  for (const MachineId h : cluster_.task(t).replicas)
    if (h < p.rack.size()) qt.holders.push_back(static_cast<int>(h));
  qt.unscheduled = 1 + Cost(now_ - since_[t]) + (HasLiveHolder(t) ? 0 : p.remote_cost);
}

void QuincyPolicy::Solve() {
  ++solves_;
  ++stamp_;
  dirty_ = false;
  for (const MachineId m : planned_machines_) {
    for (const TaskId t : plan_[m]) planned_[t] = kNoId;
    plan_[m].clear();
  }
  planned_machines_.clear();
  QuincyProblem p;
  size_t slots = 0;
  const size_t k = ScanMachines(p, &slots);
  next_solve_ = kInf;
  last_tasks_ = 0;
  if (k == 0) return;  // a slot that frees marks the flow stale
  p.remote_cost = Cost(remote_wait_);
  p.rack_cost = racks_in_use_ ? std::min(Cost(rack_wait_), p.remote_cost) : p.remote_cost;
  FairShares(k, slots);
  const std::vector<TaskId> candidates = Candidates(p, k);
  std::vector<JobId> jobs;
  for (const TaskId t : candidates) AddTask(p, t, jobs);
  p.jobs = static_cast<int>(jobs.size());
  BoundUnscheduled(p, jobs);
  last_tasks_ = candidates.size();
  const QuincyAssignment a = SolveQuincyFlow(p);
  for (size_t i = 0; i < candidates.size() && a.feasible; ++i) {
    if (a.machine[i] < 0) continue;
    const auto m = static_cast<MachineId>(a.machine[i]);
    if (plan_[m].empty()) planned_machines_.push_back(m);
    plan_[m].push_back(candidates[i]);
    planned_[candidates[i]] = m;
  }
  next_solve_ = NextThreshold();
}

// The first time after now at which a queued task's wait reaches the cost of a run in a
// holder's rack or off it: the flow may then place it (a chain of moves whose cost
// combines several such costs is found at the next event instead).
double QuincyPolicy::NextThreshold() const {
  double next = kInf;
  for (const double wait : {racks_in_use_ ? rack_wait_ : kInf, remote_wait_}) {
    if (!std::isfinite(wait)) continue;
    const auto it = std::upper_bound(all_.q.begin(), all_.q.end(), now_ - wait,
                                     [](double s, const Entry& e) { return s < e.since; });
    if (it != all_.q.end()) next = std::min(next, it->since + wait);
  }
  return next;
}

WaitInfo QuincyPolicy::Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const {
  WaitInfo info;
  info.remote_wait_s = remote_wait_;
  if (t < planned_.size() && planned_[t] != kNoId) {
    info.reason = WaitReason::kNextHeartbeat;
    info.machine = planned_[t];
    info.remote = !cluster.task(t).IsLocalTo(planned_[t]);
    return info;
  }
  const HolderSlots h = HoldersOf(cluster, t);
  if (h.free_holder != kNoId) {
    info.reason = WaitReason::kBehindJobs;  // tasks that waited longer took those slots
    return info;
  }
  info.reason = h.live == 0 ? WaitReason::kNoLiveHolder : WaitReason::kHoldersBusy;
  if (facts.free_machine == kNoId) return info;
  const double wait = t < since_.size() ? facts.now - since_[t] : 0;
  info.remote_in_s = std::max(0.0, remote_wait_ - wait);
  if (h.live > 0 && info.remote_in_s > 0) info.reason = WaitReason::kRemoteRule;
  return info;
}

}  // namespace locsched
