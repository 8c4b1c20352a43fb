#include "tools/agents/emulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace locsched {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxLoggedAnomalies = 20;
constexpr size_t kMaxQuoted = 300;  // longest request or reply quoted in a message

// params with beta 0 replaced by its default, sqrt(alpha * gamma).
AgentsParams WithBeta(AgentsParams p) {
  if (p.beta == 0) p.beta = std::sqrt(p.alpha * p.gamma);
  return p;
}

uint32_t DataMachines(const AgentsParams& p) {
  return static_cast<uint32_t>(std::lround(p.data_fraction * p.machines));
}

// `text` cut to kMaxQuoted characters, so a big job_submit does not flood the terminal.
std::string Quote(const std::string& text) {
  if (text.size() <= kMaxQuoted) return text;
  return text.substr(0, kMaxQuoted) + "...(" + std::to_string(text.size()) + " bytes)";
}

// The index of task `name` ("t<i>" for maps, "r<i>" for reduces) in a job with
// `maps` maps and `total` tasks, or `total` if there is no such task.
uint32_t TaskIndex(std::string_view name, uint32_t maps, uint32_t total) {
  if (name.size() < 2 || (name[0] != 't' && name[0] != 'r') || name.size() > 11) return total;
  uint64_t i = 0;
  for (char c : name.substr(1)) {
    if (c < '0' || c > '9') return total;
    i = i * 10 + static_cast<uint64_t>(c - '0');
  }
  if (name[0] == 't') return i < maps ? static_cast<uint32_t>(i) : total;
  return i < total - maps ? static_cast<uint32_t>(maps + i) : total;
}

std::string TaskName(uint32_t index, uint32_t maps) {
  return index < maps ? "t" + std::to_string(index) : "r" + std::to_string(index - maps);
}

// reply[a][b] as a count; false if it is missing or not a non-negative integer.
bool ReadCount(const json& reply, const char* a, const char* b, uint64_t* out) {
  const auto outer = reply.find(a);
  if (outer == reply.end() || !outer->is_object()) return false;
  const auto inner = outer->find(b);
  if (inner == outer->end() || !inner->is_number_unsigned()) return false;
  *out = inner->get<uint64_t>();
  return true;
}

// Reads the counters of a `status` reply; false if one is missing.
bool ParseStatus(const json& r, DaemonCounts* out) {
  return ReadCount(r, "tasks", "queued", &out->queued) &&
         ReadCount(r, "tasks", "running", &out->running) &&
         ReadCount(r, "tasks", "blocked", &out->blocked) &&
         ReadCount(r, "jobs", "live", &out->live_jobs);
}

}  // namespace

std::string ValidateAgentsParams(const AgentsParams& p) {
  if (p.machines < 1) return "machines: must be at least 1";
  if (p.slots < 1) return "slots: must be at least 1";
  if (!(p.data_fraction > 0 && p.data_fraction <= 1)) return "data-machines: must be in (0, 1]";
  if (p.replicas < 1) return "replicas: must be at least 1";
  if (DataMachines(p) < p.replicas)
    return "data-machines: " + std::to_string(DataMachines(p)) + " data machines cannot hold " +
           std::to_string(p.replicas) + " distinct replicas";
  if (p.submit_jobs && !(p.load > 0 && std::isfinite(p.load)))
    return "load: must be a positive number";
  if (!(p.time_scale > 0 && std::isfinite(p.time_scale))) return "speed: must be positive";
  if (!(p.job_size_mean >= 1 && p.job_size_mean <= 1e6))
    return "job-size-mean: must be in [1, 1e6]";
  if (!(p.alpha > 0 && std::isfinite(p.alpha))) return "alpha: must be a positive number";
  if (!(p.gamma > 0 && std::isfinite(p.gamma))) return "gamma: must be a positive number";
  if (p.racks > p.machines) return "racks: must be at most machines";
  if (p.beta != 0 &&
      !(p.beta >= std::min(p.alpha, p.gamma) && p.beta <= std::max(p.alpha, p.gamma)))
    return "beta: must be between gamma and alpha (or 0: sqrt(alpha * gamma))";
  if (!(p.duration > 0 && std::isfinite(p.duration))) return "duration: must be a positive number";
  if (!(p.heartbeat > 0 && std::isfinite(p.heartbeat))) return "heartbeat: must be positive";
  if (!(p.keepalive >= 0 && std::isfinite(p.keepalive))) return "keepalive: must be a number >= 0";
  if (!(p.drain_limit >= 0)) return "drain-limit: must not be negative";
  if (p.weight_max < 1 || p.weight_max > 1000000)
    return "weight-max: must be between 1 and 1000000";
  return "";
}

