// JsqMaxWeight: Wang et al.'s policy. An arriving task joins the shortest of
// its replicas' local queues and the remote queue (ties uniformly at random, or
// biased against R by PolicyParams::remote_bias and, under `priority`, by the
// job's rank); a free slot on machine m serves Q_m if alpha*|Q_m| >= gamma*|R|,
// else R, staying work-conserving. Owned by the Scheduler; single-threaded.
#pragma once

#include <utility>

#include "algorithms/core/policy.h"
#include "algorithms/core/queues.h"
#include "base/rng.h"

namespace locsched {

/// JSQ routing + MaxWeight serving over LocalityQueues.
class JsqMaxWeight final : public Policy {
 public:
  /// A policy over `cluster` with rates and intra-queue policy from params.
  JsqMaxWeight(const PolicyParams& params, Cluster& cluster);

  void AddMachine(MachineId m) override;
  void Enqueue(TaskId t) override;
  void EnqueueTo(TaskId t, uint32_t queue) override;
  std::vector<uint64_t> RandomState() const override;
  void SetRandomState(std::span<const uint64_t> state) override;
  void Withdraw(TaskId t) override { queues_.Remove(t); }
  Pick PickFor(MachineId m) override;
  void OnJobChanged(JobId j) override {
    queues_.SetRunning(j, cluster_.job(j).running, cluster_.job(j).seq);
  }
  void OnMachineUnavailable(MachineId m) override;
  void OnMachineAvailable(MachineId m) override { routable_[m] = 1; }
  void SetRates(double alpha, double gamma) override;
  /// Sets the `priority` intra-queue ranks (new jobs are placed by Smith's rule).
  bool SetPriorityOrder(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs) override {
    queues_.SetPriorityRanks(std::move(ranks), std::move(seqs), /*place_new=*/true);
    return true;
  }
  QueueStats Stats() const override;
  uint64_t LocalQueueLength(MachineId m) const override { return queues_.Length(m); }
  /// Why queued task t waits: in the local queue of the machine JSQ routed it to (that
  /// machine's free slot serves it), or in R, which any machine's free slot may serve.
  WaitInfo Explain(const Cluster& cluster, TaskId t, const WaitFacts& facts) const override;

  /// The queue task t joins now (a machine id or LocalityQueues::kRemote): JSQ, then under
  /// `priority` a local queue where few tasks would run before it instead of R.
  uint32_t Route(TaskId t);
  /// The queue MaxWeight serves for a free slot of m: m, kRemote, or kNoId if both are empty.
  uint32_t ChooseQueue(MachineId m) const;
  /// The queues, for inspection.
  const LocalityQueues& queues() const { return queues_; }
  /// The queues, writable: for tests that stage queue contents, and the priority re-solve.
  LocalityQueues& mutable_queues() { return queues_; }

 private:
  bool Routable(MachineId m) const { return routable_[m]; }
  // m's local queue length as routing sees it: UINT32_MAX if m takes no new work.
  uint32_t RouteLength(MachineId m) const {
    return queues_.LocalLength(m) | (uint32_t{routable_[m]} - 1);  // routable_ is 0 or 1
  }
  uint32_t FreeSlots(MachineId m) const;
  // Replica counts up to this take RouteUniformFew.
  static constexpr size_t kFewReplicas = 3;
  uint32_t RouteUniform(TaskId t);
  uint32_t RouteUniformFew(const ReplicaList& replicas);
  uint32_t RouteBiased(TaskId t);
  uint32_t RouteAhead(TaskId t);

  Cluster& cluster_;
  LocalityQueues queues_;
  std::vector<uint8_t> routable_;  // by machine: up and not draining (dense for Route)
  Rng rng_;
  double alpha_;
  double gamma_;
  uint32_t remote_bias_;
  uint32_t priority_slack_;
  bool routes_by_rank_;  // priority_slack > 0 and intra `priority`: RouteAhead may apply
};

}  // namespace locsched
