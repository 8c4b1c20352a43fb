#include "algorithms/core/queue_sharing.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <limits>
#include <unordered_map>
#include <utility>

#include "algorithms/core/job_order.h"

namespace locsched {
namespace {

// Live counts of one queue; a parent's add up its subtree.
struct Counts {
  uint32_t running = 0;      // tasks running
  uint32_t pending_in = 0;   // queued tasks of admitted jobs (in the inner policies)
  uint32_t pending_out = 0;  // queued tasks of held jobs
  uint32_t admitted = 0;     // live admitted jobs
  uint32_t held = 0;         // live held jobs
  uint32_t users = 0;        // distinct users with live jobs (summed over leaves)
};

// What the sharing layer knows of one job.
struct JobState {
  uint32_t leaf = 0;
  uint32_t user = kNoId;
  uint32_t running = 0;  // job.running when last counted
  uint32_t queued = 0;   // job.queued when last counted
  bool live = false;
  bool admitted = false;
};

// One user's jobs in one leaf.
struct UserState {
  uint32_t jobs = 0;  // live jobs, held ones included
  uint32_t load = 0;  // running + queued tasks of its admitted jobs
};

uint64_t UserKey(uint32_t leaf, uint32_t user) {
  return (uint64_t{leaf} << 32) | user;
}

template <typename T>
void Bump(T& v, int64_t d) {
  v = static_cast<T>(static_cast<int64_t>(v) + d);
}

// How a free slot visits the queues: locsched's (owed first after a grace, then one job
// order across the leaves) or the YARN scheduler the policy models (queues only).
enum class SlotOrder { kLocsched, kCapacity, kFair };

SlotOrder SlotOrderOf(PolicyKind kind) {
  if (kind == PolicyKind::kCapacityScheduler) return SlotOrder::kCapacity;
  if (kind == PolicyKind::kFairScheduler) return SlotOrder::kFair;
  return SlotOrder::kLocsched;
}

}  // namespace

struct QueueSharing::Impl {
  Impl(const PolicyParams& p, Cluster& c)
      : params(p), cluster(c), less(MakeJobLess(p.job_order, c)), order(SlotOrderOf(p.kind)) {}

  // Sizes the per-queue figures for a tree of n queues, empty.
  void Reset(size_t n) {
    counts.assign(n, Counts{});
    heads.assign(n, JobHeap(less));
    below_since.assign(n, QueueSharing::kNotBelow);
  }