double AgentsCapacity(const AgentsParams& p) {
  const double k = DataMachines(p);
  return (p.alpha * k + p.gamma * (p.machines - k)) * p.slots;
}

Emulator::Emulator(const AgentsParams& params, Transport* transport)
    : p_(WithBeta(params)),
      transport_(transport),
      rng_(params.seed),
      weight_rng_(params.seed * 0x9e3779b97f4a7c15ULL + 0x5eed),
      work_rng_(params.seed * 0x9e3779b97f4a7c15ULL + 0x3011),
      data_machines_(DataMachines(params)),
      free_(params.machines, params.slots),
      marked_(params.machines, 0),
      asked_(params.machines, 0),
      due_on_(params.machines, 0) {}

std::string Emulator::MachineName(uint32_t m) const {
  return p_.prefix + "m" + std::to_string(m);
}

double Emulator::Exponential(double rate) {
  return -std::log(rng_.Unit()) / rate;
}

uint32_t Emulator::GeometricSize() {
  if (p_.job_size_mean <= 1) return 1;
  const double extra = std::floor(std::log(rng_.Unit()) / std::log1p(-1 / p_.job_size_mean));
  return static_cast<uint32_t>(1 + std::min(extra, 1e7));
}

std::vector<uint32_t> Emulator::PickReplicas() {
  std::vector<uint32_t> out;
  while (out.size() < p_.replicas) {
    const uint32_t m = rng_.Below(data_machines_);
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  }
  return out;
}

Status Emulator::Start() {
  requests_.clear();
  for (uint32_t m = 0; m < p_.machines; ++m) {
    const std::string rack =
        p_.racks > 1 ? R"(,"rack":"r)" + std::to_string(RackOf(m)) + "\"" : std::string();
    requests_.push_back(R"({"op":"machine_up","machine":")" + MachineName(m) + "\"" + rack +
                        R"(,"slots":)" + std::to_string(p_.slots) + "}");
  }
  stats_.requests += requests_.size();
  ++stats_.batches;
  if (Status s = transport_->Exchange(requests_, &replies_); !s.ok()) return s;
  for (size_t i = 0; i < requests_.size(); ++i) {
    const json r = json::parse(i < replies_.size() ? replies_[i] : "", nullptr, false);
    if (!r.is_object() || r.value("ok", false) != true)
      return Status::FailedPrecondition("scheduler",
                                        "request " + Quote(requests_[i]) + " got " +
                                            Quote(i < replies_.size() ? replies_[i] : "no reply"));
  }
  // Heartbeat phases are spread evenly over one period.
  for (uint32_t m = 0; m < p_.machines; ++m)
    heartbeat_due_.emplace(p_.heartbeat * (m + 1) / p_.machines, m);
  last_beat_.assign(p_.machines, 0);  // machine_up counts as heard
  const double keepalive = p_.keepalive * p_.time_scale;
  if (keepalive > 0)
    for (uint32_t m = 0; m < p_.machines; ++m)
      keepalive_due_.emplace(keepalive * (m + 1) / p_.machines, m);
  next_arrival_ = p_.submit_jobs ? Exponential(p_.load / (p_.job_size_mean + p_.reduces))
                                 : std::numeric_limits<double>::infinity();
  return Status::Ok();
}

