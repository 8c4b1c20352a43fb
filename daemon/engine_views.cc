// The read-only commands of the Engine: status, machine_queues, jobs (live, or the
// finished history), job (with why each waiting task waits), machines, and the
// Prometheus metrics. Nothing here changes state.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <span>
#include <utility>

#include "algorithms/core/locality.h"
#include "base/suggest.h"
#include "daemon/engine.h"

namespace locsched {

namespace {

std::string_view TaskStateName(TaskState s) {
  switch (s) {
    case TaskState::kBlocked:
      return "blocked";
    case TaskState::kQueued:
      return "queued";
    case TaskState::kRunning:
      return "running";
    case TaskState::kDone:
      return "done";
  }
  return "done";
}

// A machine's state as the views name it (machines --state, a task's holders, the
// machines gauge): Engine::MachineState's names.
constexpr std::string_view kMachineStates[] = {"up", "draining", "down", "lost"};

// A listing's filter, sort and limit (the state, sort and limit fields of jobs and machines),
// as positions in the view's own tables of state and sort names.
struct ListQuery {
  static constexpr size_t kNone = SIZE_MAX;
  size_t state = kNone;  // kNone: every state
  size_t sort = kNone;   // kNone: the view's default order
  bool descending = false;
  size_t limit = 0;  // most listed; never above Engine::kMaxListed
};

std::string JoinNames(std::span<const std::string_view> names) {
  std::string out;
  for (const std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// The position of `value` among `names`, or an error naming the field, the closest name
// and every valid one.
Status FindName(std::string_view field, std::string_view what, std::string_view value,
                std::span<const std::string_view> names, size_t* pos) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) {
      *pos = i;
      return Status::Ok();
    }
  const std::string_view hint = SuggestName(value, names);
  return Status::InvalidArgument(
      std::string(field), "unknown " + std::string(what) + " '" + std::string(value) + "'" +
                              (hint.empty() ? "" : "; did you mean '" + std::string(hint) + "'?") +
                              " (one of: " + JoinNames(names) + ")");
}

Status ParseListQuery(const Request& r, std::span<const std::string_view> states,
                      std::span<const std::string_view> sorts, ListQuery* q) {
  if (!r.state.empty())
    if (Status s = FindName("state", "state", r.state, states, &q->state); !s.ok()) return s;
  if (!r.sort.empty()) {
    q->descending = r.sort[0] == '-';
    const std::string_view field = std::string_view(r.sort).substr(q->descending ? 1 : 0);
    if (Status s = FindName("sort", "field", field, sorts, &q->sort); !s.ok()) return s;
  }
  q->limit = r.limit == 0 ? Engine::kMaxListed : std::min<uint64_t>(r.limit, Engine::kMaxListed);
  return Status::Ok();
}

// Orders ids by q's sort field: key(id, field) for numbers, name(id) for field 0 (every
// view's first sort field is its name); ties keep their order.
template <typename Id, typename Key, typename Name>
void SortIds(std::vector<Id>& ids, const ListQuery& q, Key key, Name name) {
  if (q.sort == ListQuery::kNone) return;
  std::stable_sort(ids.begin(), ids.end(), [&](Id a, Id b) {
    if (q.descending) std::swap(a, b);
    if (q.sort == 0) return name(a) < name(b);
    return key(a, q.sort) < key(b, q.sort);
  });
}

}  // namespace

// Each machine in one state: up, draining, down (by machine_down) or lost (silent).
Engine::MachineTotals Engine::CountMachines() const {
  const Cluster& c = sched_.cluster();
  MachineTotals t;
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    const Machine& machine = c.machine(m);
    ++(lost(m) ? t.lost : !machine.up ? t.down : machine.draining ? t.draining : t.up);
    if (machine.up) t.slots += machine.slots;
    t.busy += machine.running;
  }
  return t;
}

std::string_view Engine::MachineState(MachineId m) const {
  const Machine& machine = sched_.cluster().machine(m);
  return lost(m) ? "lost" : !machine.up ? "down" : machine.draining ? "draining" : "up";
}