  PolicyParams params;
  Cluster& cluster;
  JobHeap::Less less;                          // the cluster's job order (params.job_order)
  SlotOrder order;                             // how a free slot visits the queues
  std::vector<std::unique_ptr<Policy>> inner;  // by queue index; leaves only
  std::vector<std::deque<JobId>> held;         // by queue index: held jobs, arrival order
  std::vector<Counts> counts;                  // by queue index
  std::vector<JobHeap> heads;       // by leaf: its admitted jobs with queued tasks, by `less`
  std::vector<double> below_since;  // by queue: since when Below, else kNotBelow
  std::vector<JobState> jobs;       // by job id
  std::unordered_map<uint64_t, UserState> users;
  uint64_t usable = 0;         // usable slots (machines up and not draining)
  std::vector<uint32_t> kept;  // by machine: free slots kept for the owed queues (KeepSlot)
  double now = 0;
  bool now_set = false;
};

namespace {

// An inner policy for a leaf of `tree`: params with the leaf's job order, over every
// machine, at the sharing layer's clock and rates.
std::unique_ptr<Policy> MakeLeafPolicy(const PolicyParams& params, Cluster& cluster,
                                       const QueueNode& leaf) {
  PolicyParams p = params;
  if (leaf.spec.order) p.job_order = *leaf.spec.order;
  if (p.job_order == JobOrder::kFifo && p.kind == PolicyKind::kJsqMaxWeight)
    p.intra = IntraQueue::kFifo;
  auto policy = MakePolicy(p, cluster);
  for (MachineId m = 0; m < cluster.num_machines(); ++m) {
    policy->AddMachine(m);
    const Machine& machine = cluster.machine(m);
    if (!machine.up || machine.draining) policy->OnMachineUnavailable(m);
  }
  policy->SetRates(params.alpha, params.gamma);
  policy->SetRackRate(params.beta);
  return policy;
}

}  // namespace

QueueSharing::QueueSharing(const PolicyParams& params, Cluster& cluster, QueueTree tree)
    : impl_(std::make_unique<Impl>(params, cluster)), tree_(std::move(tree)) {
  impl_->inner.resize(tree_.size());
  impl_->held.resize(tree_.size());
  impl_->Reset(tree_.size());
  for (uint32_t q : tree_.leaves())
    impl_->inner[q] = MakeLeafPolicy(params, cluster, tree_.node(q));
  OnSlotsChanged();
}

QueueSharing::~QueueSharing() = default;

void QueueSharing::OnSlotsChanged() {
  uint64_t usable = 0;
  for (MachineId m = 0; m < impl_->cluster.num_machines(); ++m) {
    const Machine& machine = impl_->cluster.machine(m);
    if (machine.up && !machine.draining) usable += machine.slots;
  }
  impl_->usable = usable;
  for (uint32_t q = 0; q < tree_.size(); ++q) MarkBelow(q);
  for (uint32_t q : tree_.leaves()) TryAdmit(q);
}

uint32_t QueueSharing::MaxSlots(uint32_t q) const {
  const double maximum = tree_.node(q).maximum;
  if (maximum <= 0) return 0;
  const double slots = std::floor(maximum * static_cast<double>(impl_->usable) + 1e-9);
  return static_cast<uint32_t>(std::max(1.0, std::min(slots, 4e9)));
}

bool QueueSharing::Held(JobId j) const {
  return j < impl_->jobs.size() && impl_->jobs[j].live && !impl_->jobs[j].admitted;
}

QueueUsage QueueSharing::Usage(uint32_t q) const {
  const Counts& c = impl_->counts[q];
  QueueUsage u;
  u.running_tasks = c.running;
  u.pending_tasks = c.pending_in + c.pending_out;
  u.held_tasks = c.pending_out;
  u.running_jobs = c.admitted;
  u.held_jobs = c.held;
  u.users = c.users;
  u.slots = static_cast<uint32_t>(std::min<uint64_t>(impl_->usable, UINT32_MAX));
  return u;
}

// Adds deltas to leaf q and every ancestor.
void QueueSharing::AddCounts(uint32_t q, int64_t running, int64_t in, int64_t out) {
  for (uint32_t at = q; at != UINT32_MAX; at = tree_.node(at).parent) {
    Counts& c = impl_->counts[at];
    Bump(c.running, running);
    Bump(c.pending_in, in);
    Bump(c.pending_out, out);
    MarkBelow(at);
  }
}

// Adds deltas to the job figures of leaf q and every ancestor.
void QueueSharing::AddJobs(uint32_t q, int64_t admitted, int64_t held, int64_t users) {
  for (uint32_t at = q; at != UINT32_MAX; at = tree_.node(at).parent) {
    Counts& c = impl_->counts[at];
    Bump(c.admitted, admitted);
    Bump(c.held, held);
    Bump(c.users, users);
  }
}

// True if `user` may have another job admitted in leaf q: jobs without a user are not
// limited; a user whose admitted jobs already run or queue the limit's tasks waits.
bool QueueSharing::UserBelowLimit(uint32_t q, uint32_t user) const {
  const double limit = tree_.node(q).spec.user_limit;
  if (user == kNoId || limit >= 100) return true;
  auto it = impl_->users.find(UserKey(q, user));
  const uint32_t load = it == impl_->users.end() ? 0 : it->second.load;
  const double slots = std::floor(limit / 100 * MaxSlots(q) + 1e-9);
  return load < std::max(1.0, slots);
}

bool QueueSharing::UnderJobLimit(uint32_t q) const {
  const uint32_t limit = tree_.node(q).spec.max_running_jobs;
  return limit == 0 || impl_->counts[q].admitted < limit;
}

// Starts tracking job j (its first task became runnable) and admits it if it may run.
void QueueSharing::Track(JobId j) {
  if (impl_->jobs.size() <= j) impl_->jobs.resize(j + 1);
  const Job& job = impl_->cluster.job(j);
  JobState& s = impl_->jobs[j];
  s = JobState{};
  s.leaf = job.queue < tree_.size() && tree_.node(job.queue).leaf() && job.queue != 0
               ? job.queue
               : tree_.default_leaf();
  impl_->cluster.job(j).queue = s.leaf;
  s.user = job.user;
  s.live = true;
  int64_t new_user = 0;
  if (s.user != kNoId) new_user = impl_->users[UserKey(s.leaf, s.user)].jobs++ == 0 ? 1 : 0;
  // Held jobs wait only while a limit holds them, so a job the limits admit passes none
  // that could run: arrival order is kept.
  if (UnderJobLimit(s.leaf) && UserBelowLimit(s.leaf, s.user)) {
    s.admitted = true;
    AddJobs(s.leaf, 1, 0, new_user);
  } else {
    impl_->held[s.leaf].push_back(j);
    AddJobs(s.leaf, 0, 1, new_user);
  }
}

// Admits held job j: its queued tasks enter its leaf's inner policy.
void QueueSharing::Admit(JobId j) {
  JobState& s = impl_->jobs[j];
  s.admitted = true;
  AddJobs(s.leaf, 1, -1, 0);
  AddCounts(s.leaf, 0, s.queued, -static_cast<int64_t>(s.queued));
  if (s.user != kNoId) impl_->users[UserKey(s.leaf, s.user)].load += s.running + s.queued;
  Policy& inner = *impl_->inner[s.leaf];
  for (TaskId t : impl_->cluster.job(j).tasks)
    if (impl_->cluster.task(t).state == TaskState::kQueued) inner.Enqueue(t);
  inner.OnJobChanged(j);
  SyncHead(j);
}

// Admits leaf q's held jobs, in arrival order, while its limits allow.
void QueueSharing::TryAdmit(uint32_t q) {
  std::deque<JobId>& held = impl_->held[q];
  for (size_t i = 0; i < held.size() && UnderJobLimit(q);) {
    const JobId j = held[i];
    if (!UserBelowLimit(q, impl_->jobs[j].user)) {
      ++i;
      continue;
    }
    held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    Admit(j);
  }
}

// Job j finished or was removed: it leaves the counts and frees its admission.
void QueueSharing::Retire(JobId j) {
  JobState& s = impl_->jobs[j];
  s.live = false;
  int64_t gone_user = 0;
  if (s.user != kNoId) {
    auto it = impl_->users.find(UserKey(s.leaf, s.user));
    if (--it->second.jobs == 0) {
      impl_->users.erase(it);
      gone_user = -1;
    }
  }
  if (s.admitted) {
    AddJobs(s.leaf, -1, 0, gone_user);
  } else {
    std::deque<JobId>& held = impl_->held[s.leaf];
    held.erase(std::find(held.begin(), held.end(), j));
    AddJobs(s.leaf, 0, -1, gone_user);
  }
}

bool QueueSharing::In(TaskId t) const {
  const JobId j = impl_->cluster.task(t).job;
  return j < impl_->jobs.size() && impl_->jobs[j].live && impl_->jobs[j].admitted;
}

void QueueSharing::Enqueue(TaskId t) {
  const JobId j = impl_->cluster.task(t).job;
  if (j >= impl_->jobs.size() || !impl_->jobs[j].live) Track(j);
  if (impl_->jobs[j].admitted) impl_->inner[impl_->jobs[j].leaf]->Enqueue(t);
}

void QueueSharing::EnqueueTo(TaskId t, uint32_t queue) {
  const JobId j = impl_->cluster.task(t).job;
  if (j >= impl_->jobs.size() || !impl_->jobs[j].live) Track(j);
  if (impl_->jobs[j].admitted) impl_->inner[impl_->jobs[j].leaf]->EnqueueTo(t, queue);
}

void QueueSharing::Withdraw(TaskId t) {
  if (In(t)) impl_->inner[impl_->jobs[impl_->cluster.task(t).job].leaf]->Withdraw(t);
}

// A replayed start: the job's leaf policy notes it as its own pick (a held job's task
// is in no inner policy; its admission skips tasks no longer queued).
void QueueSharing::Assigned(TaskId t, MachineId m) {
  if (In(t)) impl_->inner[impl_->jobs[impl_->cluster.task(t).job].leaf]->Assigned(t, m);
}

void QueueSharing::OnJobChanged(JobId j) {
  if (j >= impl_->jobs.size() || !impl_->jobs[j].live) return;
  JobState& s = impl_->jobs[j];
  const Job& job = impl_->cluster.job(j);
  const uint32_t running = job.alive ? job.running : 0;
  const uint32_t queued = job.alive ? job.queued : 0;
  const int64_t dr = int64_t{running} - s.running;
  const int64_t dq = int64_t{queued} - s.queued;
  s.running = running;
  s.queued = queued;
  AddCounts(s.leaf, dr, s.admitted ? dq : 0, s.admitted ? 0 : dq);
  if (s.admitted && s.user != kNoId) Bump(impl_->users[UserKey(s.leaf, s.user)].load, dr + dq);
  if (s.admitted) impl_->inner[s.leaf]->OnJobChanged(j);
  const uint32_t leaf = s.leaf;
  if (!job.alive) Retire(j);
  SyncHead(j);
  if ((!job.alive || dr + dq < 0) && !impl_->held[leaf].empty()) TryAdmit(leaf);
}

// Job j is in its leaf's heads exactly while it is live, admitted and has queued tasks, at
// its place by its key now.
void QueueSharing::SyncHead(JobId j) {
  const JobState& s = impl_->jobs[j];
  JobHeap& heads = impl_->heads[s.leaf];
  if (!s.live || !s.admitted || s.queued == 0)
    heads.Erase(j);
  else if (heads.Contains(j))
    heads.Update(j);
  else
    heads.Insert(j);
}

// True while queue q runs fewer tasks than its guaranteed slots and has admitted tasks
// queued: it has demand its guarantee entitles it to and does not hold.
bool QueueSharing::Below(uint32_t q) const {
  const Counts& c = impl_->counts[q];
  return c.pending_in > 0 &&
         c.running < tree_.node(q).guaranteed * static_cast<double>(impl_->usable);
}

double QueueSharing::BelowSince(uint32_t q) const {
  return impl_->below_since[q];
}

// Notes when queue q went below its guarantee (Owed reads how long ago).
void QueueSharing::MarkBelow(uint32_t q) {
  double& since = impl_->below_since[q];
  if (!Below(q))
    since = kNotBelow;
  else if (since == kNotBelow)
    since = impl_->now;
}

// True once queue q has been below its guarantee for one mean local task time (1/alpha):
// from then on it has first claim on the slots that free (the guarantee grace).
bool QueueSharing::Owed(uint32_t q) const {
  const double since = impl_->below_since[q];
  const double grace = impl_->params.alpha > 0 ? 1 / impl_->params.alpha : 0;
  return since != kNotBelow && impl_->now - since >= grace;
}

// True if a free slot may go to queue q: it has admitted work queued and runs fewer tasks
// than its maximum.
bool QueueSharing::Eligible(uint32_t q) const {
  return impl_->counts[q].pending_in > 0 && impl_->counts[q].running < MaxSlots(q);
}

// True if job a goes before job b in the cluster's order; kNoId (no job) goes last.
bool QueueSharing::Before(JobId a, JobId b) const {
  return a != kNoId && (b == kNoId || impl_->less(a, b));
}

// The first job of the cluster's order among q's leaves' queued ones (kNoId if none).
JobId QueueSharing::Head(uint32_t q) const {
  if (tree_.node(q).leaf()) return impl_->heads[q].Top();
  JobId best = kNoId;
  for (uint32_t c : tree_.node(q).children) {
    if (!Eligible(c)) continue;
    if (const JobId j = Head(c); Before(j, best)) best = j;
  }
  return best;
}

// The order a free slot visits q's children in, among those Eligible: first the owed ones
// (Owed), lowest running / guaranteed first (CapacityScheduler's order; ties: fewer
// running, then tree order); then the others by their first job in the cluster's order
// (Head; ties: tree order).
std::vector<uint32_t> QueueSharing::Turns(uint32_t q) const {
  if (impl_->order != SlotOrder::kLocsched) return ModelTurns(q);
  std::vector<uint32_t> order;
  std::vector<JobId> head(tree_.size(), kNoId);
  for (uint32_t c : tree_.node(q).children) {
    if (!Eligible(c)) continue;
    order.push_back(c);
    if (!Owed(c)) head[c] = Head(c);
  }
  const double usable = static_cast<double>(impl_->usable);
  auto ratio = [&](uint32_t c) {
    return impl_->counts[c].running / (tree_.node(c).guaranteed * usable);
  };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const bool oa = Owed(a), ob = Owed(b);
    if (oa != ob) return oa;
    if (oa) {
      const double ra = ratio(a), rb = ratio(b);
      if (ra != rb) return ra < rb;
      return impl_->counts[a].running < impl_->counts[b].running;
    }
    return Before(head[a], head[b]);
  });
  return order;
}