Status Emulator::Step(double now) {
  now_ = std::max(now_, now);
  requests_.clear();
  pending_.clear();
  for (std::string& line : preempt_reports_) {
    requests_.push_back(std::move(line));
    pending_.push_back({Pending::kPreempted, 0, 0, false});
  }
  preempt_reports_.clear();
  // Jobs due by now first, so that the machines freed in this batch can be given them.
  QueueArrivals();
  QueueCompletions();
  QueueHeartbeats();
  QueueForeignQueries();
  // Without jobs of its own, the emulator learns from the scheduler whether tasks wait.
  if (!p_.submit_jobs && (!requests_.empty() || now_ >= next_poll_)) {
    requests_.push_back(R"({"op":"status"})");
    pending_.push_back({Pending::kStatus, 0, 0, false});
    next_poll_ = now_ + p_.heartbeat / 4;
  }
  if (requests_.empty()) return Status::Ok();
  stats_.requests += requests_.size();
  ++stats_.batches;
  if (Status s = transport_->Exchange(requests_, &replies_); !s.ok()) return s;
  if (replies_.size() != requests_.size())
    return Status::FailedPrecondition(
        "scheduler", "sent " + std::to_string(requests_.size()) + " requests, got " +
                         std::to_string(replies_.size()) + " replies");
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (Status s = ReadReply(pending_[i], requests_[i], replies_[i]); !s.ok()) return s;
  }
  return Status::Ok();
}

double Emulator::NextEventTime() const {
  double t = std::numeric_limits<double>::infinity();
  if (!completions_.empty()) t = completions_.top().time;
  if (next_arrival_ < p_.duration) t = std::min(t, next_arrival_);
  if (!heartbeat_due_.empty() && TasksWaiting()) t = std::min(t, heartbeat_due_.front().first);
  if (!keepalive_due_.empty()) t = std::min(t, keepalive_due_.front().first);
  if (!p_.submit_jobs) t = std::min(t, next_poll_);
  if (!finished_foreign_.empty() || !preempt_reports_.empty()) t = std::min(t, now_);
  return t;
}

bool Emulator::Finished(double now) const {
  const uint64_t done = p_.submit_jobs ? stats_.tasks_done : stats_.foreign_done;
  if (p_.max_tasks > 0 && done >= p_.max_tasks) return true;
  if (now < p_.duration) return false;
  if (!p_.drain || now >= p_.duration + p_.drain_limit) return true;
  if (p_.submit_jobs) return stats_.tasks_done == stats_.tasks_submitted;
  // Drained: the scheduler, asked since `duration`, holds no task and every job time is in.
  return status_at_ >= p_.duration && last_status_.InSystem() == 0 && finished_foreign_.empty();
}

bool Emulator::TasksWaiting() const {
  return p_.submit_jobs ? unassigned() > 0 : last_status_.queued > 0;
}

// Reports the completions due by now, in time order, each machine's last one followed at
// once by its heartbeat, as a real node reports finished tasks and asks for work in one
// message. (Reporting every completion of a batch before any freed machine asked let the
// batch's size, which follows the host's load, decide which jobs got the slots: naive
// fair sharing's locality moved from 33% to 50-68%.)
void Emulator::QueueCompletions() {
  due_.clear();
  while (!completions_.empty() && completions_.top().time <= now_) {
    const Completion c = completions_.top();
    completions_.pop();
    if (Stale(c)) continue;  // that run was preempted
    due_.push_back(c);
    ++due_on_[c.machine];
  }
  const bool worth_asking = TasksWaiting();
  for (const Completion& c : due_) {
    stats_.max_lag = std::max(stats_.max_lag, now_ - c.time);
    if (c.job == kForeign)
      FinishForeign(c);
    else
      FinishTask(c);
    if (--due_on_[c.machine] == 0 && worth_asking) AskForWork(c.machine);
  }
}