Status Engine::Summary(const Request&, JsonWriter& w) const {
  const MachineTotals m = CountMachines();
  const uint64_t assigned = assigned_local_ + assigned_remote_;
  w.Field("uptime_s", clock_.Now() - started_at_);
  w.Field("policy", PolicyKindName(sched_.params().kind));
  w.Key("tenancy").BeginObject().Field("enabled", tenancy());
  w.Field("queues", uint64_t{tenancy() ? sched_.sharing()->tree().size() - 1 : 1}).EndObject();
  w.Key("machines").BeginObject().Field("up", m.up).Field("draining", m.draining);
  w.Field("down", m.down).Field("lost", m.lost).EndObject();
  w.Key("slots").BeginObject().Field("total", m.slots).Field("busy", m.busy).EndObject();
  w.Key("tasks").BeginObject().Field("queued", sched_.queued());
  w.Field("running", sched_.running()).Field("blocked", sched_.blocked());
  w.Field("done", tasks_done_).Field("failed", tasks_failed_);
  w.Field("requeued", tasks_requeued_).Field("stale_reports", stale_reports_);
  w.Field("preempted", tasks_preempted_).Field("preempted_task_s", preempted_task_s_);
  w.Field("preempt_reports", preempt_reports_).EndObject();
  w.Key("jobs").BeginObject().Field("live", uint64_t{sched_.cluster().live_jobs()});
  w.Field("submitted", jobs_submitted_).Field("done", jobs_done_);
  w.Field("failed", jobs_failed_).Field("cancelled", jobs_cancelled_).EndObject();
  w.Key("rates").BeginObject().Field("alpha", rates_.alpha()).Field("gamma", rates_.gamma());
  w.Field("beta", rates_.beta());
  w.Field("learning", learn_rates_).Field("local_samples", rates_.local_samples());
  w.Field("remote_samples", rates_.remote_samples());
  w.Field("rack_samples", rates_.rack_samples()).EndObject();
  // remote: every start off the holders (rack + off_rack); without racks every one is
  // off-rack.
  w.Key("assigned").BeginObject().Field("local", assigned_local_);
  w.Field("remote", assigned_remote_).Field("rack", assigned_rack_);
  w.Field("off_rack", assigned_remote_ - assigned_rack_).EndObject();
  w.Key("locality");
  if (assigned == 0)
    w.Null();
  else
    w.Double(static_cast<double>(assigned_local_) / static_cast<double>(assigned));
  if (rebalancer_) rebalancer_->WriteStatus(w);
  if (permits_) {
    w.Key("rebalance").BeginObject().Field("enabled", rebalance_enabled_);
    w.Field("runs", permits_->runs()).Field("permits", permits_->granted());
    w.Field("interval_s", permits_->interval()).EndObject();
  }
  return Status::Ok();
}

// Local queue lengths: the `top` longest with their machines, and a histogram
// over power-of-two buckets (0, 1, 2-3, 4-7, ...).
Status Engine::MachineQueues(const Request& r, JsonWriter& w) const {
  const Cluster& c = sched_.cluster();
  const Policy& p = sched_.policy();
  std::vector<std::pair<uint64_t, MachineId>> lengths;
  std::array<uint64_t, 65> histogram{};
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    const uint64_t len = p.LocalQueueLength(m);
    lengths.emplace_back(len, m);
    ++histogram[len == 0 ? 0 : std::bit_width(len)];
  }
  const size_t top = std::min<size_t>(r.top, lengths.size());
  std::partial_sort(lengths.begin(), lengths.begin() + static_cast<ptrdiff_t>(top), lengths.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  const QueueStats stats = p.Stats();
  w.Field("queued", stats.queued).Field("remote", stats.remote_queue);
  w.Key("longest").BeginArray();
  for (size_t i = 0; i < top; ++i) {
    w.BeginObject().Field("machine", machine_names_.Name(lengths[i].second));
    w.Field("length", lengths[i].first).EndObject();
  }
  w.EndArray();
  w.Key("histogram").BeginArray();
  const size_t last = histogram.rend() - std::find_if(histogram.rbegin(), histogram.rend(),
                                                      [](uint64_t n) { return n != 0; });
  for (size_t b = 0; b < last; ++b) {
    const uint64_t lo = b == 0 ? 0 : uint64_t{1} << (b - 1);
    w.BeginObject().Field("min", lo).Field("max", b == 0 ? 0 : 2 * lo - 1);
    w.Field("machines", histogram[b]).EndObject();
  }
  w.EndArray();
  return Status::Ok();
}