// capacity-scheduler's and fair-scheduler's order of q's Eligible children: always by the
// model's key (no grace, no job order across queues), ties by fewer running, then tree order.
//  * capacity: used / guaranteed slots (CapacityScheduler's PriorityUtilizationQueueOrdering;
//    no guarantee sorts last).
//  * fair: FairScheduler's FairSharePolicy with min share = guarantee and weight = guarantee:
//    the queues below min(min share, demand) first, by running / min share; then the others
//    by running / FairShare (the same order as running / weight among siblings).
std::vector<uint32_t> QueueSharing::ModelTurns(uint32_t q) const {
  std::vector<uint32_t> order;
  for (uint32_t c : tree_.node(q).children)
    if (Eligible(c)) order.push_back(c);
  const double usable = static_cast<double>(impl_->usable);
  auto over = [](double used, double base) {
    return base > 0 ? used / base : std::numeric_limits<double>::infinity();
  };
  auto key = [&](uint32_t c) -> std::pair<bool, double> {
    const Counts& n = impl_->counts[c];
    const double min_share = tree_.node(c).guaranteed * usable;
    if (impl_->order == SlotOrder::kCapacity) return {false, over(n.running, min_share)};
    const bool needy =
        n.running < std::min(min_share, static_cast<double>(n.running) + n.pending_in);
    return {!needy,
            needy ? over(n.running, std::max(min_share, 1.0)) : over(n.running, FairShare(c))};
  };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const auto ka = key(a), kb = key(b);
    if (ka != kb) return ka < kb;
    return impl_->counts[a].running < impl_->counts[b].running;
  });
  return order;
}

