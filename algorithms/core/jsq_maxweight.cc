#include "algorithms/core/jsq_maxweight.h"

#include <algorithm>

namespace locsched {

JsqMaxWeight::JsqMaxWeight(const PolicyParams& params, Cluster& cluster)
    : cluster_(cluster),
      queues_(cluster, params.intra),
      rng_(params.seed),
      alpha_(params.alpha),
      gamma_(params.gamma),
      remote_bias_(params.remote_bias),
      priority_slack_(params.priority_slack),
      routes_by_rank_(params.priority_slack > 0 && params.intra == IntraQueue::kPriority) {}

void JsqMaxWeight::AddMachine(MachineId m) {
  while (queues_.num_local() <= m) {
    queues_.AddMachine();
    routable_.push_back(1);
  }
}

uint32_t JsqMaxWeight::Route(TaskId t) {
  if (remote_bias_ == 0 && !routes_by_rank_) return RouteUniform(t);  // the paper's rule
  const uint32_t q = remote_bias_ == 0 ? RouteUniform(t) : RouteBiased(t);
  if (q != LocalityQueues::kRemote || !routes_by_rank_) return q;
  return RouteAhead(t);
}

uint32_t JsqMaxWeight::FreeSlots(MachineId m) const {
  const Machine& machine = cluster_.machine(m);
  return machine.running < machine.slots ? machine.slots - machine.running : 0;
}

namespace {

// For a set of at most four tied candidates (bit i: candidate i), how many there
// are and which is the pick-th: RouteUniformFew's replacement for a second pass.
struct TieTable {
  uint8_t count[16] = {};
  uint8_t nth[16][4] = {};
  constexpr TieTable() {
    for (uint32_t mask = 0; mask < 16; ++mask)
      for (uint32_t i = 0; i < 4; ++i)
        if (mask >> i & 1) nth[mask][count[mask]++] = static_cast<uint8_t>(i);
  }
};
constexpr TieTable kTies;

// The smaller of x and y, with masks: on std::min GCC branched on which queue is
// shorter, a coin flip (about one misprediction every two tasks under cachegrind).
uint32_t MinNoBranch(uint32_t x, uint32_t y) {
  const uint32_t x_less = 0u - static_cast<uint32_t>(x < y);  // all ones when x < y
  return (x & x_less) | (y & ~x_less);
}

// The local queue with the smallest cost, then the most free slots; exact ties are broken
// uniformly (reservoir sampling). `best` stays kRemote while nothing was offered.
struct LocalPick {
  uint32_t best = LocalityQueues::kRemote, cost = UINT32_MAX, free = 0, ties = 0;
  void Offer(uint32_t m, uint32_t c, uint32_t f, Rng& rng) {
    if (c < cost || (c == cost && f > free)) {
      best = m, cost = c, free = f, ties = 1;
    } else if (c == cost && f == free && rng.Below(++ties) == 0) {
      best = m;
    }
  }
};

}  // namespace

// The paper's rule: the shortest of R and the usable replicas' queues, ties split
// uniformly by one draw among the candidates of the shortest length, in the order R,
// replicas. Which queue is shortest is a coin flip that a predictor misses about
// twice a task, so the passes are written with selects, not early exits (GCC still
// turns the first pass's compare into a branch): the first finds the shortest length
// and counts the candidates at it, the draw picks one, and the second finds it. Up to
// three replicas (the common case) take RouteUniformFew, which makes the same
// decisions with no branch on the lengths (half the mispredictions under cachegrind).
uint32_t JsqMaxWeight::RouteUniform(TaskId t) {
  const ReplicaList& replicas = cluster_.task(t).replicas;
  if (replicas.size() <= kFewReplicas) return RouteUniformFew(replicas);
  const uint32_t remote = queues_.Length(LocalityQueues::kRemote);
  uint32_t low = remote, ties = 1;
  for (MachineId m : replicas) {
    const uint32_t len = RouteLength(m);
    ties = len < low ? 0 : ties;  // a shorter queue restarts the count
    low = std::min(low, len);
    ties += len == low;
  }
  const uint32_t pick = rng_.Below(ties);  // the pick-th candidate of length `low`
  uint32_t best = LocalityQueues::kRemote;
  uint32_t seen = remote == low;
  for (MachineId m : replicas) {
    const bool tie = RouteLength(m) == low;
    best = (tie & (seen == pick)) ? m : best;
    seen += tie;
  }
  return best;
}

// RouteUniform for at most three replicas: candidate 0 is R, candidate i + 1 is
// replica i, and a missing replica has no length to tie at. A bit mask marks the
// shortest of the four lengths, and the draw indexes a table of the mask's set bits.
// Four named lengths, not an array: GCC packed the array into shifted halves of two
// registers (109 instructions a task under callgrind).
uint32_t JsqMaxWeight::RouteUniformFew(const ReplicaList& replicas) {
  static_assert(kFewReplicas == 3, "the tie table has room for R and three replicas");
  const auto n = static_cast<uint32_t>(replicas.size());
  const MachineId* ids = replicas.begin();
  const uint32_t r = queues_.Length(LocalityQueues::kRemote);
  const uint32_t a = n > 0 ? RouteLength(ids[0]) : UINT32_MAX;
  const uint32_t b = n > 1 ? RouteLength(ids[1]) : UINT32_MAX;
  const uint32_t c = n > 2 ? RouteLength(ids[2]) : UINT32_MAX;
  const uint32_t low = MinNoBranch(MinNoBranch(r, a), MinNoBranch(b, c));
  const uint32_t mask = uint32_t{r == low} | uint32_t{a == low} << 1 | uint32_t{b == low} << 2 |
                        uint32_t{c == low} << 3;
  const uint32_t pick = rng_.Below(kTies.count[mask]);  // R is always a candidate: count >= 1
  const uint32_t winner = kTies.nth[mask][pick];
  return winner == 0 ? LocalityQueues::kRemote : ids[winner - 1];
}

// A remote run takes alpha/gamma times longer, so R is taken only when it is shorter by more
// than remote_bias; an equally short local queue on a machine with a free slot starts the
// task sooner than one whose machine is busy.
uint32_t JsqMaxWeight::RouteBiased(TaskId t) {
  LocalPick pick;
  for (MachineId m : cluster_.task(t).replicas)
    if (Routable(m)) pick.Offer(m, queues_.Length(m), FreeSlots(m), rng_);
  if (pick.best == LocalityQueues::kRemote) return pick.best;
  const uint64_t remote = queues_.Length(LocalityQueues::kRemote);
  return remote + remote_bias_ < pick.cost ? LocalityQueues::kRemote : pick.best;
}

// `priority`: a task of a highly ranked job is served ahead of most of a local queue, so
// what it waits for there is TasksBefore, not the length. It joins the local queue with the
// fewest tasks before it (then most free slots, then uniformly) if that is at most
// |R| + remote_bias and the queue at most |R| + priority_slack long; else R. The bound keeps
// routing within a constant of JSQ's, which preserves its throughput optimality.
uint32_t JsqMaxWeight::RouteAhead(TaskId t) {
  const uint32_t remote = queues_.Length(LocalityQueues::kRemote);
  const JobId j = cluster_.task(t).job;
  LocalPick pick;
  for (MachineId m : cluster_.task(t).replicas) {
    if (!Routable(m) || queues_.Length(m) > remote + priority_slack_) continue;
    const uint32_t before = queues_.TasksBefore(m, j);
    if (before <= remote + remote_bias_) pick.Offer(m, before, FreeSlots(m), rng_);
  }
  return pick.best;
}

void JsqMaxWeight::Enqueue(TaskId t) {
  // Nearly every task takes the paper's rule with up to three replicas: routed
  // here, without the calls down through Route and RouteUniform.
  const ReplicaList& replicas = cluster_.task(t).replicas;
  const bool few = remote_bias_ == 0 && !routes_by_rank_ && replicas.size() <= kFewReplicas;
  queues_.Push(t, few ? RouteUniformFew(replicas) : Route(t));
}

void JsqMaxWeight::EnqueueTo(TaskId t, uint32_t queue) {
  const bool valid =
      queue == LocalityQueues::kRemote ||
      (queue < routable_.size() && Routable(queue) && cluster_.task(t).IsLocalTo(queue));
  queues_.Push(t, valid ? queue : Route(t));
}

std::vector<uint64_t> JsqMaxWeight::RandomState() const {
  const std::array<uint64_t, 4> s = rng_.state();
  return std::vector<uint64_t>(s.begin(), s.end());
}

void JsqMaxWeight::SetRandomState(std::span<const uint64_t> state) {
  if (state.size() == 4) rng_.set_state({state[0], state[1], state[2], state[3]});
}

uint32_t JsqMaxWeight::ChooseQueue(MachineId m) const {
  const uint32_t local = queues_.Length(m);
  const uint32_t remote = queues_.Length(LocalityQueues::kRemote);
  if (local == 0 && remote == 0) return kNoId;
  if (local == 0) return LocalityQueues::kRemote;  // work-conserving fallbacks
  if (remote == 0) return m;
  return alpha_ * local >= gamma_ * remote ? m : LocalityQueues::kRemote;
}

Pick JsqMaxWeight::PickFor(MachineId m) {
  const uint32_t queue = ChooseQueue(m);
  return queue == kNoId ? Pick{} : queues_.PopBest(queue);
}

void JsqMaxWeight::OnMachineUnavailable(MachineId m) {
  // Its local queue must not strand tasks: re-route each through JSQ, which
  // now skips m.
  routable_[m] = 0;
  for (TaskId t : queues_.DrainQueue(m)) queues_.Push(t, Route(t));
}

WaitInfo JsqMaxWeight::Explain(const Cluster&, TaskId t, const WaitFacts& facts) const {
  const uint32_t q = cluster_.task(t).queue;
  const bool remote = q == LocalityQueues::kRemote;
  const MachineId m = remote ? facts.free_machine : q;
  WaitInfo info;
  if (m == kNoId || locsched::FreeSlots(cluster_.machine(m)) == 0) {
    info.reason = remote ? WaitReason::kNoFreeSlot : WaitReason::kHoldersBusy;
    return info;
  }
  info.reason = WaitReason::kNextHeartbeat;
  info.machine = m;
  info.remote = remote;
  return info;
}

void JsqMaxWeight::SetRates(double alpha, double gamma) {
  alpha_ = alpha;
  gamma_ = gamma;
}

QueueStats JsqMaxWeight::Stats() const {
  QueueStats s;
  s.remote_queue = queues_.Length(LocalityQueues::kRemote);
  s.queued = s.remote_queue;
  for (uint32_t m = 0; m < queues_.num_local(); ++m) {
    s.queued += queues_.Length(m);
    s.longest_local = std::max<uint64_t>(s.longest_local, queues_.Length(m));
  }
  return s;
}

}  // namespace locsched