void Engine::WriteJobCounts(JobId j, JsonWriter& w) const {
  const Job& job = sched_.cluster().job(j);
  w.Field("job", jobs_[j].name).Field("state", "live").Field("weight", job.weight);
  w.Field("tasks", static_cast<uint64_t>(job.tasks.size())).Field("queued", job.queued);
  w.Field("running", job.running).Field("done", job.done).Field("maps_left", job.maps_left);
  w.Field("age_s", clock_.Now() - jobs_[j].submitted_at).Field("queue", QueueName(j));
  w.Key("user");
  if (job.user == kNoId)
    w.Null();
  else
    w.String(sched_.UserName(job.user));
}

namespace {
constexpr std::string_view kLiveStates[] = {"queued", "running", "blocked"};
constexpr std::string_view kLiveSorts[] = {"job",    "age",     "weight", "tasks",
                                           "queued", "running", "done"};
// In JobOutcome's order (FinishedJobs compares positions with outcomes).
constexpr std::string_view kFinishedStates[] = {"done", "failed", "cancelled"};
constexpr std::string_view kFinishedSorts[] = {"job", "seconds", "tasks", "locality", "ended"};
}  // namespace

// Live jobs in arrival order (or r.sort), those with a task in r.state, at most r.limit.
Status Engine::Jobs(const Request& r, JsonWriter& w) const {
  if (r.finished) return FinishedJobs(r, w);
  ListQuery q;
  if (Status s = ParseListQuery(r, kLiveStates, kLiveSorts, &q); !s.ok()) return s;
  const Cluster& c = sched_.cluster();
  std::vector<JobId> live = LiveJobs();
  if (q.state != ListQuery::kNone)
    std::erase_if(live, [&](JobId j) {
      const Job& job = c.job(j);
      const uint32_t counts[] = {job.queued, job.running, job.blocked};
      return counts[q.state] == 0;
    });
  SortIds(
      live, q,
      [&](JobId j, size_t field) {
        const Job& job = c.job(j);
        const double keys[] = {0,
                               clock_.Now() - jobs_[j].submitted_at,
                               job.weight,
                               static_cast<double>(job.tasks.size()),
                               static_cast<double>(job.queued),
                               static_cast<double>(job.running),
                               static_cast<double>(job.done)};
        return keys[field];
      },
      [&](JobId j) { return std::string_view(jobs_[j].name); });
  const size_t n = std::min(live.size(), q.limit);
  w.Field("count", static_cast<uint64_t>(live.size())).Field("truncated", n < live.size());
  w.Key("jobs").BeginArray();
  for (size_t i = 0; i < n; ++i) {
    w.BeginObject();
    WriteJobCounts(live[i], w);
    w.EndObject();
  }
  w.EndArray();
  return Status::Ok();
}

// The finished-job history, newest first (or r.sort), filtered by outcome.
Status Engine::FinishedJobs(const Request& r, JsonWriter& w) const {
  ListQuery q;
  if (Status s = ParseListQuery(r, kFinishedStates, kFinishedSorts, &q); !s.ok()) return s;
  std::vector<size_t> rows;
  for (size_t i = history_.size(); i-- > 0;)
    if (q.state == ListQuery::kNone || static_cast<size_t>(history_[i].outcome) == q.state)
      rows.push_back(i);
  SortIds(
      rows, q,
      [&](size_t i, size_t field) {
        const Finished& f = history_[i];
        const double keys[] = {0, f.seconds, static_cast<double>(f.tasks),
                               f.done == 0 ? -1.0 : static_cast<double>(f.local) / f.done,
                               f.ended_at};
        return keys[field];
      },
      [&](size_t i) { return std::string_view(history_[i].name); });
  const size_t n = std::min(rows.size(), q.limit);
  w.Field("count", static_cast<uint64_t>(rows.size())).Field("truncated", n < rows.size());
  w.Field("kept", history_cap_).Key("jobs").BeginArray();
  for (size_t i = 0; i < n; ++i) WriteFinished(history_[rows[i]], w);
  w.EndArray();
  return Status::Ok();
}

