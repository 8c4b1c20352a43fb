#include "algorithms/sim/list_trace_sim.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>

#include "algorithms/sim/jct_summary.h"

namespace locsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
struct Due {
  double time;
  uint64_t seq;
  uint32_t task;
  MachineId machine;
  bool operator>(const Due& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class ListRun {
 public:
  ListRun(const TraceWorkload& w, const TraceClusterModel& c, uint64_t seed, ListPolicy& policy);
  Status Run(TraceSimResult* r);

 private:
  void Ready(uint32_t t);
  void Arrive(uint32_t j);
  void Complete(const Due& d);
  Status Dispatch(bool every_machine);
  Status Start(uint32_t t, MachineId m);
  int Where(uint32_t t, MachineId m) const;  // 0 node-local, 1 rack-local, 2 off-rack
  void Summarize(TraceSimResult* r) const;

  const TraceWorkload& w_;
  const TraceClusterModel& c_;
  ListPolicy& policy_;
  std::vector<double> work_, ready_at_, jct_;
  std::vector<uint32_t> job_of_, maps_left_, tasks_left_, free_;
  std::vector<uint8_t> state_;  // per task: 0 waiting for its job or maps, 1 ready, 2 started
  std::vector<MachineId> freed_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> running_;
  double now_ = 0, wait_sum_ = 0, makespan_ = 0;
  uint64_t seq_ = 0, starts_ = 0, done_ = 0, jobs_done_ = 0, where_[3] = {0, 0, 0};
  bool readied_ = false;
};

ListRun::ListRun(const TraceWorkload& w, const TraceClusterModel& c, uint64_t seed,
                 ListPolicy& policy)
    : w_(w),
      c_(c),
      policy_(policy),
      ready_at_(w.num_tasks(), 0),
      jct_(w.jobs.size(), -1),
      free_(c.machines, c.slots_per_machine),
      state_(w.num_tasks(), 0) {
  // The same draws, in the same order, as SimulateTrace.
  DrawTraceTasks(w, c.fixed_durations, seed, &job_of_, &work_, &maps_left_, &tasks_left_);
}

void ListRun::Ready(uint32_t t) {
  state_[t] = 1;
  ready_at_[t] = now_;
  readied_ = true;
  policy_.OnReady(t, now_);
}

void ListRun::Arrive(uint32_t j) {
  const TraceJob& job = w_.jobs[j];
  for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t)
    if (w_.kinds[t] == TaskKind::kMap) Ready(t);
  if (maps_left_[j] == 0)
    for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t) Ready(t);
}

void ListRun::Complete(const Due& d) {
  const uint32_t j = job_of_[d.task];
  ++done_;
  if (free_[d.machine]++ == 0) freed_.push_back(d.machine);
  const TraceJob& job = w_.jobs[j];
  if (w_.kinds[d.task] == TaskKind::kMap && --maps_left_[j] == 0)
    for (uint32_t t = job.first_task; t < job.first_task + job.tasks; ++t)
      if (w_.kinds[t] == TaskKind::kReduce) Ready(t);
  if (--tasks_left_[j] == 0) {
    jct_[j] = now_ - job.submit_s;
    ++jobs_done_;
    makespan_ = now_;
  }
}

int ListRun::Where(uint32_t t, MachineId m) const {
  const uint32_t b = w_.replica_begin[t], e = w_.replica_begin[t + 1];
  for (uint32_t k = b; k < e; ++k)
    if (w_.replicas[k] == m) return 0;
  if (c_.racks == 0) return 2;
  auto rack = [&](MachineId x) { return uint64_t{x} * c_.racks / c_.machines; };
  for (uint32_t k = b; k < e; ++k)
    if (rack(w_.replicas[k]) == rack(m)) return 1;
  return 2;
}

Status ListRun::Start(uint32_t t, MachineId m) {
  if (t >= w_.num_tasks() || state_[t] != 1)
    return Status::Internal(
        "list_trace_sim", "the policy started task " + std::to_string(t) + ", which is not ready");
  state_[t] = 2;
  --free_[m];
  wait_sum_ += now_ - ready_at_[t];
  const int where = Where(t, m);
  ++starts_;
  ++where_[where];
  const double rack = c_.rack_slowdown > 0 ? c_.rack_slowdown : c_.remote_slowdown;
  const double slow = where == 0 ? 1 : where == 1 ? rack : c_.remote_slowdown;
  running_.push(Due{now_ + work_[t] * c_.local_mean_s * slow, seq_++, t, m});
  return Status::Ok();
}

