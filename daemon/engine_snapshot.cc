// Engine::Save and Engine::Load: the state as snapshot records, one JSON
// object per record. Load rebuilds through the core's own operations (submit,
// assign, finish), so every derived count and queue is as consistent as after
// the events themselves; only queue order inside a queue may differ.
#include <simdjson.h>

#include <algorithm>
#include <variant>

#include "daemon/engine.h"

namespace locsched {

namespace {

// A task's life in a snapshot record.
enum SavedState : int { kSavedWaiting = 0, kSavedRunning = 1, kSavedDone = 2 };
// A machine's flags in a snapshot record.
enum SavedFlags : int { kSavedDown = 1, kSavedDraining = 2 };

int SavedStateOf(TaskState s) {
  return s == TaskState::kRunning ? kSavedRunning
         : s == TaskState::kDone  ? kSavedDone
                                  : kSavedWaiting;
}

Status Bad(const std::string& what) {
  return Status::InvalidArgument("snapshot", what);
}

}  // namespace

struct Engine::LoadScratch {
  std::vector<uint64_t> policy_rng;                 // restored last: loading draws from it
  std::vector<std::pair<MachineId, int>> flags;     // machines down or draining
  std::vector<std::pair<TaskId, uint32_t>> queues;  // queued tasks and the queue they held
};

// Record order: counters, machines (in id order), live jobs (in arrival
// order), then the finished-job history (oldest first).
void Engine::Save(const Sink& emit) const {
  SaveCounters(emit);
  std::string rec;
  const Cluster& c = sched_.cluster();
  for (MachineId m = 0; m < c.num_machines(); ++m) {
    SaveMachine(m, &rec);
    emit(rec);
  }
  for (JobId j : LiveJobs()) {
    SaveJob(j, &rec);
    emit(rec);
  }
  for (const Finished& f : history_) {
    rec.clear();
    JsonWriter(&rec)
        .BeginObject()
        .Field("f", f.name)
        .Field("o", static_cast<uint32_t>(f.outcome))
        .Field("n", f.tasks)
        .Field("s", f.seconds)
        .Field("e", f.ended_at)
        .Field("d", f.done)
        .Field("l", f.local)
        .EndObject();
    emit(rec);
  }
}

// {"m":name,"rack":id,"slots":n,"up":b,"drain":b,"lost":b(,"stops":[[job,task],...])}:
// stops are the preempted runs the machine is yet to be told to stop.
void Engine::SaveMachine(MachineId m, std::string* rec) const {
  const Machine& machine = sched_.cluster().machine(m);
  rec->clear();
  JsonWriter w(rec);
  w.BeginObject().Field("m", machine_names_.Name(m)).Field("rack", machine.rack);
  w.Field("slots", machine.slots).Field("up", machine.up).Field("drain", machine.draining);
  w.Field("lost", lost(m));
  if (m < stops_.size() && !stops_[m].empty()) {
    w.Key("stops").BeginArray();
    for (const StopOrder& s : stops_[m]) w.BeginArray().String(s.job).String(s.task).EndArray();
    w.EndArray();
  }
  w.EndObject();
}

void Engine::SaveCounters(const Sink& emit) const {
  std::vector<std::string_view> racks(rack_ids_.size());
  for (const auto& [name, id] : rack_ids_) racks[id] = name;
  const RateEstimator::Observed o = rates_.observed();
  std::string rec;
  JsonWriter w(&rec);
  w.BeginObject().Key("engine").BeginArray();
  for (uint64_t v :
       {jobs_submitted_, jobs_done_, jobs_failed_, jobs_cancelled_, tasks_done_, tasks_failed_,
        tasks_requeued_, assigned_local_, assigned_remote_, assigned_rack_})
    w.Uint(v);
  w.EndArray().Key("rates").BeginArray();
  w.Double(o.local_sum).Double(o.local_weight).Uint(o.local_samples);
  w.Double(o.remote_sum).Double(o.remote_weight).Uint(o.remote_samples);
  w.Double(o.rack_sum).Double(o.rack_weight).Uint(o.rack_samples);
  w.EndArray().Key("racks").BeginArray();
  for (std::string_view r : racks) w.String(r);
  w.EndArray().Key("policy_rng").BeginArray();
  for (uint64_t word : sched_.policy().RandomState()) w.Uint(word);
  w.EndArray().Key("preempt").BeginArray();
  w.Uint(tasks_preempted_).Uint(preempt_reports_).Double(preempted_task_s_);
  w.EndArray().EndObject();
  emit(rec);
}

// {"j":name,"w":weight,"at":submitted,("q":queue,)("u":user,)"t":[[name,[replicas],kind,
// size,duration,state,attempts,machine,started(,queue)], ...]} with tasks in submission
// order; machine is where a running task runs or a finished one ran (null otherwise). "q",
// the job's tenant queue (its leaf's name), is written with tenancy on; "u", its user, when
// it has one. The task's trailing queue is the policy's machine queue it waits in.
void Engine::SaveJob(JobId j, std::string* rec) const {
  const Cluster& c = sched_.cluster();
  const JobMeta& meta = jobs_[j];
  rec->clear();
  JsonWriter w(rec);
  w.BeginObject().Field("j", meta.name).Field("w", c.job(j).weight);
  w.Field("at", meta.submitted_at);
  if (tenancy()) w.Field("q", QueueName(j));
  if (const uint32_t user = c.job(j).user; user != kNoId) w.Field("u", sched_.UserName(user));
  w.Key("t").BeginArray();
  for (TaskId t : c.job(j).tasks) {
    const Task& task = c.task(t);
    w.BeginArray().String(meta.tasks.Name(task.position)).BeginArray();
    for (MachineId m : task.replicas) w.Uint(m);
    w.EndArray().Uint(task.kind == TaskKind::kReduce ? 1 : 0);
    w.Double(task.size).Double(task.duration);
    w.Uint(static_cast<uint64_t>(SavedStateOf(task.state))).Uint(task.attempts);
    if (task.state == TaskState::kRunning)
      w.Uint(task.machine).Double(task_started_[t]);
    else if (task.state == TaskState::kDone && task.machine != kNoId)
      w.Uint(task.machine).Null();  // where it ran
    else
      w.Null().Null();
    if (task.state == TaskState::kQueued) w.Uint(task.queue);
    w.EndArray();
  }
  w.EndArray().EndObject();
}

// ---- loading ---------------------------------------------------------------
// Each record is parsed (simdjson; a snapshot at 100,000 tasks is ~5 MB) into
// a plain Saved* struct, then applied through the core's own operations.

struct SavedCounters {
  uint64_t values[10] = {};  // the order SaveCounters writes (a snapshot without racks: 9)
  RateEstimator::Observed rates;
  std::vector<std::string> racks;
  std::vector<uint64_t> policy_rng;
  uint64_t preempted = 0, preempt_reports = 0;  // "preempt": absent from older snapshots
  double preempted_s = 0;
};

struct SavedMachine {
  std::string name;
  uint32_t rack, slots;
  bool up, draining;
  bool lost;                                               // absent from older snapshots: false
  std::vector<std::pair<std::string, std::string>> stops;  // [job, task] stop orders owed
};

struct SavedTask {
  std::string_view name;
  uint32_t first_replica, replicas;  // a range of SavedJob::replicas
  bool reduce;
  double size, duration;
  int state;
  uint32_t attempts;
  MachineId machine = kNoId;  // while running, or where it ran once done
  double started = 0;         // while running
  uint32_t queue = kNoId;     // while queued
};

struct SavedJob {
  std::string name;
  double weight, submitted_at;
  std::vector<SavedTask> tasks;
  std::vector<MachineId> replicas;
  std::string queue, user;  // q, u: absent without tenancy, without a user, or older
};

struct SavedFinished {
  std::string name;
  JobOutcome outcome;
  uint32_t tasks;
  double seconds;
  double ended_at = 0;  // e, d, l: absent from older snapshots
  uint32_t done = 0, local = 0;
};

namespace {

using simdjson::dom::array;
using simdjson::dom::element;

uint32_t U32(element e) {
  const uint64_t v = e;
  if (v > UINT32_MAX) throw simdjson::simdjson_error(simdjson::NUMBER_OUT_OF_RANGE);
  return static_cast<uint32_t>(v);
}

// [name,[replicas],kind,size,duration,state,attempts,machine,started(,queue)]
SavedTask ParseTask(array t, std::vector<MachineId>* replicas) {
  SavedTask task;
  size_t i = 0;
  for (element e : t) {
    switch (i++) {
      case 0:
        task.name = std::string_view(e);
        break;
      case 1:
        task.first_replica = static_cast<uint32_t>(replicas->size());
        for (element m : array(e)) replicas->push_back(U32(m));
        task.replicas = static_cast<uint32_t>(replicas->size()) - task.first_replica;
        break;
      case 2:
        task.reduce = uint64_t(e) == 1;
        break;
      case 3:
        task.size = double(e);
        break;
      case 4:
        task.duration = double(e);
        break;
      case 5:
        task.state = static_cast<int>(uint64_t(e));
        break;
      case 6:
        task.attempts = U32(e);
        break;
      case 7:
        if (!e.is_null()) task.machine = U32(e);
        break;
      case 8:
        if (!e.is_null()) task.started = double(e);
        break;
      case 9:
        task.queue = U32(e);
        break;
    }
  }
  if (i < 9) throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
  return task;
}

using SavedRecord = std::variant<SavedCounters, SavedMachine, SavedJob, SavedFinished>;

SavedCounters ParseCounters(element r) {
  SavedCounters c;
  size_t i = 0;
  for (element v : array(r["engine"])) {
    if (i == 10) throw simdjson::simdjson_error(simdjson::INDEX_OUT_OF_BOUNDS);
    c.values[i++] = uint64_t(v);
  }
  std::vector<double> x;
  for (element v : array(r["rates"])) x.push_back(double(v));
  // A snapshot without the rack level has 9 counters and 6 rate figures.
  if ((i != 9 && i != 10) || (x.size() != 6 && x.size() != 9))
    throw simdjson::simdjson_error(simdjson::INDEX_OUT_OF_BOUNDS);
  x.resize(9, 0);
  c.rates = RateEstimator::Observed{x[0],
                                    x[1],
                                    x[3],
                                    x[4],
                                    static_cast<uint64_t>(x[2]),
                                    static_cast<uint64_t>(x[5]),
                                    x[6],
                                    x[7],
                                    static_cast<uint64_t>(x[8])};
  for (element v : array(r["racks"])) c.racks.emplace_back(std::string_view(v));
  for (element v : array(r["policy_rng"])) c.policy_rng.push_back(uint64_t(v));
  if (r["preempt"].error() == simdjson::SUCCESS) {
    array p = r["preempt"];
    if (p.size() != 3) throw simdjson::simdjson_error(simdjson::INDEX_OUT_OF_BOUNDS);
    c.preempted = uint64_t(p.at(0));
    c.preempt_reports = uint64_t(p.at(1));
    c.preempted_s = double(p.at(2));
  }
  return c;
}

// One record, by its first key: "engine", "m" (machine), "j" (job) or "f" (finished).
Status ParseRecord(element r, SavedRecord* out) {
  if (r["engine"].error() == simdjson::SUCCESS) {
    *out = ParseCounters(r);
  } else if (r["m"].error() == simdjson::SUCCESS) {
    const bool lost = r["lost"].error() == simdjson::SUCCESS && bool(r["lost"]);
    SavedMachine m{std::string(std::string_view(r["m"])),
                   U32(r["rack"]),
                   U32(r["slots"]),
                   bool(r["up"]),
                   bool(r["drain"]),
                   lost,
                   {}};
    if (r["stops"].error() == simdjson::SUCCESS)
      for (element pair : array(r["stops"])) {
        array names = pair;
        if (names.size() != 2) return Bad("a stop order must be [job, task]");
        m.stops.emplace_back(std::string_view(names.at(0)), std::string_view(names.at(1)));
      }
    *out = std::move(m);
  } else if (r["j"].error() == simdjson::SUCCESS) {
    SavedJob job{
        std::string(std::string_view(r["j"])), double(r["w"]), double(r["at"]), {}, {}, {}, {}};
    for (element t : array(r["t"])) job.tasks.push_back(ParseTask(t, &job.replicas));
    if (r["q"].error() == simdjson::SUCCESS) job.queue = std::string_view(r["q"]);
    if (r["u"].error() == simdjson::SUCCESS) job.user = std::string_view(r["u"]);
    *out = std::move(job);
  } else if (r["f"].error() == simdjson::SUCCESS) {
    const uint64_t outcome = r["o"];
    if (outcome > static_cast<uint64_t>(JobOutcome::kCancelled)) return Bad("bad outcome");
    SavedFinished f{std::string(std::string_view(r["f"])), static_cast<JobOutcome>(outcome),
                    U32(r["n"]), double(r["s"])};
    if (r["e"].error() == simdjson::SUCCESS) f.ended_at = double(r["e"]);
    if (r["d"].error() == simdjson::SUCCESS) f.done = U32(r["d"]);
    if (r["l"].error() == simdjson::SUCCESS) f.local = U32(r["l"]);
    if (f.local > f.done || f.done > f.tasks) return Bad("finished job counts disagree");
    *out = std::move(f);
  } else {
    return Bad("unknown record");
  }
  return Status::Ok();
}

}  // namespace

// Machines first (ids are positions), then jobs, then the machines' down and
// draining flags (so tasks running on a draining machine can be placed).
Status Engine::Load(const std::vector<std::string>& records) {
  if (sched_.cluster().num_machines() != 0 || job_ids_.size() != 0)
    return Status::FailedPrecondition("snapshot", "loaded into an engine that has state");
  LoadScratch scratch;
  simdjson::dom::parser parser;
  for (size_t i = 0; i < records.size(); ++i) {
    SavedRecord rec;
    Status s;
    try {
      s = ParseRecord(parser.parse(records[i]), &rec);
    } catch (const simdjson::simdjson_error& e) {
      s = Bad(e.what());
    }
    if (s.ok()) s = Apply(rec, &scratch);
    if (!s.ok())
      return Status::InvalidArgument("snapshot record " + std::to_string(i + 1), s.message());
  }
  for (const auto& [m, f] : scratch.flags) {
    if (f & kSavedDown) sched_.MachineDown(m);
    if (f & kSavedDraining) sched_.SetDraining(m, true);
  }
  // Reduces released during the load were routed afresh; put each where it was.
  for (const auto& [t, queue] : scratch.queues)
    if (sched_.cluster().task(t).state == TaskState::kQueued &&
        sched_.cluster().task(t).queue != queue)
      sched_.Reroute(t, queue);
  sched_.policy().SetRandomState(scratch.policy_rng);
  PushRates();
  return Status::Ok();
}

Status Engine::Apply(const SavedRecord& rec, LoadScratch* scratch) {
  if (const auto* c = std::get_if<SavedCounters>(&rec)) {
    LoadCounters(*c);
    scratch->policy_rng = c->policy_rng;
  }
  if (const auto* m = std::get_if<SavedMachine>(&rec)) return LoadMachine(*m, scratch);
  if (const auto* j = std::get_if<SavedJob>(&rec)) return LoadJob(*j, scratch);
  if (const auto* f = std::get_if<SavedFinished>(&rec)) LoadFinished(*f);
  return Status::Ok();
}

void Engine::LoadFinished(const SavedFinished& f) {
  Remember(Finished{f.name, f.outcome, f.tasks, f.seconds, f.ended_at, f.done, f.local});
}

void Engine::LoadCounters(const SavedCounters& c) {
  uint64_t* counters[] = {&jobs_submitted_,  &jobs_done_,    &jobs_failed_,    &jobs_cancelled_,
                          &tasks_done_,      &tasks_failed_, &tasks_requeued_, &assigned_local_,
                          &assigned_remote_, &assigned_rack_};
  for (size_t i = 0; i < std::size(counters); ++i) *counters[i] = c.values[i];
  tasks_preempted_ = c.preempted;
  preempt_reports_ = c.preempt_reports;
  preempted_task_s_ = c.preempted_s;
  rates_.Restore(c.rates);
  for (const std::string& rack : c.racks) RackId(rack);
}

Status Engine::LoadMachine(const SavedMachine& m, LoadScratch* scratch) {
  if (machine_names_.size() >= NameIndex::kMaxNames)
    return Bad("more than " + std::to_string(NameIndex::kMaxNames) + " machines");
  if (m.name.empty() || m.slots == 0 || !machine_names_.Add(m.name))
    return Bad("machine '" + m.name + "' is empty, duplicate or has no slots");
  const MachineId id = sched_.AddMachine(Machine{m.rack, m.slots});
  liveness_.push_back(Liveness{clock_.Now(), m.lost && !m.up});  // heard: at the load
  if (!m.stops.empty()) {
    stops_.resize(id + 1);
    for (const auto& [job, task] : m.stops) stops_[id].push_back(StopOrder{job, task});
  }
  const int f = (m.up ? 0 : kSavedDown) | (m.draining ? kSavedDraining : 0);
  if (f) scratch->flags.emplace_back(id, f);
  return Status::Ok();
}

// Submits the job with every task routed to the queue it held (or anywhere,
// if it was not queued), then replays its finished and running tasks.
Status Engine::LoadJob(const SavedJob& job, LoadScratch* scratch) {
  if (job.tasks.empty() || LiveJob(job.name) || job.tasks.size() > NameIndex::kMaxNames)
    return Bad("job '" + job.name + "' empty, duplicate or too large");
  NameIndex names;
  names.Reserve(job.tasks.size());
  std::vector<TaskSpec> specs(job.tasks.size());
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    const SavedTask& t = job.tasks[i];
    if (!names.Add(t.name)) return Bad("duplicate task in job '" + job.name + "'");
    const auto replicas = std::span(job.replicas).subspan(t.first_replica, t.replicas);
    for (MachineId m : replicas)
      if (m >= sched_.cluster().num_machines()) return Bad("replica out of range");
    specs[i] = TaskSpec{replicas, t.reduce ? TaskKind::kReduce : TaskKind::kMap, t.size, t.duration,
                        t.queue};
  }
  JobTenancy placement;  // as recorded; no rule is asked again (RecordedLeaf)
  if (!job.queue.empty()) placement.queue = RecordedLeaf(job.queue);
  if (!job.user.empty()) placement.user = sched_.InternUser(job.user);
  const JobId j = sched_.SubmitJob(job.weight, specs, placement);
  IndexJob(job.name, j, std::move(names), job.submitted_at);
  return LoadTasks(j, job, scratch);
}