// A finished job: its outcome, completion time (seconds) and the share of its finished
// tasks that ran on a holder (null if none finished).
void Engine::WriteFinished(const Finished& f, JsonWriter& w) const {
  w.BeginObject().Field("job", f.name).Field("state", JobOutcomeName(f.outcome));
  w.Field("tasks", f.tasks).Field("done", f.done).Field("seconds", f.seconds);
  w.Key("locality");
  if (f.done == 0)
    w.Null();
  else
    w.Double(static_cast<double>(f.local) / f.done);
  w.Key("ended_at");
  if (f.ended_at == 0)
    w.Null();
  else
    w.Double(f.ended_at);
  w.EndObject();
}

void Engine::WriteTasks(JobId j, JsonWriter& w) const {
  const Cluster& c = sched_.cluster();
  const std::vector<TaskId>& ids = c.job(j).tasks;
  const size_t n = std::min(ids.size(), kMaxListed);
  const WaitFacts facts = WaitFacts::Of(c, clock_.Now());
  w.Field("tasks_truncated", n < ids.size());
  w.Key("task_list").BeginArray();
  for (size_t i = 0; i < n; ++i) {
    const Task& t = c.task(ids[i]);
    w.BeginObject().Field("task", TaskName(ids[i]));
    w.Field("kind", t.kind == TaskKind::kMap ? "map" : "reduce");
    w.Field("state", TaskStateName(t.state)).Field("attempts", t.attempts);
    // Running and finished tasks say where they run or ran (a finished one loaded
    // from a snapshot that did not record it has no machine).
    if ((t.state == TaskState::kRunning || t.state == TaskState::kDone) && t.machine != kNoId)
      w.Field("machine", machine_names_.Name(t.machine)).Field("local", t.ran_local);
    if (t.state == TaskState::kQueued || t.state == TaskState::kBlocked) {
      WriteHolders(ids[i], w);
      WriteWait(ids[i], facts, w);
    }
    w.EndObject();
  }
  w.EndArray();
}

// A waiting task's replica holders: state, slots, tasks running, slots free for new work.
void Engine::WriteHolders(TaskId t, JsonWriter& w) const {
  const Cluster& c = sched_.cluster();
  w.Key("holders").BeginArray();
  for (const MachineId m : c.task(t).replicas) {
    const Machine& machine = c.machine(m);
    w.BeginObject().Field("machine", machine_names_.Name(m));
    w.Field("state", MachineState(m)).Field("slots", machine.slots);
    w.Field("running", machine.running).Field("free", FreeSlots(machine)).EndObject();
  }
  w.EndArray();
}

namespace {

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

// The job order a policy serves jobs by, as `help` and the config name it.
std::string_view OrderName(const PolicyParams& p) {
  return p.kind == PolicyKind::kFifo ? "fifo" : JobOrderName(p.job_order);
}

// One sentence saying why a task waits, from what ExplainWait found.
std::string WaitDetail(const WaitInfo& i, const PolicyParams& p, const Job& job,
                       std::string_view machine, std::string_view queue) {
  const std::string q = "its tenant queue " + std::string(queue);
  const bool late = p.kind == PolicyKind::kLateBinding;
  const std::string expected = i.expected_wait_s >= 0 && std::isfinite(i.expected_wait_s)
                                   ? "; expected wait for a holder " + Seconds(i.expected_wait_s)
                                   : "";
  const std::string elsewhere =
      late                ? (i.offered_off ? ""
                                           : "; only the last job of the order and the job waiting longest run "
                                             "off their holders")
      : i.remote_in_s > 0 ? "; it may run elsewhere in " + Seconds(i.remote_in_s)
                          : "";
  switch (i.reason) {
    case WaitReason::kBlockedByMaps:
      return "a reduce: waits for its job's " + std::to_string(job.maps_left) + " maps to finish";
    case WaitReason::kNoLiveHolder:
      return "no holder of its input is up and undrained" + elsewhere;
    case WaitReason::kHoldersBusy:
      return "every slot of its live holders is busy, and no other machine may take it now" +
             expected;
    case WaitReason::kRemoteRule:
      if (late && i.offered_off)
        return "its holders are busy; the expected wait for one (" + Seconds(i.expected_wait_s) +
               ") does not pay for a slower run elsewhere (a lone task runs off its holders past "
               "1/gamma - 1/alpha, " +
               Seconds(i.remote_wait_s) +
               "; a job with other tasks queued or running waits longer, as it ends with its "
               "last), so it waits for them rather than run on a free machine";
      if (late) return "its holders are busy" + elsewhere + expected;
      return "its holders are busy; delay scheduling runs it elsewhere in " +
             Seconds(i.remote_in_s) + " (after " + Seconds(i.remote_wait_s) +
             " without a local start)";
    case WaitReason::kBehindJobs:
      return "machines that may start it have free slots, but " +
             (i.jobs_ahead >= kMaxJobsAhead ? std::to_string(kMaxJobsAhead) + "+"
                                            : std::to_string(i.jobs_ahead)) +
             " jobs come first in the job order (" + std::string(OrderName(p)) + ")";
    case WaitReason::kNextHeartbeat:
      if (i.remote)
        return "starts off its holders on the next heartbeat of a machine with a free slot, "
               "such as " +
               std::string(machine);
      return "starts on " + std::string(machine) + "'s next heartbeat (a holder with a free slot)";
    case WaitReason::kNoFreeSlot:
      return "every slot of every usable machine is busy";
    case WaitReason::kQueueAtMaximum:
      return q + " (or a parent of it) holds its maximum share of the slots";
    case WaitReason::kHeldByJobLimit:
      return "its job is held: " + q + " runs its max_running_jobs already";
    case WaitReason::kHeldByUserLimit:
      return "its job is held: its user holds the user_limit of " + q;
    case WaitReason::kQueueTurn:
      return "free slots go to tenant queues further below their guarantee than " + q;
  }
  return "";
}

}  // namespace

