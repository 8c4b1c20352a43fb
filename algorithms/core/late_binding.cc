#include "algorithms/core/late_binding.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "algorithms/core/job_order.h"
#include "algorithms/core/task_time.h"

namespace locsched {

LateBinding::LateBinding(const PolicyParams& params, Cluster& cluster)
    : cluster_(cluster),
      job_order_(params.job_order),
      index_(cluster, JobIndex::SmallJobs::kScan),
      ranks_(cluster),
      local_(cluster, index_.stamps()),
      order_(cluster, MakeJobLess(params.job_order, cluster, &ranks_), index_),
      back_([less = MakeJobLess(params.job_order, cluster, &ranks_)](JobId a, JobId b) {
        return less(b, a);
      }),
      alpha_(params.alpha),
      gamma_(params.gamma),
      racks_(cluster),
      beta_(params.beta),
      aging_(params.job_aging),
      cv_(params.duration_cv) {
  SetRates(params.alpha, params.gamma);
}

void LateBinding::AddMachine(MachineId m) {
  if (joined_.size() <= m) joined_.resize(m + 1);
  joined_[m] = now_;
  local_.AddMachine(m);
  order_.AddMachine(m);
  racks_in_use_ |= cluster_.machine(m).rack != cluster_.machine(0).rack;
}

void LateBinding::SetRates(double alpha, double gamma) {
  alpha_ = alpha;
  gamma_ = gamma;
  remote_wait_ = gamma > 0 && alpha > 0 ? 1 / gamma - 1 / alpha : 0;
  SetRackRate(beta_);
}

// Running in a holder's rack finishes after 1/beta (beta kept within [gamma, alpha]).
void LateBinding::SetRackRate(double beta) {
  beta_ = beta;
  const double b = std::clamp(beta, std::min(gamma_, alpha_), alpha_);
  rack_wait_ = b > 0 && alpha_ > 0 ? 1 / b - 1 / alpha_ : 0;
}

void LateBinding::Enqueue(TaskId t) {
  index_.Add(t);
  const uint32_t stamp = index_.Stamp(t);
  if (racks_in_use_) racks_.Add(t, stamp);
  local_.Add(t, stamp, cluster_.task(t).replicas);
  order_.Enqueued(t);
  ++queued_;
}

void LateBinding::Unqueue(TaskId t) {
  index_.Remove(t);
  local_.Remove(cluster_.task(t).replicas);
  --queued_;
}

void LateBinding::Withdraw(TaskId t) {
  Unqueue(t);
}

void LateBinding::Assigned(TaskId t, MachineId) {
  Take(t, cluster_.task(t).job);
}

void LateBinding::OnJobChanged(JobId j) {
  const Job& job = cluster_.job(j);
  if (!job.alive) {
    index_.DropJob(j);
    racks_.DropJob(j);
  }
  if (!job.alive || job.queued == 0) {
    order_.Erase(j);
    back_.Erase(j);
    return;
  }
  const uint32_t key = JobOrderKey(job_order_, job);
  if (order_.Contains(j)) {
    // A start leaves an srpt job's key as it was: the order stands.
    if (order_key_[j] == key) return;
    order_key_[j] = key;
    order_.Update(j);
    back_.Update(j);
    return;
  }
  // The job just became runnable: its wait starts now.
  if (order_key_.size() <= j) order_key_.resize(j + 1);
  order_key_[j] = key;
  order_.Insert(j);
  back_.Insert(j);
  if (since_.size() <= j) since_.resize(j + 1, 0);
  MarkProgress(j);
}

// Job j starts waiting afresh now. Superseded entries leave progress_ from its front; once
// they outnumber the waiting jobs (a job at the front that waits long holds them all
// back), a sweep keeps one entry per waiting job (amortised O(1) per entry).
void LateBinding::MarkProgress(JobId j) {
  since_[j] = now_;
  progress_.emplace_back(j, now_);
  if (progress_.size() <= 2 * order_.size() + 16) return;
  ++sweep_;
  if (swept_.size() < since_.size()) swept_.resize(since_.size(), 0);
  std::erase_if(progress_, [&](const std::pair<JobId, double>& e) {
    if (!Waiting(e.first, e.second) || swept_[e.first] == sweep_) return true;
    swept_[e.first] = sweep_;
    return false;
  });
}

// True if job j is runnable and has not started a task since `stamp`.
bool LateBinding::Waiting(JobId j, double stamp) const {
  const Job& job = cluster_.job(j);
  return job.alive && job.queued > 0 && since_[j] == stamp && order_.Contains(j);
}

Pick LateBinding::Take(TaskId t, JobId j) {
  Unqueue(t);
  MarkProgress(j);
  return Pick{t, j};
}

// The runnable job that has gone longest without starting a task (kNoId if none).
JobId LateBinding::LongestWaiting() {
  while (!progress_.empty()) {
    const auto [j, stamp] = progress_.front();
    if (Waiting(j, stamp)) return j;
    progress_.pop_front();
  }
  return kNoId;
}

// The share of the other queued tasks (all but job j's oldest, the one that asks) that
// its holders serve before it or that are j's own: those of the jobs before j in the
// order's front and j's other ones, or all of them once j is past the front.
double LateBinding::AheadShare(JobId j) const {
  if (queued_ <= 1) return 0;
  if (!order_.InFront(j)) return 1;
  uint64_t ahead = cluster_.job(j).queued - 1;
  for (const JobId k : order_.front()) {
    if (k == j) break;
    ahead += cluster_.job(k).queued;
  }
  return static_cast<double>(ahead) / static_cast<double>(queued_ - 1);
}

// LongestWaiting without dropping the superseded entries it passes (for Explain).
JobId LateBinding::OldestWaiting() const {
  for (const auto& [j, stamp] : progress_)
    if (Waiting(j, stamp)) return j;
  return kNoId;
}

// The aging bound: the job waiting longest started nothing for more than job_aging.
bool LateBinding::Aged(JobId oldest, double now) const {
  return aging_ > 0 && oldest != kNoId && now - since_[oldest] > aging_;
}

double LateBinding::ExpectedLocalWait(TaskId t) const {
  // Tasks queued at t's holders other than t (each is counted at each of its holders, and
  // any of them may take it: a holder's share is its count over the replication) that they
  // serve first (AheadShare: a job the order puts first waits for little but its own
  // tasks), the holders' free slots, and the rate at which their busy slots free up.
  double others = 0, slots = 0, free = 0;
  const ReplicaList& replicas = cluster_.task(t).replicas;
  for (MachineId h : replicas) {
    const Machine& machine = cluster_.machine(h);
    if (!machine.up || machine.draining) continue;
    others += local_.count(h) - 1;
    slots += machine.slots;
    free += machine.slots > machine.running ? machine.slots - machine.running : 0;
  }
  if (slots == 0) return std::numeric_limits<double>::infinity();
  // The first `free` of those start at once, and each later one waits for one of the
  // holders' slots to end a task: they end at rate alpha * slots together.
  const double share = AheadShare(cluster_.task(t).job);
  const double ahead = share * others / static_cast<double>(replicas.size()) + 1 - free;
  return ahead <= 0 ? 0 : ahead / (alpha_ * slots);
}

// When job j's other tasks are expected to end, from now: the largest of its running
// tasks' times (at their holders and off them), and, with more of its tasks queued, the
// wait of its oldest one plus a local run.
double LateBinding::OthersEnd(JobId j, double wait) const {
  const Job& job = cluster_.job(j);
  const double local = 1 / alpha_, off = remote_wait_ + local;
  double end = std::max(ExpectedLargest(job.running - job.running_off, local, cv_),
                        ExpectedLargest(job.running_off, off, cv_));
  if (job.queued > 1) end = std::max(end, wait + local);
  return end;
}

// Running t off its holders now takes `off_mean` on average; waiting for a holder, the
// expected wait plus 1/alpha. A job ends with its last task, so what counts is how far each
// is expected to run past the job's other tasks (OffHolderCost), plus what the run costs
// the tasks local to machine `on` that arrive meanwhile (DisplacedLocal): running off pays
// when the sum is at most 0. With no other task of its job left and nothing
// displaced, that is: the wait exceeds off_mean - 1/alpha (1/gamma - 1/alpha off-rack). A
// job whose other tasks end late gains nothing from a fast start but risks a slow tail, so
// its tasks wait longer before running off.
bool LateBinding::MayRunOff(TaskId t, double off_mean, MachineId on) const {
  const double wait = ExpectedLocalWait(t);
  if (wait <= 0) return false;        // never past an idle holder
  if (std::isinf(wait)) return true;  // no live holder: nothing to wait for
  // With exponential times a job's other tasks only raise the bar a lone task faces
  // (E[(R - E)^+] >= E[(W + L - E)^+] for every E once W + 1/alpha < off_mean).
  if (cv_ == 1 && wait + 1 / alpha_ < off_mean) return false;
  const double end = OthersEnd(cluster_.task(t).job, wait);
  // A tie (fixed times: both end before the job's other tasks) runs off: it frees a
  // holder's slot for the tasks queued behind.
  return OffHolderCost(off_mean, wait, 1 / alpha_, cv_, end) + DisplacedLocal(on, t, off_mean) <= 0;
}

// What running queued task t on machine m for `off_mean` costs the tasks local to m that
// arrive meanwhile. Tasks listing m as a holder arrive at `per_slot` a slot (counted since
// m joined, with one task time of none as a prior); at the load rho they put on a slot,
// one finds its r - 1 other holders busy too with probability rho^(r - 1) (r: t's
// replication), and then waits for a holder or runs off itself: about off_mean - 1/alpha
// later than on m. A machine that holds no data (a new rack, the cold share of a skewed
// cluster) displaces nothing.
double LateBinding::DisplacedLocal(MachineId m, TaskId t, double off_mean) const {
  if (m >= joined_.size() || alpha_ <= 0) return 0;
  const double elapsed = std::max(0.0, now_ - joined_[m]) + 1 / alpha_;
  const double per_slot = static_cast<double>(local_.listed(m)) / elapsed /
                          static_cast<double>(std::max(1u, cluster_.machine(m).slots));
  const auto r = static_cast<double>(std::max<size_t>(1, cluster_.task(t).replicas.size()));
  const double rho = std::min(1.0, per_slot / (r * alpha_));
  return std::pow(rho, r - 1) * per_slot * off_mean * std::max(0.0, off_mean - 1 / alpha_);
}

// Job j's oldest queued task with a replica in m's rack (kNoId without racks).
TaskId LateBinding::RackLocal(JobId j, MachineId m) {
  return racks_in_use_ ? racks_.Find(j, cluster_.machine(m).rack, index_.stamps()) : kNoId;
}

// True if running t remotely now (1/gamma) ends no later than the first of its holders'
// busy slots could start it (they end at rate alpha * slots together) and run it (1/alpha):
// the wait a job its holders serve first can expect, where ExpectedLocalWait counts every
// task they hold.
bool LateBinding::QuickRemote(TaskId t) const {
  double slots = 0;
  for (MachineId h : cluster_.task(t).replicas) {
    const Machine& machine = cluster_.machine(h);
    if (machine.up && !machine.draining) slots += machine.slots;
  }
  if (slots == 0 || gamma_ <= 0 || alpha_ <= 0) return true;
  return 1 / gamma_ <= 1 / (alpha_ * slots) + 1 / alpha_;
}

Pick LateBinding::PickFor(MachineId m) {
  if (queued_ == 0) return Pick{};
  const JobId oldest = LongestWaiting();
  if (Aged(oldest, now_)) {
    // The aging bound: a job that started nothing for that long goes first.
    TaskId t = index_.FindLocal(oldest, m);
    if (t == kNoId) t = RackLocal(oldest, m);
    if (t == kNoId) t = index_.FindAny(oldest);
    return Take(t, oldest);
  }
  // The first job of the order's front with a task local to m runs its oldest one.
  if (const TaskId t = order_.FirstLocal(m); t != kNoId) return Take(t, cluster_.task(t).job);
  // Else any task local to m, oldest first: a local run is never slower than waiting.
  if (const TaskId t = local_.Front(m); t != kNoId) return Take(t, cluster_.task(t).job);
  // Nothing local: a task may run off its holders (OffHolder).
  JobId from = kNoId;
  TaskId any = kNoId;
  if (const Pick near = OffHolder(m, &from, &any); near.task != kNoId) return near;
  // A task a rebalance plan sends off its holders (RemotePermits) goes first unless the
  // rule's remote run is quick (QuickRemote): on a skewed cluster, running a large job's
  // tasks off its few holders leaves them to the small jobs, whose holders serve them first.
  if (permits_.size() > 0 && (any == kNoId || !QuickRemote(any)))
    if (const TaskId t = permits_.Take(cluster_); t != kNoId) return Take(t, cluster_.task(t).job);
  if (any != kNoId) return Take(any, from);
  return Pick{};
}

Pick LateBinding::PickAnyFor(MachineId m) {
  if (const Pick p = PickFor(m); p.task != kNoId || queued_ == 0) return p;
  const JobId j = LongestWaiting();
  TaskId t = RackLocal(j, m);
  if (t == kNoId) t = index_.FindAny(j);
  return Take(t, j);
}

JobId LateBinding::FirstLocalJob(MachineId m) {
  const TaskId t = queued_ == 0 ? kNoId : order_.FirstLocal(m);
  return t == kNoId ? kNoId : cluster_.task(t).job;
}

// The jobs whose tasks may run off their holders on m: the last of the order, whose
// holders serve it last, then the job waiting longest (the two differ when the order's
// front is made of old jobs, as with single-task jobs). (Offering remote runs to the first
// jobs of the order sent tasks remote that their holders were about to take.) With racks,
// a job's task with a replica in m's rack runs there once that pays at the rack-local
// rate (returned as the pick); else the first off-rack task that pays is left in *any.
Pick LateBinding::OffHolder(MachineId m, JobId* from, TaskId* any) {
  const JobId last = back_.Top(), oldest = LongestWaiting();
  for (const JobId j : {last, oldest == last ? kNoId : oldest}) {
    if (j == kNoId) continue;
    const TaskId near = RackLocal(j, m);
    if (near != kNoId && MayRunOff(near, rack_wait_ + 1 / alpha_, m)) return Take(near, j);
    if (*any != kNoId) continue;
    const TaskId t = index_.FindAny(j);
    if (MayRunOff(t, remote_wait_ + 1 / alpha_, m)) {
      *any = t;
      *from = j;
    }
  }
  return Pick{};
}

uint32_t LateBinding::JobsAhead(JobId j, uint32_t cap) const {
  return order_.JobsAhead(j, cap);
}

WaitInfo LateBinding::Explain(const Cluster&, TaskId t, const WaitFacts& facts) const {
  const JobId j = cluster_.task(t).job;
  if (facts.memo.job != j) facts.memo = {j, JobsAhead(j, kMaxJobsAhead), OldestWaiting()};
  const JobId oldest = facts.memo.oldest;
  WaitInfo info;
  info.remote_wait_s = remote_wait_;
  info.offered_off = j == oldest || j == back_.Top();
  info.jobs_ahead = facts.memo.jobs_ahead;
  const HolderSlots h = HoldersOf(cluster_, t);
  const auto starts_on = [&info](MachineId m, bool remote) {
    info.reason = WaitReason::kNextHeartbeat;
    info.machine = m;
    info.remote = remote;
    return info;
  };
  if (j == oldest && Aged(oldest, facts.now)) {
    // Past the aging bound its job goes first on any free slot.
    if (h.free_holder != kNoId) return starts_on(h.free_holder, false);
    if (facts.free_machine != kNoId) return starts_on(facts.free_machine, true);
  }
  if (h.free_holder != kNoId) {
    // A holder's free slot takes a task local to it, the first job of the order first.
    if (info.jobs_ahead == 0 || h.free_on_free_holder >= local_.count(h.free_holder))
      return starts_on(h.free_holder, false);
    info.reason = WaitReason::kBehindJobs;
    return info;
  }
  info.expected_wait_s = ExpectedLocalWait(t);
  info.reason = h.live == 0 ? WaitReason::kNoLiveHolder : WaitReason::kHoldersBusy;
  if (facts.free_machine == kNoId) return info;
  // The two jobs offered a run off their holders (OffHolder), by the same rule.
  if (info.offered_off && MayRunOff(t, remote_wait_ + 1 / alpha_, facts.free_machine))
    return starts_on(facts.free_machine, true);
  if (h.live > 0) info.reason = WaitReason::kRemoteRule;
  return info;
}

// Every runnable job's place may change: they leave the order and enter it again.
bool LateBinding::SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) {
  if (job_order_ != JobOrder::kLp) return false;
  std::vector<JobId> jobs;
  jobs.reserve(order_.size());
  for (JobId j = 0; j < cluster_.job_capacity(); ++j)
    if (order_.Contains(j)) jobs.push_back(j);
  for (const JobId j : jobs) {
    order_.Erase(j);
    back_.Erase(j);
  }
  ranks_.Set(std::move(ranks), std::move(seqs));
  for (const JobId j : jobs) {
    order_.Insert(j);
    back_.Insert(j);
  }
  return true;
}

}  // namespace locsched