// True if c ends a run that was preempted: its task has been stopped (and perhaps started
// again) since.
bool Emulator::Stale(const Completion& c) const {
  if (c.job == kForeign) return !foreign_[c.task].running || foreign_[c.task].run != c.run;
  const Job& job = jobs_[c.job];
  return c.task >= job.tasks.size() || job.tasks[c.task].state != TaskState::kRunning ||
         job.tasks[c.task].run != c.run;
}

void Emulator::FinishTask(const Completion& c) {
  Job& job = jobs_[c.job];
  job.tasks[c.task].state = TaskState::kDone;
  if (c.task < job.maps) --job.maps_left;
  const bool finished = --job.tasks_left == 0;
  ++stats_.tasks_done;
  stats_.tasks_done_in_arrivals += c.time <= p_.duration;
  stats_.local_done += c.local;
  ++free_[c.machine];
  requests_.push_back(R"({"op":"task_done","job":")" + job.name + R"(","task":")" +
                      TaskName(c.task, job.maps) + R"(","machine":")" + MachineName(c.machine) +
                      "\"}");
  pending_.push_back({Pending::kDone, c.job, c.task, finished});
  if (!finished) return;
  ++stats_.jobs_done;
  stats_.job_delay_sum += c.time - job.arrival;
  stats_.weighted_delay_sum += job.weight * (c.time - job.arrival);
  stats_.weight_sum += job.weight;
  stats_.job_delays.push_back(c.time - job.arrival);
  job_index_.erase(job.name);
  job.tasks = {};  // its replicas are no longer needed
}

// Reports a foreign task done; its job's progress is not the emulator's to check.
void Emulator::FinishForeign(const Completion& c) {
  ForeignRun& run = foreign_[c.task];
  run.running = false;
  ++run.run;
  const std::string& job = run.job;
  const std::string& task = run.task;
  ++stats_.foreign_done;
  stats_.foreign_local_done += c.local;
  ++free_[c.machine];
  // Another client's names may hold characters that JSON escapes.
  requests_.push_back(R"({"op":"task_done","job":)" + json(job).dump() + R"(,"task":)" +
                      json(task).dump() + R"(,"machine":")" + MachineName(c.machine) + "\"}");
  pending_.push_back({Pending::kForeignDone, c.task, 0, false});
}

// Asks the scheduler how long each foreign job that just finished took.
void Emulator::QueueForeignQueries() {
  for (const std::string& job : finished_foreign_) {
    requests_.push_back(R"({"op":"job","job":)" + json(job).dump() + "}");
    pending_.push_back({Pending::kJobQuery, 0, 0, false});
  }
  finished_foreign_.clear();
}

void Emulator::QueueArrivals() {
  const double job_rate = p_.load / (p_.job_size_mean + p_.reduces);
  while (next_arrival_ <= now_ && next_arrival_ < p_.duration) {
    SubmitJob();
    next_arrival_ += Exponential(job_rate);
  }
}

void Emulator::SubmitJob() {
  const auto index = static_cast<uint32_t>(jobs_.size());
  Job job;
  job.name = p_.prefix + "j" + std::to_string(index + 1);
  job.arrival = next_arrival_;
  job.weight = p_.weight_max > 1 ? 1 + weight_rng_.Below(p_.weight_max) : 1;
  job.maps = job.maps_left = GeometricSize();
  job.tasks_left = job.maps + p_.reduces;
  job.tasks.resize(job.tasks_left);
  for (Task& t : job.tasks) {
    t.replicas = PickReplicas();
    t.work = -std::log(work_rng_.Unit());
  }
  requests_.push_back(JobSubmitLine(job));
  pending_.push_back({Pending::kSubmit, index, job.tasks_left, false});
  ++stats_.jobs_submitted;
  stats_.tasks_submitted += job.tasks_left;
  job_index_.emplace(job.name, index);
  jobs_.push_back(std::move(job));
}