// Why a waiting task waits (algorithms/core/wait_reason.h), with the figures behind it.
void Engine::WriteWait(TaskId t, const WaitFacts& facts, JsonWriter& w) const {
  const Cluster& c = sched_.cluster();
  const WaitInfo i = ExplainWait(sched_.policy(), c, t, facts);
  const std::string_view machine = i.machine == kNoId ? "" : machine_names_.Name(i.machine);
  w.Key("wait").BeginObject().Field("reason", WaitReasonName(i.reason));
  w.Field("detail",
          WaitDetail(i, sched_.params(), c.job(c.task(t).job), machine, QueueName(c.task(t).job)));
  if (i.machine != kNoId) w.Field("machine", machine).Field("remote", i.remote);
  if (i.reason == WaitReason::kBehindJobs) w.Field("jobs_ahead", i.jobs_ahead);
  if (i.remote_in_s >= 0) w.Field("remote_in_s", i.remote_in_s);
  if (i.remote_wait_s >= 0) w.Field("remote_wait_s", i.remote_wait_s);
  if (i.expected_wait_s >= 0 && std::isfinite(i.expected_wait_s))
    w.Field("expected_wait_s", i.expected_wait_s);
  w.EndObject();
}

Status Engine::JobDetail(const Request& r, JsonWriter& w) const {
  const std::optional<JobId> live = LiveJob(r.job);
  const Finished* f = live ? nullptr : FindFinished(r.job);
  if (f != nullptr) {
    w.Field("job", r.job).Field("state", JobOutcomeName(f->outcome));
    w.Field("tasks", uint64_t{f->tasks}).Field("seconds", f->seconds).Field("done", f->done);
    w.Key("locality");
    if (f->done == 0)
      w.Null();
    else
      w.Double(static_cast<double>(f->local) / f->done);
    return Status::Ok();
  }
  JobId j;
  if (Status s = FindJob(r.job, &j); !s.ok()) return s;
  WriteJobCounts(j, w);
  WriteTasks(j, w);
  return Status::Ok();
}

namespace {
constexpr std::string_view kMachineSorts[] = {"machine", "slots", "running", "free", "local_queue"};
}  // namespace