// Machines with a free slot ask the policy until it has nothing for them: every machine
// when tasks became ready or the policy woke, else the machines freed at this instant.
Status ListRun::Dispatch(bool every_machine) {
  auto serve = [&](MachineId m) -> Status {
    while (free_[m] > 0) {
      const long pick = policy_.Pick(m, now_, static_cast<double>(free_[m]));
      if (pick < 0) break;
      if (Status s = Start(static_cast<uint32_t>(pick), m); !s.ok()) return s;
    }
    return Status::Ok();
  };
  if (every_machine) {
    for (MachineId m = 0; m < c_.machines; ++m)
      if (Status s = serve(m); !s.ok()) return s;
  } else {
    for (const MachineId m : freed_)
      if (Status s = serve(m); !s.ok()) return s;
  }
  freed_.clear();
  return Status::Ok();
}

Status ListRun::Run(TraceSimResult* r) {
  const double last_submit = w_.jobs.empty() ? 0 : w_.jobs.back().submit_s;
  const double limit = last_submit + c_.drain_limit_s;
  size_t next_job = 0;
  double wake = kInf;
  for (;;) {
    const double completion = running_.empty() ? kInf : running_.top().time;
    const double arrival = next_job < w_.jobs.size() ? w_.jobs[next_job].submit_s : kInf;
    const double t = std::min({completion, arrival, wake});
    if (t == kInf || t > limit) break;
    now_ = t;
    readied_ = false;
    while (!running_.empty() && running_.top().time <= t) {
      const Due d = running_.top();
      running_.pop();
      Complete(d);
    }
    while (next_job < w_.jobs.size() && w_.jobs[next_job].submit_s <= t) Arrive(next_job++);
    if (Status s = Dispatch(readied_ || t >= wake); !s.ok()) return s;
    wake = policy_.NextWake(now_);
    if (!(wake > now_)) wake = kInf;  // a wake-up must lie ahead
  }
  Summarize(r);
  return Status::Ok();
}

void ListRun::Summarize(TraceSimResult* r) const {
  *r = TraceSimResult{};
  r->jobs = w_.jobs.size();
  r->tasks = w_.num_tasks();
  r->jobs_done = jobs_done_;
  r->tasks_done = done_;
  r->jct_s = jct_;
  SummarizeJct(w_, work_, c_, r);
  const double starts = static_cast<double>(std::max<uint64_t>(1, starts_));
  r->mean_task_wait_s = starts_ ? wait_sum_ / starts : 0;
  r->locality = static_cast<double>(where_[0]) / starts;
  r->rack_local = static_cast<double>(where_[1]) / starts;
  r->off_rack = static_cast<double>(where_[2]) / starts;
  r->span_s = w_.jobs.empty() ? 0 : w_.jobs.back().submit_s;
  r->makespan_s = makespan_;
  r->throughput = makespan_ > 0 ? static_cast<double>(done_) / makespan_ : 0;
  double work = 0;
  for (const double x : work_) work += x * c_.local_mean_s;
  r->offered_load = work / (static_cast<double>(c_.machines) * c_.slots_per_machine *
                            std::max(r->span_s, c_.local_mean_s));
  r->stable = jobs_done_ == r->jobs && makespan_ <= r->span_s + std::max(1800.0, r->span_s / 2);
}

}  // namespace

LpInstance TraceListModel(const TraceWorkload& w, const TraceClusterModel& c,
                          const std::vector<double>& weights) {
  LpInstance in;
  in.capacity.assign(c.machines, static_cast<double>(c.slots_per_machine));
  in.jobs.resize(w.jobs.size());
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    LpJob& job = in.jobs[j];
    job.weight = j < weights.size() ? weights[j] : 1.0;
    job.release = w.jobs[j].submit_s;
    for (uint32_t t = w.jobs[j].first_task; t < w.jobs[j].first_task + w.jobs[j].tasks; ++t) {
      LpTask task;
      task.placement.assign(w.replicas.begin() + w.replica_begin[t],
                            w.replicas.begin() + w.replica_begin[t + 1]);
      task.duration = c.local_mean_s;
      task.remote_penalty = c.remote_slowdown;
      task.kind = w.kinds[t] == TaskKind::kReduce ? LpTaskKind::kReduce : LpTaskKind::kMap;
      job.tasks.push_back(std::move(task));
    }
  }
  return in;
}

Status SimulateTraceList(const TraceWorkload& w, const TraceClusterModel& c, uint64_t seed,
                         ListPolicy& policy, TraceSimResult* result) {
  ListRun run(w, c, seed, policy);
  return run.Run(result);
}

}  // namespace locsched