std::string Emulator::JobSubmitLine(const Job& job) const {
  std::string line = R"({"op":"job_submit","job":")" + job.name + R"(","weight":)" +
                     std::to_string(job.weight) + R"(,"tasks":[)";
  for (uint32_t i = 0; i < job.tasks.size(); ++i) {
    line.append(i ? R"(,{"task":")" : R"({"task":")").append(TaskName(i, job.maps));
    line.append(R"(","replicas":[)");
    for (size_t r = 0; r < job.tasks[i].replicas.size(); ++r)
      line.append(r ? ",\"" : "\"").append(MachineName(job.tasks[i].replicas[r])).append("\"");
    line.append(i < job.maps ? "]}" : R"(],"kind":"reduce"})");
  }
  return line + "]}";
}

void Emulator::MarkForHeartbeat(uint32_t machine) {
  if (marked_[machine]) return;
  marked_[machine] = 1;
  to_heartbeat_.push_back(machine);
}

// A heartbeat of machine m offering its free slots, if it has any.
void Emulator::AskForWork(uint32_t machine) {
  if (free_[machine] > 0) SendHeartbeat(machine);
}

// A heartbeat of machine m offering its free slots (perhaps none), once per batch.
void Emulator::SendHeartbeat(uint32_t machine) {
  if (asked_[machine]) return;
  asked_[machine] = 1;
  asked_list_.push_back(machine);
  last_beat_[machine] = now_;
  requests_.push_back(R"({"op":"heartbeat","machine":")" + MachineName(machine) +
                      R"(","free_slots":)" + std::to_string(free_[machine]) + "}");
  pending_.push_back({Pending::kHeartbeat, machine, free_[machine], false});
}

void Emulator::QueueHeartbeats() {
  while (!heartbeat_due_.empty() && heartbeat_due_.front().first <= now_) {
    const uint32_t m = heartbeat_due_.front().second;
    heartbeat_due_.pop();
    heartbeat_due_.emplace(now_ + p_.heartbeat, m);
    if (free_[m] > 0) MarkForHeartbeat(m);
  }
  // With nothing left to assign, a heartbeat could only come back empty.
  const bool worth_asking = TasksWaiting();
  for (uint32_t m : to_heartbeat_) {
    marked_[m] = 0;
    if (worth_asking) AskForWork(m);
  }
  to_heartbeat_.clear();
  QueueKeepalives();
  for (uint32_t m : asked_list_) asked_[m] = 0;
  asked_list_.clear();
}

// Every machine, full or idle, heartbeats at least once per keepalive period (scheduler
// clock), so the daemon can tell a machine that is silent because it is gone.
void Emulator::QueueKeepalives() {
  const double period = p_.keepalive * p_.time_scale;
  while (!keepalive_due_.empty() && keepalive_due_.front().first <= now_) {
    const uint32_t m = keepalive_due_.front().second;
    keepalive_due_.pop();
    if (now_ - last_beat_[m] >= period * 0.999) SendHeartbeat(m);  // else it spoke lately
    keepalive_due_.emplace(last_beat_[m] + period, m);
  }
}