// Machines as they joined (or r.sort), those in r.state, at most r.limit.
Status Engine::Machines(const Request& r, JsonWriter& w) const {
  ListQuery q;
  if (Status s = ParseListQuery(r, kMachineStates, kMachineSorts, &q); !s.ok()) return s;
  const Cluster& c = sched_.cluster();
  const Policy& p = sched_.policy();
  std::vector<MachineId> ids;
  for (MachineId m = 0; m < c.num_machines(); ++m)
    if (q.state == ListQuery::kNone || MachineState(m) == kMachineStates[q.state]) ids.push_back(m);
  SortIds(
      ids, q,
      [&](MachineId m, size_t field) {
        const Machine& machine = c.machine(m);
        const double keys[] = {
            0, static_cast<double>(machine.slots), static_cast<double>(machine.running),
            static_cast<double>(FreeSlots(machine)), static_cast<double>(p.LocalQueueLength(m))};
        return keys[field];
      },
      [&](MachineId m) { return machine_names_.Name(m); });
  const size_t n = std::min<size_t>(ids.size(), r.limit == 0 ? ids.size() : r.limit);
  w.Field("count", static_cast<uint64_t>(ids.size())).Field("truncated", n < ids.size());
  w.Key("machines").BeginArray();
  for (size_t i = 0; i < n; ++i) {
    const Machine& machine = c.machine(ids[i]);
    w.BeginObject().Field("machine", machine_names_.Name(ids[i]));
    w.Field("state", MachineState(ids[i])).Field("slots", machine.slots);
    w.Field("running", machine.running).Field("free", FreeSlots(machine));
    w.Field("up", machine.up).Field("draining", machine.draining);
    w.Field("local_queue", p.LocalQueueLength(ids[i])).EndObject();
  }
  w.EndArray();
  return Status::Ok();
}

namespace {
void Metric(std::string* out, std::string_view name, std::string_view type, std::string_view help,
            double value) {
  out->append("# HELP locsched_").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE locsched_").append(name).append(" ").append(type).append("\n");
  out->append("locsched_").append(name).append(" ");
  JsonWriter(out).Double(value);
  out->append("\n");
}

// One series per row, labelled `label`="row name".
using Rows = std::span<const std::pair<std::string_view, uint64_t>>;
void LabelledMetric(std::string* out, std::string_view name, std::string_view type,
                    std::string_view help, std::string_view label, Rows rows) {
  out->append("# HELP locsched_").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE locsched_").append(name).append(" ").append(type).append("\n");
  for (const auto& [row, value] : rows)
    out->append("locsched_")
        .append(name)
        .append("{")
        .append(label)
        .append("=\"")
        .append(row)
        .append("\"} ")
        .append(std::to_string(value))
        .append("\n");
}
}  // namespace

void Engine::AppendMetrics(std::string* out) const {
  const auto d = [](uint64_t v) { return static_cast<double>(v); };
  Metric(out, "tasks_queued", "gauge", "Tasks runnable and waiting.", d(sched_.queued()));
  Metric(out, "tasks_running", "gauge", "Tasks running.", d(sched_.running()));
  Metric(out, "tasks_blocked", "gauge", "Reduce tasks waiting for maps.", d(sched_.blocked()));
  Metric(out, "jobs_live", "gauge", "Live jobs.", d(sched_.cluster().live_jobs()));
  Metric(out, "machines_lost_total", "counter",
         "Machines found silent past machines.expiry_s (since the start).", d(machines_lost_));
  Metric(out, "task_reports_stale_total", "counter",
         "task_done and task_failed reports of runs already taken back, ignored (since the "
         "start).",
         d(stale_reports_));
  Metric(out, "tasks_preempted_total", "counter",
         "Running tasks preempted for tenant queues below their guarantee (since the start).",
         d(tasks_preempted_));
  Metric(out, "preempted_task_seconds_total", "counter",
         "Seconds the preempted runs had run, lost work (since the start).", preempted_task_s_);
  Metric(out, "task_preempted_reports_total", "counter",
         "task_preempted reports: machines confirming a stop order (since the start).",
         d(preempt_reports_));
  Metric(out, "tasks_done_total", "counter", "Tasks finished.", d(tasks_done_));
  Metric(out, "tasks_failed_total", "counter", "Task failures reported.", d(tasks_failed_));
  Metric(out, "jobs_done_total", "counter", "Jobs finished.", d(jobs_done_));
  Metric(out, "jobs_failed_total", "counter", "Jobs failed.", d(jobs_failed_));
  Metric(out, "assigned_local_total", "counter", "Local assignments.", d(assigned_local_));
  Metric(out, "assigned_remote_total", "counter",
         "Assignments off the task's holders (rack-local and off-rack).", d(assigned_remote_));
  // One series per locality level, as YARN counts them; without racks every start off the
  // task's holders is off_rack.
  const std::pair<std::string_view, uint64_t> levels[] = {
      {LocalityName(Locality::kNode), assigned_local_},
      {LocalityName(Locality::kRack), assigned_rack_},
      {LocalityName(Locality::kOffRack), assigned_remote_ - assigned_rack_}};
  LabelledMetric(out, "tasks_started_total", "counter",
                 "Tasks assigned, by locality level (node, rack, off_rack).", "locality", levels);
  // Machines by state and slots by use, a row per state (each state is CountMachines').
  const MachineTotals m = CountMachines();
  const std::pair<std::string_view, uint64_t> states[] = {
      {"up", m.up}, {"draining", m.draining}, {"down", m.down}, {"lost", m.lost}};
  LabelledMetric(out, "machines", "gauge",
                 "Machines by state (up: taking tasks; lost: silent past machines.expiry_s).",
                 "state", states);
  const std::pair<std::string_view, uint64_t> slots[] = {
      {"busy", m.busy}, {"idle", m.slots > m.busy ? m.slots - m.busy : 0}};
  LabelledMetric(out, "slots", "gauge",
                 "Task slots of the machines that are up (draining ones included), by use.",
                 "state", slots);
  completion_times_.AppendMetrics("locsched_job_completion_time_seconds",
                                  "Seconds from submission to the end of jobs that finished.", out);
  Metric(out, "rate_alpha", "gauge", "Learnt local service rate.", rates_.alpha());
  Metric(out, "rate_beta", "gauge", "Learnt rack-local service rate.", rates_.beta());
  Metric(out, "rate_gamma", "gauge", "Learnt remote service rate.", rates_.gamma());
  if (rebalancer_) rebalancer_->AppendMetrics(out);
  AppendQueueMetrics(out);
}

