// Engine::Save and Engine::Load: the state as snapshot records, one JSON
// object per record. Load rebuilds through the core's own operations (submit,
// assign, finish), so every derived count and queue is as consistent as after
// the events themselves; only queue order inside a queue may differ.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "daemon/engine.h"

namespace locsched {

namespace {

using nlohmann::json;

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
    const Machine& machine = c.machine(m);
    rec.clear();
    JsonWriter(&rec)
        .BeginObject()
        .Field("m", machine.name)
        .Field("rack", machine.rack)
        .Field("slots", machine.slots)
        .Field("up", machine.up)
        .Field("drain", machine.draining)
        .EndObject();
    emit(rec);
  }
  std::vector<JobId> live;
  for (const auto& [name, j] : job_ids_) live.push_back(j);
  std::sort(live.begin(), live.end(),
            [&](JobId a, JobId b) { return c.job(a).seq < c.job(b).seq; });
  for (JobId j : live) {
    SaveJob(j, &rec);
    emit(rec);
  }
  for (const std::string& name : finished_order_) {
    const Finished& f = finished_.at(name);
    rec.clear();
    JsonWriter(&rec)
        .BeginObject()
        .Field("f", name)
        .Field("o", static_cast<uint32_t>(f.outcome))
        .Field("n", f.tasks)
        .Field("s", f.seconds)
        .EndObject();
    emit(rec);
  }
}

void Engine::SaveCounters(const Sink& emit) const {
  std::vector<std::string_view> racks(rack_ids_.size());
  for (const auto& [name, id] : rack_ids_) racks[id] = name;
  const RateEstimator::Observed o = rates_.observed();
  std::string rec;
  JsonWriter w(&rec);
  w.BeginObject().Key("engine").BeginArray();
  for (uint64_t v : {jobs_submitted_, jobs_done_, jobs_failed_, jobs_cancelled_, tasks_done_,
                     tasks_failed_, tasks_requeued_, assigned_local_, assigned_remote_})
    w.Uint(v);
  w.EndArray().Key("rates").BeginArray();
  w.Double(o.local_sum).Double(o.local_weight).Uint(o.local_samples);
  w.Double(o.remote_sum).Double(o.remote_weight).Uint(o.remote_samples);
  w.EndArray().Key("racks").BeginArray();
  for (std::string_view r : racks) w.String(r);
  w.EndArray().EndObject();
  emit(rec);
}

// {"j":name,"w":weight,"at":submitted,"t":[[name,[replicas],kind,size,duration,
// state,attempts,machine,started(,queue)], ...]} with tasks in submission order.
void Engine::SaveJob(JobId j, std::string* rec) const {
  const Cluster& c = sched_.cluster();
  const JobMeta& meta = jobs_[j];
  rec->clear();
  JsonWriter w(rec);
  w.BeginObject().Field("j", meta.name).Field("w", c.job(j).weight);
  w.Field("at", meta.submitted_at).Key("t").BeginArray();
  for (TaskId t : c.job(j).tasks) {
    const Task& task = c.task(t);
    w.BeginArray().String(meta.tasks.Name(task_pos_[t])).BeginArray();
    for (MachineId m : task.replicas) w.Uint(m);
    w.EndArray().Uint(task.kind == TaskKind::kReduce ? 1 : 0);
    w.Double(task.size).Double(task.duration);
    w.Uint(static_cast<uint64_t>(SavedStateOf(task.state))).Uint(task.attempts);
    if (task.state == TaskState::kRunning)
      w.Uint(task.machine).Double(task_started_[t]);
    else
      w.Null().Null();
    if (task.state == TaskState::kQueued) w.Uint(task.queue);
    w.EndArray();
  }
  w.EndArray().EndObject();
}

// Machines first (ids are positions), then jobs, then the machines' down and
// draining flags (so tasks running on a draining machine can be placed).
Status Engine::Load(const std::vector<std::string>& records) {
  if (sched_.cluster().num_machines() != 0 || !job_ids_.empty())
    return Status::FailedPrecondition("snapshot", "loaded into an engine that has state");
  LoadScratch scratch;
  for (size_t i = 0; i < records.size(); ++i) {
    Status s;
    try {
      s = LoadRecord(records[i], &scratch);
    } catch (const json::exception& e) {
      s = Bad(e.what());
    }
    if (!s.ok())
      return Status::InvalidArgument("snapshot record " + std::to_string(i + 1), s.message());
  }
  for (const auto& [m, f] : scratch.flags) {
    if (f & kSavedDown) sched_.MachineDown(m);
    if (f & kSavedDraining) sched_.SetDraining(m, true);
  }
  // Submitting routed the queued tasks afresh; put each where it was.
  for (const auto& [t, queue] : scratch.queues)
    if (sched_.cluster().task(t).state == TaskState::kQueued) sched_.Reroute(t, queue);
  sched_.SetRates(rates_.alpha(), rates_.gamma());
  return Status::Ok();
}