// True if queue q has demand: tasks running, or queued in its leaves' inner policies.
bool QueueSharing::Active(uint32_t q) const {
  return impl_->counts[q].running + impl_->counts[q].pending_in > 0;
}

double QueueSharing::FairShare(uint32_t q) const {
  if (q == 0) return static_cast<double>(impl_->usable);
  if (!Active(q)) return 0;
  const uint32_t parent = tree_.node(q).parent;
  double weights = 0;
  for (uint32_t c : tree_.node(parent).children)
    if (Active(c)) weights += tree_.node(c).guaranteed;
  return weights > 0 ? FairShare(parent) * tree_.node(q).guaranteed / weights : 0;
}

// The leaf under q whose inner policy would run the first job, in the cluster's order, of
// those with a task local to m (Policy::FirstLocalJob), into *best and *leaf if it goes
// before *best. A parent's owed children (Owed) are asked first; the others only when
// none of them has a task local to m.
void QueueSharing::FirstLocal(uint32_t q, MachineId m, JobId* best, uint32_t* leaf) {
  if (tree_.node(q).leaf()) {
    if (const JobId j = impl_->inner[q]->FirstLocalJob(m); Before(j, *best)) {
      *best = j;
      *leaf = q;
    }
    return;
  }
  for (const bool owed : {true, false}) {
    for (uint32_t c : tree_.node(q).children)
      if (Eligible(c) && Owed(c) == owed) FirstLocal(c, m, best, leaf);
    if (*leaf != kNoId) return;
  }
}