Status Emulator::ReadReply(const Pending& p, const std::string& request, const std::string& reply) {
  const json r = json::parse(reply, nullptr, false);
  if (p.kind == Pending::kJobQuery) {
    ReadJobQuery(r);  // a job that is already forgotten is not an error
    return Status::Ok();
  }
  if (DropCancelled(p, request, r)) return Status::Ok();
  if (!r.is_object() || r.value("ok", false) != true)
    return Status::FailedPrecondition("scheduler",
                                      "request " + Quote(request) + " got " + Quote(reply));
  switch (p.kind) {
    case Pending::kSubmit:
      if (r.value("tasks", uint64_t{0}) != p.b)
        Anomaly("job_submit acknowledged a different task count", request, reply);
      break;
    case Pending::kDone:
      if (!r.contains("job_done") || r["job_done"] != p.job_finished)
        Anomaly(
            std::string("task_done should say \"job_done\":") + (p.job_finished ? "true" : "false"),
            request, reply);
      break;
    case Pending::kForeignDone:
      ReadForeignDone(p, r);
      break;
    case Pending::kStatus:
      if (!ParseStatus(r, &last_status_))
        return Status::FailedPrecondition("scheduler",
                                          "status reply lacks counters: " + Quote(reply));
      status_at_ = now_;
      break;
    case Pending::kJobQuery:
      break;  // read above
    case Pending::kHeartbeat: {
      // The runs it is told to stop end first, and free their slots for the assignments.
      const uint32_t stopped =
          r.contains("preempt") ? StopPreempted(p.a, r["preempt"], request, reply) : 0;
      StartAssigned(p.a, p.b + stopped, r.contains("assign") ? r["assign"] : json(), request,
                    reply);
      break;
    }
    case Pending::kPreempted:
      if (r.value("requeued", false) != true && r.value("stale", false) != true)
        Anomaly("task_preempted should say \"requeued\" or \"stale\"", request, reply);
      break;
  }
  return Status::Ok();
}

// A task_done refused because an operator cancelled the task's job while it ran: the
// task is dropped (its slot is already free), counted and its job remembered, and the
// run goes on.
bool Emulator::DropCancelled(const Pending& p, const std::string& request, const json& reply) {
  if (p.kind != Pending::kDone && p.kind != Pending::kForeignDone) return false;
  if (!reply.is_object() || !reply.contains("error") || !reply["error"].is_object()) return false;
  const std::string message = reply["error"].value("message", std::string());
  if (message.find("is no longer live (cancelled)") == std::string::npos) return false;
  ++stats_.tasks_dropped;
  if (p.kind == Pending::kForeignDone) foreign_free_.push_back(p.a);
  const json req = json::parse(request, nullptr, false);
  const std::string job = req.is_object() ? req.value("job", std::string()) : std::string();
  if (std::find(cancelled_jobs_.begin(), cancelled_jobs_.end(), job) == cancelled_jobs_.end())
    cancelled_jobs_.push_back(job);
  return true;
}

// A foreign task's report is answered: free its entry; if its job is done, ask its time.
void Emulator::ReadForeignDone(const Pending& p, const json& reply) {
  if (reply.value("job_done", false) == true) {
    ++stats_.foreign_jobs_done;
    finished_foreign_.push_back(foreign_[p.a].job);
  }
  foreign_free_.push_back(p.a);
}

// The scheduler's `job` reply for a finished foreign job: its submit-to-done time on the
// scheduler's clock, in emulated seconds.
void Emulator::ReadJobQuery(const json& reply) {
  const bool done = reply.is_object() && reply.value("ok", false) == true &&
                    reply.value("state", std::string()) == "done" && reply.contains("seconds") &&
                    reply["seconds"].is_number();
  if (!done) {
    ++stats_.foreign_jobs_unmeasured;
    return;
  }
  stats_.foreign_job_delays.push_back(reply["seconds"].get<double>() * p_.time_scale);
}

void Emulator::StartAssigned(uint32_t machine, uint32_t offered, const json& assign,
                             const std::string& request, const std::string& reply) {
  if (!assign.is_array()) return Anomaly("heartbeat reply has no \"assign\" array", request, reply);
  if (assign.size() > offered) Anomaly("more assignments than free slots", request, reply);
  for (size_t i = 0; i < assign.size() && i < offered; ++i) {
    const json& a = assign[i];
    std::string problem;
    if (!a.is_object() || !a.value("job", json()).is_string() ||
        !a.value("task", json()).is_string() || !a.value("local", json()).is_boolean())
      problem = "an assignment needs string job, string task and boolean local";
    else
      StartOne(machine, a["job"].get<std::string>(), a["task"].get<std::string>(),
               a["local"].get<bool>(), a.value("rack", json(false)) == json(true), &problem);
    if (!problem.empty()) Anomaly(problem, request, reply);
  }
}