Status Engine::LoadRecord(const std::string& record, LoadScratch* scratch) {
  const json r = json::parse(record);
  if (r.contains("engine")) {
    LoadCounters(r);
    return Status::Ok();
  }
  if (r.contains("m")) return LoadMachine(r, scratch);
  if (r.contains("j")) return LoadJob(r, scratch);
  if (!r.contains("f")) return Bad("unknown record " + record.substr(0, 40));
  const std::string name = r.at("f");
  const uint32_t outcome = r.at("o");
  if (outcome > static_cast<uint32_t>(JobOutcome::kCancelled)) return Bad("bad outcome");
  finished_[name] = Finished{static_cast<JobOutcome>(outcome), r.at("n"), r.at("s")};
  finished_order_.push_back(name);
  return Status::Ok();
}

void Engine::LoadCounters(const json& r) {
  const json& e = r.at("engine");
  uint64_t* counters[] = {&jobs_submitted_, &jobs_done_,      &jobs_failed_,
                          &jobs_cancelled_, &tasks_done_,     &tasks_failed_,
                          &tasks_requeued_, &assigned_local_, &assigned_remote_};
  for (size_t i = 0; i < std::size(counters); ++i) *counters[i] = e.at(i);
  const json& x = r.at("rates");
  rates_.Restore(RateEstimator::Observed{x.at(0), x.at(1), x.at(3), x.at(4), x.at(2), x.at(5)});
  for (const json& rack : r.at("racks")) RackId(rack.get<std::string>());
}

Status Engine::LoadMachine(const json& r, LoadScratch* scratch) {
  const std::string name = r.at("m");
  const uint32_t slots = r.at("slots");
  if (name.empty() || slots == 0 || !machine_names_.Add(name))
    return Bad("machine '" + name + "' is empty, duplicate or has no slots");
  const MachineId id = sched_.AddMachine(Machine{name, r.at("rack"), slots});
  const int f =
      (r.at("up").get<bool>() ? 0 : kSavedDown) | (r.at("drain").get<bool>() ? kSavedDraining : 0);
  if (f) scratch->flags.emplace_back(id, f);
  return Status::Ok();
}

Status Engine::LoadJob(const json& r, LoadScratch* scratch) {
  const std::string name = r.at("j");
  const json& tasks = r.at("t");
  if (tasks.empty() || job_ids_.count(name)) return Bad("job '" + name + "' empty or duplicate");
  NameIndex names;
  names.Reserve(tasks.size());
  std::vector<MachineId> replicas;
  for (const json& t : tasks) {
    if (!names.Add(t.at(0).get<std::string>())) return Bad("duplicate task in job '" + name + "'");
    for (const json& m : t.at(1)) replicas.push_back(m);
  }
  std::vector<TaskSpec> specs(tasks.size());
  size_t next = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const size_t n = tasks[i].at(1).size();
    for (size_t k = next; k < next + n; ++k)
      if (replicas[k] >= sched_.cluster().num_machines()) return Bad("replica out of range");
    specs[i] = TaskSpec{std::span(replicas).subspan(next, n),
                        tasks[i].at(2) == 1 ? TaskKind::kReduce : TaskKind::kMap, tasks[i].at(3),
                        tasks[i].at(4)};
    next += n;
  }
  const JobId j = sched_.SubmitJob(r.at("w"), specs);
  IndexJob(name, j, std::move(names), r.at("at"));
  return LoadTasks(j, tasks, scratch);
}

// Three passes over the tasks: finished maps, finished reduces (runnable once
// the maps are done), then running ones; the start counts last.
Status Engine::LoadTasks(JobId j, const json& tasks, LoadScratch* scratch) {
  const std::vector<TaskId> ids = sched_.cluster().job(j).tasks;
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < ids.size(); ++i) {
      const json& t = tasks[i];
      const int state = t.at(5);
      const bool reduce = t.at(2) == 1;
      if (pass < 2 ? (state != kSavedDone || reduce != (pass == 1)) : state != kSavedRunning)
        continue;
      if (sched_.cluster().task(ids[i]).state != TaskState::kQueued)
        return Bad("task " + std::to_string(i) + " of job '" + jobs_[j].name + "' cannot start");
      const MachineId m = state == kSavedDone ? 0 : t.at(7).get<MachineId>();
      if (m >= sched_.cluster().num_machines()) return Bad("machine id out of range");
      sched_.AssignTask(ids[i], m);
      if (state == kSavedRunning) task_started_[ids[i]] = t.at(8);
      if (state == kSavedDone && sched_.Finish(ids[i]).job_done)
        return Bad("job '" + jobs_[j].name + "' has every task done");
    }
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    sched_.SetAttempts(ids[i], tasks[i].at(6));
    if (tasks[i].size() > 9) scratch->queues.emplace_back(ids[i], tasks[i][9].get<uint32_t>());
  }
  return Status::Ok();
}

}  // namespace locsched