// ---- tenant queues ---------------------------------------------------------

namespace {

// One queue's figures as the views show them; tenancy off has the one queue "default".
struct QueueRow {
  std::string_view name, parent;  // into the tree; root's parent is ""
  bool leaf = true, configured = true;
  QueueState state = QueueState::kRunning;
  double guaranteed = 1, maximum = 1;  // fractions of the cluster
  const QueueSpec* spec = nullptr;     // null with tenancy off
  QueueUsage usage;
};

std::string_view QueueStateName(QueueState s) {
  return s == QueueState::kStopped ? "stopped" : "running";
}

// The figures of queue q (tenancy off: the whole cluster as "default").
QueueRow RowOf(const Scheduler& sched, const QueueConfig& config, uint32_t q, uint64_t slots) {
  QueueRow row;
  const QueueSharing* sharing = sched.sharing();
  if (sharing == nullptr) {
    row.name = "default";
    row.parent = "root";
    row.usage.running_tasks = static_cast<uint32_t>(sched.running());
    row.usage.pending_tasks = static_cast<uint32_t>(sched.queued());
    row.usage.running_jobs = sched.cluster().live_jobs();
    row.usage.slots = static_cast<uint32_t>(slots);
    std::vector<uint32_t> users;
    const Cluster& c = sched.cluster();
    for (JobId j = 0; j < c.job_capacity(); ++j)
      if (c.job(j).alive && c.job(j).user != kNoId) users.push_back(c.job(j).user);
    std::sort(users.begin(), users.end());
    row.usage.users =
        static_cast<uint32_t>(std::unique(users.begin(), users.end()) - users.begin());
    return row;
  }
  const QueueNode& node = sharing->tree().node(q);
  row.name = node.spec.name;
  if (node.parent != UINT32_MAX) row.parent = sharing->tree().node(node.parent).spec.name;
  row.leaf = node.leaf();
  row.state = node.spec.state;
  row.guaranteed = node.guaranteed;
  row.maximum = node.maximum;
  row.spec = &node.spec;
  row.usage = sharing->Usage(q);
  row.configured = q == 0 || std::any_of(config.spec.queues.begin(), config.spec.queues.end(),
                                         [&](const QueueSpec& s) { return s.name == row.name; });
  return row;
}

}  // namespace