bool Emulator::StartOne(uint32_t machine, std::string_view job_name, std::string_view task_name,
                        bool local, bool rack, std::string* problem) {
  const auto it = job_index_.find(std::string(job_name));
  if (it == job_index_.end() && !OwnJobName(job_name)) {
    StartForeign(machine, job_name, task_name, local, rack);
    return true;
  }
  if (it == job_index_.end()) {
    *problem = "assigned a task of finished job '" + std::string(job_name) + "'";
    return false;
  }
  Job& job = jobs_[it->second];
  const auto total = static_cast<uint32_t>(job.tasks.size());
  const uint32_t t = TaskIndex(task_name, job.maps, total);
  if (t == total || job.tasks[t].state != TaskState::kQueued) {
    *problem = "assigned task '" + std::string(task_name) + "', which is unknown, running or done";
    return false;
  }
  if (t >= job.maps && job.maps_left > 0) *problem = "assigned a reduce before its maps are done";
  const auto& replicas = job.tasks[t].replicas;
  const bool really_local = std::find(replicas.begin(), replicas.end(), machine) != replicas.end();
  if (really_local != local) *problem = "\"local\" disagrees with the task's replicas";
  Task& task = job.tasks[t];
  task.state = TaskState::kRunning;
  task.machine = machine;
  task.started = now_;
  --free_[machine];
  ++stats_.tasks_assigned;
  stats_.local_assigned += local;
  stats_.rack_assigned += rack;
  // The duration follows where the input really is; one draw per task, read at each
  // level's rate, so the same task is faster local (as in locsched-sim).
  const double rate = RateOn(machine, replicas);
  completions_.push({now_ + task.work / rate, machine, it->second, t, task.run, really_local});
  return true;
}

uint32_t Emulator::RackOf(uint32_t machine) const {
  return static_cast<uint32_t>(uint64_t{machine} * p_.racks / p_.machines);
}

// The rate of a task with input on `replicas` run on `machine`: alpha on a holder, beta
// in a holder's rack (with racks), gamma elsewhere.
double Emulator::RateOn(uint32_t machine, const std::vector<uint32_t>& replicas) const {
  if (std::find(replicas.begin(), replicas.end(), machine) != replicas.end()) return p_.alpha;
  if (p_.racks > 1)
    for (const uint32_t h : replicas)
      if (RackOf(h) == RackOf(machine)) return p_.beta;
  return p_.gamma;
}

// True if `name` is one this emulator gave a job: prefix, 'j', then 1..jobs submitted.
bool Emulator::OwnJobName(std::string_view name) const {
  if (name.size() <= p_.prefix.size() + 1 || name.substr(0, p_.prefix.size()) != p_.prefix ||
      name[p_.prefix.size()] != 'j')
    return false;
  const std::string_view digits = name.substr(p_.prefix.size() + 1);
  if (digits.size() > 9 || digits[0] == '0') return false;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n >= 1 && n <= jobs_.size();
}

// A task of a job this emulator did not submit (another client's, or one left
// by an earlier run): a cluster runs what it is given, so it runs and is reported.
void Emulator::StartForeign(uint32_t machine, std::string_view job, std::string_view task,
                            bool local, bool rack) {
  uint32_t slot;
  if (foreign_free_.empty()) {
    slot = static_cast<uint32_t>(foreign_.size());
    foreign_.emplace_back();
  } else {
    slot = foreign_free_.back();
    foreign_free_.pop_back();
  }
  ForeignRun& run = foreign_[slot];
  run.job = job;
  run.task = task;
  run.machine = machine;
  run.started = now_;
  run.running = true;
  --free_[machine];
  ++stats_.foreign_assigned;
  // Its replicas are unknown here, so the scheduler's "local" (and "rack") decides the
  // duration.
  const double rate = local ? p_.alpha : rack ? p_.beta : p_.gamma;
  completions_.push({now_ + Exponential(rate), machine, kForeign, slot, run.run, local});
}

