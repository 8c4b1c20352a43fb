// The read-only commands of the Engine: status, queues, jobs, job, machines
// and the Prometheus metrics. Nothing here changes state.
#include <algorithm>
#include <array>
#include <bit>
#include <span>
#include <utility>

#include "algorithms/core/locality.h"
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
  w.Key("machines").BeginObject().Field("up", m.up).Field("draining", m.draining);
  w.Field("down", m.down).Field("lost", m.lost).EndObject();
  w.Key("slots").BeginObject().Field("total", m.slots).Field("busy", m.busy).EndObject();
  w.Key("tasks").BeginObject().Field("queued", sched_.queued());
  w.Field("running", sched_.running()).Field("blocked", sched_.blocked());
  w.Field("done", tasks_done_).Field("failed", tasks_failed_);
  w.Field("requeued", tasks_requeued_).Field("stale_reports", stale_reports_).EndObject();
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
Status Engine::Queues(const Request& r, JsonWriter& w) const {
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
  w.Field("age_s", clock_.Now() - jobs_[j].submitted_at);
}

// Live jobs in arrival order, at most kMaxListed.
Status Engine::Jobs(const Request&, JsonWriter& w) const {
  const std::vector<JobId> live = LiveJobs();
  const size_t n = std::min(live.size(), kMaxListed);
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

void Engine::WriteTasks(JobId j, JsonWriter& w) const {
  const Cluster& c = sched_.cluster();
  const std::vector<TaskId>& ids = c.job(j).tasks;
  const size_t n = std::min(ids.size(), kMaxListed);
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
    w.EndObject();
  }
  w.EndArray();
}

Status Engine::JobDetail(const Request& r, JsonWriter& w) const {
  if (const auto f = finished_.find(r.job); f != finished_.end()) {
    w.Field("job", r.job).Field("state", JobOutcomeName(f->second.outcome));
    w.Field("tasks", uint64_t{f->second.tasks}).Field("seconds", f->second.seconds);
    return Status::Ok();
  }
  JobId j;
  if (Status s = FindJob(r.job, &j); !s.ok()) return s;
  WriteJobCounts(j, w);
  WriteTasks(j, w);
  return Status::Ok();
}

Status Engine::Machines(const Request&, JsonWriter& w) const {
  const Cluster& c = sched_.cluster();
  w.Key("machines").BeginArray();
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    const Machine& machine = c.machine(m);
    w.BeginObject().Field("machine", machine_names_.Name(m)).Field("slots", machine.slots);
    w.Field("running", machine.running).Field("up", machine.up);
    w.Field("draining", machine.draining).Field("state", MachineState(m));
    w.Field("local_queue", sched_.policy().LocalQueueLength(m)).EndObject();
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
}

}  // namespace locsched