Pick QueueSharing::Descend(uint32_t q, MachineId m) {
  return tree_.node(q).leaf() ? impl_->inner[q]->PickFor(m) : Serve(q, m);
}

// A free slot of m among parent q's children (Turns): each owed child, in its turn, may
// take it; then the job first in the cluster's order among the others' tasks local to m
// runs (so queues above their guarantee share slots by one job order, as without
// queues); then each other child in turn, by its inner policy's rule off the holders.
Pick QueueSharing::Serve(uint32_t q, MachineId m) {
  const std::vector<uint32_t> turns = Turns(q);
  if (impl_->order != SlotOrder::kLocsched) {  // the YARN models: each queue in its turn
    for (uint32_t c : turns)
      if (const Pick p = Descend(c, m); p.task != kNoId) return p;
    return Pick{};
  }
  auto rest = turns.begin();
  for (; rest != turns.end() && Owed(*rest); ++rest)
    if (const Pick p = Descend(*rest, m); p.task != kNoId) return p;
  JobId best = kNoId;
  uint32_t leaf = kNoId;
  for (auto c = rest; c != turns.end(); ++c) FirstLocal(*c, m, &best, &leaf);
  if (leaf != kNoId)
    if (const Pick p = impl_->inner[leaf]->PickFor(m); p.task != kNoId) return p;
  for (; rest != turns.end(); ++rest)
    if (const Pick p = Descend(*rest, m); p.task != kNoId) return p;
  return Pick{};
}