// Three passes over the tasks: finished maps, finished reduces (runnable once
// the maps are done), then running ones; the start counts last.
Status Engine::LoadTasks(JobId j, const SavedJob& job, LoadScratch* scratch) {
  const std::vector<TaskId> ids = sched_.cluster().job(j).tasks;
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < ids.size(); ++i) {
      const SavedTask& t = job.tasks[i];
      if (pass < 2 ? (t.state != kSavedDone || t.reduce != (pass == 1)) : t.state != kSavedRunning)
        continue;
      if (sched_.cluster().task(ids[i]).state != TaskState::kQueued)
        return Bad("task " + std::to_string(i) + " of job '" + job.name + "' cannot start");
      // A finished task recorded without its machine (an older snapshot) passes
      // through machine 0 and then forgets it.
      const bool unplaced = t.state == kSavedDone && t.machine == kNoId;
      const MachineId m = unplaced ? 0 : t.machine;
      if (m >= sched_.cluster().num_machines()) return Bad("machine id out of range");
      sched_.AssignTask(ids[i], m);
      if (t.state == kSavedRunning) {
        task_started_[ids[i]] = t.started;
        sched_.SetStarted(ids[i], t.started);
      }
      if (t.state == kSavedDone && sched_.Finish(ids[i]).job_done)
        return Bad("job '" + job.name + "' has every task done");
      if (unplaced) sched_.ForgetPlacement(ids[i]);
    }
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    sched_.SetAttempts(ids[i], job.tasks[i].attempts);
    if (job.tasks[i].queue != kNoId && job.tasks[i].reduce)
      scratch->queues.emplace_back(ids[i], job.tasks[i].queue);
  }
  return Status::Ok();
}

}  // namespace locsched