void Engine::WriteQueue(uint32_t q, JsonWriter& w) const {
  const QueueRow row = RowOf(sched_, queue_config_, q, CountMachines().slots);
  const QueueUsage& u = row.usage;
  w.BeginObject().Field("queue", row.name).Field("parent", row.parent).Field("leaf", row.leaf);
  w.Field("state", QueueStateName(row.state)).Field("configured", row.configured);
  w.Field("guarantee", row.guaranteed).Field("maximum", row.maximum).Field("share", u.share());
  w.Field("running_tasks", uint64_t{u.running_tasks})
      .Field("pending_tasks", uint64_t{u.pending_tasks});
  w.Field("running_jobs", uint64_t{u.running_jobs}).Field("held_jobs", uint64_t{u.held_jobs});
  w.Field("users", uint64_t{u.users}).Field("slots", uint64_t{u.slots});
  const JobOrder order = row.spec && row.spec->order ? *row.spec->order : sched_.params().job_order;
  w.Field("order", JobOrderName(order));
  if (row.spec != nullptr && q != 0) {
    w.Field(row.spec->by_weight ? "weight" : "capacity", row.spec->guarantee);
    w.Field("maximum_capacity", row.spec->maximum);
    w.Field("max_running_jobs", uint64_t{row.spec->max_running_jobs});
    w.Field("user_limit", row.spec->user_limit);
  }
  w.EndObject();
}

Status Engine::Queues(const Request& r, JsonWriter& w) const {
  const QueueSharing* sharing = sched_.sharing();
  w.Field("tenancy", sharing != nullptr).Key("queues").BeginArray();
  if (sharing == nullptr) {
    if (!r.queue.empty() && r.queue != "default")
      return Status::NotFound("queue", "unknown queue '" + r.queue + "'" +
                                           " (tenant queues are off: every job is in default)");
    WriteQueue(0, w);
  } else if (!r.queue.empty()) {
    const std::optional<uint32_t> q = sharing->tree().Find(r.queue);
    if (!q) return Status::NotFound("queue", "unknown queue '" + r.queue + "'");
    WriteQueue(*q, w);
  } else {
    for (uint32_t q = 0; q < sharing->tree().size(); ++q) WriteQueue(q, w);
  }
  w.EndArray();
  return Status::Ok();
}

// One gauge family per figure, a series per queue (root left out: it is the cluster).
void Engine::AppendQueueMetrics(std::string* out) const {
  const QueueSharing* sharing = sched_.sharing();
  const uint64_t slots = CountMachines().slots;
  std::vector<QueueRow> rows;
  if (sharing == nullptr) rows.push_back(RowOf(sched_, queue_config_, 0, slots));
  for (uint32_t q = 1; sharing != nullptr && q < sharing->tree().size(); ++q)
    rows.push_back(RowOf(sched_, queue_config_, q, slots));
  struct Family {
    const char* name;
    const char* help;
    double (*value)(const QueueRow&);
  };
  static constexpr Family kFamilies[] = {
      {"queue_guaranteed_ratio", "Guaranteed share of the cluster's slots, by tenant queue.",
       [](const QueueRow& r) { return r.guaranteed; }},
      {"queue_maximum_ratio", "Maximum share of the cluster's slots, by tenant queue.",
       [](const QueueRow& r) { return r.maximum; }},
      {"queue_share_ratio", "Share of the cluster's slots in use, by tenant queue.",
       [](const QueueRow& r) { return r.usage.share(); }},
      {"queue_running_tasks", "Tasks running, by tenant queue.",
       [](const QueueRow& r) { return double(r.usage.running_tasks); }},
      {"queue_pending_tasks", "Runnable tasks waiting (held jobs' included), by tenant queue.",
       [](const QueueRow& r) { return double(r.usage.pending_tasks); }},
      {"queue_running_jobs", "Jobs admitted, by tenant queue.",
       [](const QueueRow& r) { return double(r.usage.running_jobs); }},
      {"queue_held_jobs", "Jobs held by the running-job or user limit, by tenant queue.",
       [](const QueueRow& r) { return double(r.usage.held_jobs); }},
      {"queue_users", "Users with live jobs, by tenant queue.",
       [](const QueueRow& r) { return double(r.usage.users); }},
      {"queue_stopped", "1 if the tenant queue is stopped (refuses new jobs, drains).",
       [](const QueueRow& r) { return r.state == QueueState::kStopped ? 1.0 : 0.0; }},
  };
  for (const Family& f : kFamilies) {
    out->append("# HELP locsched_").append(f.name).append(" ").append(f.help).append("\n");
    out->append("# TYPE locsched_").append(f.name).append(" gauge\n");
    for (const QueueRow& row : rows) {
      out->append("locsched_").append(f.name).append("{queue=\"").append(row.name).append("\"} ");
      JsonWriter(out).Double(f.value(row));
      out->append("\n");
    }
  }
}

}  // namespace locsched