Pick QueueSharing::PickFor(MachineId m) {
  if (m < impl_->kept.size() && impl_->kept[m] > 0) {
    --impl_->kept[m];
    if (const Pick p = ServeOwed(0, m); p.task != kNoId) return p;
  }
  return Serve(0, m);
}

void QueueSharing::KeepSlot(MachineId m) {
  if (impl_->kept.size() <= m) impl_->kept.resize(m + 1, 0);
  ++impl_->kept[m];
}

uint32_t QueueSharing::Kept(MachineId m) const {
  return m < impl_->kept.size() ? impl_->kept[m] : 0;
}

// A kept slot of m among parent q's owed children, in their turn (Turns: first in
// locsched's order, by the model's key in the YARN models'); a leaf runs a task even off
// its holders (Policy::PickAnyFor).
Pick QueueSharing::ServeOwed(uint32_t q, MachineId m) {
  for (uint32_t c : Turns(q)) {
    if (!Owed(c)) continue;
    const Pick p = tree_.node(c).leaf() ? impl_->inner[c]->PickAnyFor(m) : ServeOwed(c, m);
    if (p.task != kNoId) return p;
  }
  return Pick{};
}

void QueueSharing::AddMachine(MachineId m) {
  for (uint32_t q : tree_.leaves()) impl_->inner[q]->AddMachine(m);
  const Machine& machine = impl_->cluster.machine(m);  // O(1): clusters add machines by the
  if (machine.up && !machine.draining) impl_->usable += machine.slots;  // thousand
  for (uint32_t q = 0; q < tree_.size(); ++q) MarkBelow(q);
  for (uint32_t q : tree_.leaves())
    if (!impl_->held[q].empty()) TryAdmit(q);
}

void QueueSharing::OnMachineUnavailable(MachineId m) {
  for (uint32_t q : tree_.leaves()) impl_->inner[q]->OnMachineUnavailable(m);
  OnSlotsChanged();
}

void QueueSharing::OnMachineAvailable(MachineId m) {
  for (uint32_t q : tree_.leaves()) impl_->inner[q]->OnMachineAvailable(m);
  OnSlotsChanged();
}

void QueueSharing::SetRates(double alpha, double gamma) {
  impl_->params.alpha = alpha;
  impl_->params.gamma = gamma;
  for (uint32_t q : tree_.leaves()) impl_->inner[q]->SetRates(alpha, gamma);
}

void QueueSharing::SetRackRate(double beta) {
  impl_->params.beta = beta;
  for (uint32_t q : tree_.leaves()) impl_->inner[q]->SetRackRate(beta);
}

void QueueSharing::SetNow(double now_s) {
  impl_->now = now_s;
  impl_->now_set = true;
  for (uint32_t q : tree_.leaves()) impl_->inner[q]->SetNow(now_s);
}

bool QueueSharing::SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) {
  bool any = false;
  for (uint32_t q : tree_.leaves()) any |= impl_->inner[q]->SetPriorityOrder(ranks, seqs);
  return any;
}