// Stops the runs a heartbeat reply lists under "preempt" on `machine`; returns how many
// slots that freed. A run no longer here (it ended meanwhile) is ignored and counted.
uint32_t Emulator::StopPreempted(uint32_t machine, const json& stops, const std::string& request,
                                 const std::string& reply) {
  if (!stops.is_array()) {
    Anomaly("\"preempt\" must be an array", request, reply);
    return 0;
  }
  uint32_t stopped = 0;
  for (const json& s : stops) {
    if (!s.is_object() || !s.value("job", json()).is_string() ||
        !s.value("task", json()).is_string()) {
      Anomaly("a stop order needs string job and task", request, reply);
      continue;
    }
    const std::string job = s["job"].get<std::string>(), task = s["task"].get<std::string>();
    if (StopOwn(machine, job, task) || StopForeign(machine, job, task)) {
      ++stopped;
      ReportPreempted(machine, job, task);
    } else {
      ++stats_.stops_ignored;
    }
  }
  return stopped;
}

// Stops the emulator's own task job/task if it runs on `machine`: it waits to be assigned
// again, and its pending completion is void.
bool Emulator::StopOwn(uint32_t machine, const std::string& job_name, const std::string& task) {
  const auto it = job_index_.find(job_name);
  if (it == job_index_.end()) return false;
  Job& job = jobs_[it->second];
  const auto total = static_cast<uint32_t>(job.tasks.size());
  const uint32_t t = TaskIndex(task, job.maps, total);
  if (t == total || job.tasks[t].state != TaskState::kRunning || job.tasks[t].machine != machine)
    return false;
  Task& run = job.tasks[t];
  run.state = TaskState::kQueued;
  ++run.run;
  ++free_[machine];
  ++own_preempted_;
  ++stats_.tasks_preempted;
  stats_.preempted_task_s += now_ - run.started;
  return true;
}

// Stops another client's task if it runs on `machine`.
bool Emulator::StopForeign(uint32_t machine, const std::string& job, const std::string& task) {
  for (uint32_t slot = 0; slot < foreign_.size(); ++slot) {
    ForeignRun& run = foreign_[slot];
    if (!run.running || run.machine != machine || run.job != job || run.task != task) continue;
    run.running = false;
    ++run.run;
    foreign_free_.push_back(slot);
    ++free_[machine];
    ++stats_.tasks_preempted;
    stats_.preempted_task_s += now_ - run.started;
    return true;
  }
  return false;
}

// The machine confirms the stop in the next batch (this one's replies are being read).
void Emulator::ReportPreempted(uint32_t machine, const std::string& job, const std::string& task) {
  preempt_reports_.push_back(R"({"op":"task_preempted","job":)" + json(job).dump() + R"(,"task":)" +
                             json(task).dump() + R"(,"machine":")" + MachineName(machine) + "\"}");
}

void Emulator::Anomaly(const std::string& what, const std::string& request,
                       const std::string& reply) {
  ++stats_.anomalies;
  if (anomaly_log_.size() < kMaxLoggedAnomalies)
    anomaly_log_.push_back(what + "\n  request: " + Quote(request) +
                           "\n  reply:   " + Quote(reply));
}

Status Emulator::QueryStatus(DaemonCounts* out) {
  const std::vector<std::string> request{R"({"op":"status"})"};
  std::vector<std::string> reply;
  ++stats_.requests;
  ++stats_.batches;
  if (Status s = transport_->Exchange(request, &reply); !s.ok()) return s;
  const json r = json::parse(reply.empty() ? "" : reply[0], nullptr, false);
  const std::string quoted = Quote(reply.empty() ? "no reply" : reply[0]);
  if (!r.is_object() || r.value("ok", false) != true)
    return Status::FailedPrecondition("scheduler", "request {\"op\":\"status\"} got " + quoted);
  if (!ParseStatus(r, out))
    return Status::FailedPrecondition(
        "scheduler", "status reply lacks tasks.queued/running/blocked or jobs.live: " + quoted);
  return Status::Ok();
}

}  // namespace locsched