// Each leaf's state in tree order, each prefixed by its length.
std::vector<uint64_t> QueueSharing::RandomState() const {
  std::vector<uint64_t> out;
  for (uint32_t q : tree_.leaves()) {
    const std::vector<uint64_t> s = impl_->inner[q]->RandomState();
    out.push_back(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

void QueueSharing::SetRandomState(std::span<const uint64_t> state) {
  size_t at = 0;
  for (uint32_t q : tree_.leaves()) {
    if (at >= state.size()) return;
    const size_t n = std::min<size_t>(state[at], state.size() - at - 1);
    impl_->inner[q]->SetRandomState(state.subspan(at + 1, n));
    at += n + 1;
  }
}

QueueStats QueueSharing::Stats() const {
  QueueStats out;
  for (uint32_t q : tree_.leaves()) {
    const QueueStats s = impl_->inner[q]->Stats();
    out.queued += s.queued;
    out.remote_queue += s.remote_queue;
    out.longest_local = std::max(out.longest_local, s.longest_local);
  }
  out.queued += impl_->counts[0].pending_out;  // held jobs' tasks wait too
  return out;
}

uint64_t QueueSharing::LocalQueueLength(MachineId m) const {
  uint64_t n = 0;
  for (uint32_t q : tree_.leaves()) n += impl_->inner[q]->LocalQueueLength(m);
  return n;
}

uint32_t QueueSharing::JobsAhead(JobId j, uint32_t cap) const {
  if (j >= impl_->jobs.size() || !impl_->jobs[j].live) return 0;
  const JobState& s = impl_->jobs[j];
  if (s.admitted) return impl_->inner[s.leaf]->JobsAhead(j, cap);
  const std::deque<JobId>& held = impl_->held[s.leaf];
  const auto pos = static_cast<uint64_t>(std::find(held.begin(), held.end(), j) - held.begin());
  return static_cast<uint32_t>(std::min<uint64_t>(cap, impl_->counts[s.leaf].admitted + pos));
}

// The highest queue on leaf's path at its maximum, or kNoId.
uint32_t QueueSharing::AtMaximum(uint32_t leaf) const {
  uint32_t found = kNoId;
  for (uint32_t at = leaf; at != 0 && at != UINT32_MAX; at = tree_.node(at).parent)
    if (impl_->counts[at].running >= MaxSlots(at)) found = at;
  return found;
}

// True if, on leaf's path, a sibling with work comes before it in a free slot's order.
bool QueueSharing::OthersFirst(uint32_t leaf) const {
  for (uint32_t at = leaf; at != 0; at = tree_.node(at).parent) {
    const std::vector<uint32_t> turns = Turns(tree_.node(at).parent);
    if (!turns.empty() && turns.front() != at) return true;
  }
  return false;
}

WaitInfo QueueSharing::Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const {
  const JobId j = cluster.task(t).job;
  WaitInfo info;
  if (j >= impl_->jobs.size() || !impl_->jobs[j].live) return Policy::Explain(cluster, t, facts);
  const JobState& s = impl_->jobs[j];
  info.queue = s.leaf;
  if (!s.admitted) {
    info.reason =
        UnderJobLimit(s.leaf) ? WaitReason::kHeldByUserLimit : WaitReason::kHeldByJobLimit;
    info.jobs_ahead = JobsAhead(j, kMaxJobsAhead);
    return info;
  }
  if (const uint32_t q = AtMaximum(s.leaf); q != kNoId) {
    info.reason = WaitReason::kQueueAtMaximum;
    info.queue = q;
    return info;
  }
  WaitInfo inner = impl_->inner[s.leaf]->Explain(cluster, t, facts);
  inner.queue = s.leaf;
  if (inner.reason == WaitReason::kNextHeartbeat && OthersFirst(s.leaf))
    inner.reason = WaitReason::kQueueTurn;
  return inner;
}

// Jobs (admitted and held) live in queue q.
uint32_t QueueSharing::LiveJobs(uint32_t q) const {
  return impl_->counts[q].admitted + impl_->counts[q].held;
}

// Adds the leaves of the old tree that still hold jobs but are gone from `tree` to it, as
// stopped children of root without a guarantee.
Status QueueSharing::KeepOrphans(QueueTree* tree, std::vector<std::string>* kept) const {
  QueueTreeSpec spec = tree->spec();
  const bool weights = !spec.queues.empty() &&
                       std::all_of(spec.queues.begin(), spec.queues.end(), [](const QueueSpec& q) {
                         return q.parent != "root" || q.by_weight;
                       });
  for (uint32_t q : tree_.leaves()) {
    if (LiveJobs(q) == 0 || tree->Find(tree_.node(q).spec.name)) continue;
    QueueSpec orphan;
    orphan.name = tree_.node(q).spec.name;
    orphan.by_weight = weights;
    orphan.state = QueueState::kStopped;
    spec.queues.push_back(orphan);
    if (kept != nullptr) kept->push_back(orphan.name);
  }
  return QueueTree::Build(spec, tree);
}

Status QueueSharing::Reconfigure(QueueTree tree, bool keep_orphans,
                                 std::vector<std::string>* kept) {
  for (uint32_t q : tree_.leaves()) {
    const uint32_t n = LiveJobs(q);
    if (n == 0) continue;
    const std::string& name = tree_.node(q).spec.name;
    const std::optional<uint32_t> now = tree.Find(name);
    if (now && !tree.node(*now).leaf())
      return Status::FailedPrecondition(
          "queue." + name, "has child queues now while it holds " + std::to_string(n) + " jobs");
    if (!now && !keep_orphans)
      return Status::FailedPrecondition("queue." + name,
                                        "removed while it holds " + std::to_string(n) + " jobs");
  }
  if (keep_orphans)
    if (Status s = KeepOrphans(&tree, kept); !s.ok()) return s;
  std::vector<uint32_t> to(tree_.size(), kNoId);  // old leaf -> new leaf
  for (uint32_t q : tree_.leaves())
    if (std::optional<uint32_t> n = tree.Find(tree_.node(q).spec.name); n && tree.node(*n).leaf())
      to[q] = *n;
  MoveLeaves(tree, to);
  return Status::Ok();
}

// Installs `tree`: each old leaf's jobs and inner policy move to leaf to[old]; a leaf whose
// job order changed gets a new inner policy holding the same queued tasks.
void QueueSharing::MoveLeaves(QueueTree& tree, const std::vector<uint32_t>& to) {
  Impl& im = *impl_;
  std::vector<std::unique_ptr<Policy>> inner(tree.size());
  std::vector<std::deque<JobId>> held(tree.size());
  std::vector<std::vector<JobId>> migrate(tree.size());
  for (uint32_t q : tree_.leaves()) {
    if (to[q] == kNoId) continue;
    const bool same_order = tree_.node(q).spec.order == tree.node(to[q]).spec.order;
    if (same_order) inner[to[q]] = std::move(im.inner[q]);
    held[to[q]] = std::move(im.held[q]);
  }
  for (uint32_t q : tree.leaves()) {
    if (inner[q]) continue;
    inner[q] = MakeLeafPolicy(im.params, im.cluster, tree.node(q));
    if (im.now_set) inner[q]->SetNow(im.now);
  }
  im.users.clear();
  im.Reset(tree.size());
  for (JobId j = 0; j < im.jobs.size(); ++j) {
    JobState& s = im.jobs[j];
    if (!s.live) continue;
    const uint32_t old = s.leaf;
    s.leaf = to[old];
    im.cluster.job(j).queue = s.leaf;
    if (s.admitted && im.inner[old]) {  // the order changed: its tasks change policy
      for (TaskId t : im.cluster.job(j).tasks)
        if (im.cluster.task(t).state == TaskState::kQueued) {
          im.inner[old]->Withdraw(t);
          inner[s.leaf]->Enqueue(t);
        }
      inner[s.leaf]->OnJobChanged(j);
    }
  }
  im.inner = std::move(inner);
  im.held = std::move(held);
  tree_ = std::move(tree);
  Recount();
  OnSlotsChanged();
}

// Rebuilds every queue's counts, the leaves' heads and the users' loads from the jobs.
void QueueSharing::Recount() {
  Impl& im = *impl_;
  for (JobId j = 0; j < im.jobs.size(); ++j) {
    const JobState& s = im.jobs[j];
    if (!s.live) continue;
    AddCounts(s.leaf, s.running, s.admitted ? s.queued : 0, s.admitted ? 0 : s.queued);
    int64_t new_user = 0;
    if (s.user != kNoId) {
      UserState& u = im.users[UserKey(s.leaf, s.user)];
      new_user = u.jobs++ == 0 ? 1 : 0;
      if (s.admitted) u.load += s.running + s.queued;
    }
    AddJobs(s.leaf, s.admitted ? 1 : 0, s.admitted ? 0 : 1, new_user);
    SyncHead(j);
  }
}

}  // namespace locsched
