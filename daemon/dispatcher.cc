#include "daemon/dispatcher.h"

#include <simdjson.h>

#include <algorithm>
#include <cassert>

#include "daemon/metrics_text.h"
#include "daemon/workload_timers.h"
#include "io/wire/json_writer.h"
#include "io/wire/request.h"

namespace locsched {

namespace {

using Handler = Status (*)(Dispatcher& d, const Request& r, JsonWriter& w);

// The handler table: one row per command, in CommandTable (Op) order. The
// command table says what a command accepts; this says what it does.
struct HandlerRow {
  Op op;
  Handler handler;
};

Status Help(Dispatcher& d, const Request& r, JsonWriter& w);
Status StatusCmd(Dispatcher& d, const Request& r, JsonWriter& w);
Status Metrics(Dispatcher& d, const Request& r, JsonWriter& w);
Status ReloadCmd(Dispatcher& d, const Request& r, JsonWriter& w);
Status SnapshotCmd(Dispatcher& d, const Request& r, JsonWriter& w);
Status ResolveLpCmd(Dispatcher& d, const Request& r, JsonWriter& w);
Status JobSubmitCmd(Dispatcher& d, const Request& r, JsonWriter& w);
Status TaskAddCmd(Dispatcher& d, const Request& r, JsonWriter& w);
Status JobCancelCmd(Dispatcher& d, const Request& r, JsonWriter& w);

#define LOCSCHED_ENGINE(method) \
  [](Dispatcher& d, const Request& r, JsonWriter& w) { return d.engine().method(r, w); }

constexpr HandlerRow kHandlers[] = {
    {Op::kMachineUp, LOCSCHED_ENGINE(MachineUp)},
    {Op::kMachineDown, LOCSCHED_ENGINE(MachineDown)},
    {Op::kMachineDrain, LOCSCHED_ENGINE(MachineDrain)},
    {Op::kJobSubmit, JobSubmitCmd},
    {Op::kHeartbeat, LOCSCHED_ENGINE(Heartbeat)},
    {Op::kTaskStarted, LOCSCHED_ENGINE(TaskStarted)},
    {Op::kTaskDone, LOCSCHED_ENGINE(TaskDone)},
    {Op::kTaskFailed, LOCSCHED_ENGINE(TaskFailed)},
    {Op::kJobCancel, JobCancelCmd},
    {Op::kStatus, StatusCmd},
    {Op::kMachineQueues, LOCSCHED_ENGINE(MachineQueues)},
    {Op::kJobs, LOCSCHED_ENGINE(Jobs)},
    {Op::kJob, LOCSCHED_ENGINE(JobDetail)},
    {Op::kMachines, LOCSCHED_ENGINE(Machines)},
    {Op::kHelp, Help},
    {Op::kMetrics, Metrics},
    {Op::kReload, ReloadCmd},
    {Op::kSnapshot, SnapshotCmd},
    {Op::kRebalance,
     [](Dispatcher& d, const Request& r, JsonWriter& w) { return d.Rebalance(r, w); }},
    {Op::kResolveLp, ResolveLpCmd},
    {Op::kTaskAdd, TaskAddCmd},
    {Op::kMachineLost, LOCSCHED_ENGINE(MachineLost)},
    {Op::kQueue, LOCSCHED_ENGINE(Queues)},
    {Op::kTaskPreempted, LOCSCHED_ENGINE(TaskPreempted)},
};
#undef LOCSCHED_ENGINE

constexpr bool HandlersInOpOrder() {
  for (size_t i = 0; i < std::size(kHandlers); ++i)
    if (static_cast<size_t>(kHandlers[i].op) != i) return false;
  return true;
}
static_assert(HandlersInOpOrder(), "kHandlers rows must follow Op order");
static_assert(std::size(kHandlers) == kOpCount, "every Op needs a handler");

std::string_view TypeName(FieldType t) {
  switch (t) {
    case FieldType::kName:
      return "name";
    case FieldType::kString:
      return "string";
    case FieldType::kCount:
      return "count";
    case FieldType::kPositive:
      return "positive";
    case FieldType::kNumber:
      return "number";
    case FieldType::kBool:
      return "bool";
    case FieldType::kKind:
      return "kind";
    case FieldType::kNames:
      return "names";
    case FieldType::kTasks:
      return "tasks";
  }
  return "string";
}

void WriteCommandHeader(const CommandSpec& c, JsonWriter& w) {
  w.Field("command", c.name).Field("summary", c.summary);
  w.Key("sockets").BeginArray();
  if (c.flags & kEventSocket) w.String("event");
  if (c.flags & kControlSocket) w.String("control");
  w.EndArray();
  w.Field("mutating", (c.flags & kMutating) != 0).Field("admin", c.access == Access::kAdmin);
  w.Field("access", AccessName(c.access));
}

void WriteFields(std::span<const FieldSpec> fields, JsonWriter& w) {
  w.BeginArray();
  for (const FieldSpec& f : fields) {
    w.BeginObject().Field("name", f.name).Field("type", TypeName(f.type));
    w.Field("required", f.required).Field("help", f.help).EndObject();
  }
  w.EndArray();
}

// help: every command in one line each, or one command with its fields.
Status Help(Dispatcher&, const Request& r, JsonWriter& w) {
  if (r.command.empty()) {
    w.Key("commands").BeginArray();
    for (const CommandSpec& c : CommandTable()) {
      w.BeginObject();
      WriteCommandHeader(c, w);
      w.EndObject();
    }
    w.EndArray();
    return Status::Ok();
  }
  const CommandSpec* c = FindCommand(r.command);
  if (IsRetiredQueuesOp(r.command)) return Status::NotFound("command", std::string(kQueuesSplit));
  if (!c) {
    const std::string_view guess = SuggestCommand(r.command);
    return Status::NotFound(
        "command",
        "unknown command '" + r.command + "'" +
            (guess.empty() ? std::string() : "; did you mean '" + std::string(guess) + "'?"));
  }
  WriteCommandHeader(*c, w);
  w.Key("fields");
  WriteFields(c->fields, w);
  if (c->op == Op::kJobSubmit) {
    w.Key("task_fields");
    WriteFields(TaskFields(), w);
  }
  return Status::Ok();
}

Status StatusCmd(Dispatcher& d, const Request& r, JsonWriter& w) {
  if (Status s = d.engine().Summary(r, w); !s.ok()) return s;
  w.Key("daemon").BeginObject().Field("clients", d.clients());
  w.Field("requests", d.counters().lines()).Field("requests_per_s", d.requests_per_second());
  w.Field("remembered_ids", d.remembered_ids()).Field("assembling", d.assembly().size());
  if (const EventLog* log = d.event_log(); log && log->attached()) log->WriteStatus(w);
  w.EndObject();
  if (const LpPlanner* planner = d.planner()) planner->WriteStatus(w);
  d.WriteDaemonStatus(w);
  return Status::Ok();
}

Status Metrics(Dispatcher& d, const Request&, JsonWriter& w) {
  std::string text;
  AppendMetricsText(d, &text);
  w.Field("text", text);
  return Status::Ok();
}

Status ReloadCmd(Dispatcher& d, const Request&, JsonWriter& w) {
  std::vector<std::string> changed;
  if (Status s = d.Reload(&changed); !s.ok()) return s;
  w.Key("changed").BeginArray();
  for (const std::string& key : changed) w.String(key);
  w.EndArray();
  return Status::Ok();
}

// A job with tasks_total above its task count waits in the JobAssembly for the
// task_add parts; every other job goes straight to the Engine.
Status JobSubmitCmd(Dispatcher& d, const Request& r, JsonWriter& w) {
  if (r.tasks_total != 0 && r.tasks_total < r.tasks.size())
    return Status::InvalidArgument("tasks_total", std::to_string(r.tasks_total) + " is below the " +
                                                      std::to_string(r.tasks.size()) +
                                                      " tasks sent");
  if (d.assembly().Has(r.job))
    return Status::AlreadyExists("job", "'" + r.job + "' is being assembled (task_add)");
  if (r.tasks_total > r.tasks.size()) {
    if (Status s = d.engine().CheckPlacement(r); !s.ok()) return s;
    return d.assembly().Start(r, d.line(), w);
  }
  return d.engine().JobSubmit(r, w);
}

Status TaskAddCmd(Dispatcher& d, const Request& r, JsonWriter& w) {
  return d.assembly().Add(r, d.line(), w);
}

Status JobCancelCmd(Dispatcher& d, const Request& r, JsonWriter& w) {
  uint64_t tasks = 0;
  if (!d.assembly().Cancel(r.job, &tasks)) return d.engine().JobCancel(r, w);
  w.Field("tasks", tasks);
  return Status::Ok();
}

Status SnapshotCmd(Dispatcher& d, const Request&, JsonWriter& w) {
  return d.Snapshot(w);
}

// Starts a solve (on the worker in locschedd, so the reply usually says pending;
// callers watch status' lp.solves). A solve already running is not doubled.
Status ResolveLpCmd(Dispatcher& d, const Request&, JsonWriter& w) {
  LpPlanner* planner = d.planner();
  if (!planner) return Status::FailedPrecondition("lp.enabled", "the LP re-solve is turned off");
  const bool started = planner->Start();
  w.Field("started", started).Field("pending", planner->busy());
  planner->WriteStatus(w);
  return Status::Ok();
}

void OpenReply(bool ok, const Request& r, std::string* out) {
  out->append(ok ? "{\"ok\":true" : "{\"ok\":false");
  if (!r.has_id) return;
  out->append(",\"id\":");
  if (r.id_is_number)
    out->append(r.id);
  else
    AppendJsonString(r.id, out);
}

// A not_active error names the active instance (null if none is known) instead
// of a field; its message is its detail alone, which names this instance and the
// active in words.
void AppendErrorBody(const Status& s, std::string* out) {
  JsonWriter w(out);
  w.ResumeObject(true);
  w.Key("error").BeginObject().Field("code", s.code_name());
  if (s.code() != Status::Code::kNotActive) {
    w.Field("field", s.subject());
  } else if (const std::string active = s.subject(); active != "unknown") {
    w.Field("field", "op").Field("active", active);
  } else {
    w.Field("field", "op").Key("active").Null();
  }
  w.Field("message", s.code() == Status::Code::kNotActive ? s.detail() : s.message());
  w.EndObject();
  out->append("}\n");
}

// The socket and access rules of the command table: an admin command needs an
// authorized peer on whichever socket it arrives.
Status CheckAccess(const CommandSpec& spec, const Caller& caller) {
  const uint32_t socket = caller.control ? kControlSocket : kEventSocket;
  if (!(spec.flags & socket))
    return Status::FailedPrecondition("op", "'" + std::string(spec.name) +
                                                "' is not accepted on the " +
                                                (caller.control ? "control" : "event") + " socket");
  if (spec.access == Access::kAdmin && !caller.authorized)
    return Status::PermissionDenied("op",
                                    "'" + std::string(spec.name) + "' is an admin command; uid " +
                                        std::to_string(caller.uid) + " is not allowed to run it");
  return Status::Ok();
}

// A remembered id sent again with a different request: the first one stays applied,
// this one is refused, so a sender that reuses ids learns it instead of losing events.
Status Conflict(const Request& r) {
  std::string id = r.id_is_number ? r.id : "\"" + r.id + "\"";
  return Status::Conflict("id", id + " was already used by a different request (that one was "
                                     "applied; send this one with a new id)");
}

}  // namespace

Dispatcher::Dispatcher(Engine& engine, const Config& cfg, EventLog* log, LpPlanner* planner,
                       DaemonControl* control, Audit audit)
    : engine_(engine),
      log_(log),
      planner_(planner),
      control_(control),
      audit_(std::move(audit)),
      dedupe_(cfg.limits.dedupe_window) {}

std::string AuditLine(const Request& r, const Caller& caller, const Status& s) {
  std::string line = "audit op=" + std::string(SpecOf(r.op).name);
  if (!r.machine.empty()) line.append(" machine="), AppendJsonString(r.machine, &line);
  if (!r.job.empty()) line.append(" job="), AppendJsonString(r.job, &line);
  if (r.op == Op::kMachineDrain) line.append(r.drain ? " drain=true" : " drain=false");
  if (!caller.address.empty()) {
    line.append(caller.control ? " socket=tcp-control" : " socket=tcp-event");
    line.append(" address=").append(caller.address);
  } else {
    line.append(caller.control ? " socket=control" : " socket=event");
    line.append(" uid=").append(std::to_string(caller.uid));
    line.append(" pid=").append(std::to_string(caller.pid));
  }
  return line.append(" result=").append(s.ok() ? "ok" : s.code_name());
}

Status Dispatcher::Rebalance(const Request& r, JsonWriter& w) {
  if (control_ && engine_.rebalancer()) return control_->Rebalance(w);
  return engine_.Rebalance(r, w);
}

Status Dispatcher::Snapshot(JsonWriter& w) {
  if (!control_) return Status::FailedPrecondition("journal.path", "no journal to snapshot");
  return control_->Snapshot(w);
}

Status Dispatcher::Reload(std::vector<std::string>* changed) {
  if (!control_) return Status::FailedPrecondition("reload", "no configuration file to re-read");
  return control_->Reload(changed);
}

// Snapshot records: the engine's, then the remembered event ids with their replies.
void Dispatcher::Save(const Engine::Sink& emit) const {
  engine_.Save(emit);
  std::string rec;
  assembly_.Save([&](const std::string& line) {
    rec.clear();
    JsonWriter(&rec).BeginObject().Field("part", line).EndObject();
    emit(rec);
  });
  dedupe_.ForEach([&](const std::string& id, const DedupeWindow::Entry& e) {
    rec.clear();
    JsonWriter(&rec)
        .BeginObject()
        .Field("id", id)
        .Field("b", e.body)
        .Field("h", e.hash)
        .EndObject();
    emit(rec);
  });
}

// An event id record is {"id":...,"b":...,"h":...} ("h", the request hash, is
// absent from older snapshots: such ids match any request); the rest are the engine's.
Status Dispatcher::Load(const std::vector<std::string>& records) {
  std::vector<std::string> engine_records, parts;
  engine_records.reserve(records.size());
  simdjson::dom::parser parser;
  for (const std::string& record : records) {
    if (record.rfind("{\"part\":", 0) == 0) {
      std::string_view line;
      if (parser.parse(record)["part"].get(line) != simdjson::SUCCESS)
        return Status::InvalidArgument("snapshot", "unreadable job part record");
      parts.emplace_back(line);
      continue;
    }
    if (record.rfind("{\"id\":", 0) != 0) {
      engine_records.push_back(record);
      continue;
    }
    simdjson::dom::object r;
    std::string_view id, body;
    if (parser.parse(record).get(r) != simdjson::SUCCESS || r["id"].get(id) != simdjson::SUCCESS ||
        r["b"].get(body) != simdjson::SUCCESS)
      return Status::InvalidArgument("snapshot", "unreadable event id record");
    uint64_t hash = 0;
    if (r["h"].error() == simdjson::SUCCESS && r["h"].get(hash) != simdjson::SUCCESS)
      return Status::InvalidArgument("snapshot", "unreadable event id record");
    dedupe_.Remember(std::string(id), hash, std::string(body));
  }
  if (Status s = engine_.Load(engine_records); !s.ok()) return s;
  for (const std::string& part : parts)  // machines first: the parts name them
    if (Status s = assembly_.Load(part); !s.ok()) return s;
  return Status::Ok();
}

void Dispatcher::ApplyConfig(const Config& cfg) {
  dedupe_.SetCapacity(cfg.limits.dedupe_window);
  engine_.ApplyConfig(cfg);
  if (planner_) planner_->ApplyConfig(WallTimed(cfg.lp, cfg.scheduler.workload_speed));
}

void Dispatcher::AppendError(const Status& s, std::string* out) {
  OpenReply(false, Request{}, out);
  AppendErrorBody(s, out);
}

void Dispatcher::HandleLine(std::string_view line, const Caller& caller, std::string* out) {
  counters_.CountLine(engine_.Now());
  Request& r = request_;  // decoding clears it (HandleLine is never re-entered)
  Status s = DecodeRequest(line, &r);
  if (!s.ok()) {
    OpenReply(false, r, out);
    AppendErrorBody(s, out);
    return;
  }
  CommandCounters& counters = counters_.of(r.op);
  ++counters.calls;
  const size_t start = out->size();
  s = Run(r, line, caller, out);
  if (audit_ && !caller.replay && SpecOf(r.op).access == Access::kAdmin)
    audit_(AuditLine(r, caller, s));
  if (s.ok()) return;
  ++counters.errors;
  out->resize(start);
  OpenReply(false, r, out);
  AppendErrorBody(s, out);
}

// Checks access, answers a repeated id from the window, or runs the handler,
// journals a mutating command and remembers its reply body under its id.
Status Dispatcher::Run(const Request& r, std::string_view line, const Caller& caller,
                       std::string* out) {
  const CommandSpec& spec = SpecOf(r.op);
  if (Status s = CheckAccess(spec, caller); !s.ok()) return s;
  const bool mutating = (spec.flags & kMutating) != 0;
  if (mutating && control_ && !caller.replay)
    if (Status s = control_->AdmitMutation(); !s.ok()) return s;
  if (mutating && log_)
    if (Status s = log_->Admit(); !s.ok()) return s;
  const bool dedupe = r.has_id && mutating;
  const uint64_t hash = dedupe ? RequestHash(r) : 0;
  if (dedupe) {
    if (const DedupeWindow::Entry* seen = dedupe_.Find(r.id)) {
      if (seen->hash != 0 && seen->hash != hash) return Conflict(r);
      OpenReply(true, r, out);
      out->append(seen->body).append(",\"duplicate\":true}\n");
      return Status::Ok();
    }
  }
  if (mutating) engine_.SyncPolicyClock();
  OpenReply(true, r, out);
  const size_t body_start = out->size();
  line_ = line;
  JsonWriter w(out);
  w.ResumeObject(true);
  engine_.ClearPlaced();
  engine_.SetReplaying(caller.replay, caller.queue);
  Status handled = kHandlers[static_cast<size_t>(r.op)].handler(*this, r, w);
  engine_.SetReplaying(false, {});
  if (!handled.ok()) return handled;
  if (r.op == Op::kHeartbeat)
    heartbeat_latency_.Observe(std::max(0.0, engine_.clock().Fresh() - engine_.Now()));
  const std::string_view body = std::string_view(*out).substr(body_start);
  const bool unchanged = mutating && ChangedNothing(r);
  if (mutating && log_ && log_->attached()) {
    if (unchanged)
      log_->SkipUnchanged();
    else
      Record(r, line);
  }
  if (dedupe && !unchanged) dedupe_.Remember(r.id, hash, std::string(body));
  out->append("}\n");
  return Status::Ok();
}

// A heartbeat that assigned nothing left nothing for replay to rebuild: replay
// imposes a heartbeat's recorded assignments without asking the policy. It is not
// journaled, and its id is not remembered (live or replayed alike, so the id window
// recovers exactly): a retry runs it again, which is safe because the first run
// changed nothing. This makes idle and full machines' heartbeats free.
// A heartbeat that brought a lost machine back, preempted a task or delivered a stop
// order changed state, and is journaled.
bool Dispatcher::ChangedNothing(const Request& r) const {
  return r.op == Op::kHeartbeat && engine_.last_assigned().empty() && !engine_.revived() &&
         engine_.last_preempted().empty() && engine_.last_delivered() == 0;
}

// The journal record of an applied event; a heartbeat's carries its assignments and the
// tasks it preempted.
void Dispatcher::Record(const Request& r, std::string_view line) {
  assigned_.clear();
  preempted_.clear();
  if (r.op == Op::kHeartbeat) {
    for (const Assignment& a : engine_.last_assigned())
      assigned_.push_back({engine_.JobName(a.job), engine_.TaskName(a.task)});
    for (TaskId t : engine_.last_preempted())
      preempted_.push_back({engine_.JobName(engine_.JobOf(t)), engine_.TaskName(t)});
  }
  const bool submitted = r.op == Op::kJobSubmit || r.op == Op::kTaskAdd;
  log_->Append(line, assigned_, submitted ? engine_.placed_queue() : std::string_view(),
               preempted_);
}

// The reply body is written as a live heartbeat writes it, so a retried id gets
// the same answer after a restart.
Status Dispatcher::ReplayHeartbeat(const Request& r, std::span<const JournaledAssignment> assigned,
                                   std::span<const JournaledAssignment> preempted) {
  counters_.CountLine(engine_.Now());
  ++counters_.of(r.op).calls;
  std::string body;
  JsonWriter w(&body);
  w.ResumeObject(true);
  engine_.SyncPolicyClock();
  MachineId m;
  if (Status s = engine_.Hear(r.machine, &m); !s.ok()) return s;  // a lost machine comes back
  for (const JournaledAssignment& p : preempted)
    if (Status s = engine_.ReplayPreempt(p.job, p.task); !s.ok()) return s;
  engine_.DeliverStops(m, w);
  w.Key("assign").BeginArray();
  for (const JournaledAssignment& a : assigned)
    if (Status s = engine_.ReplayAssign(r.machine, a.job, a.task, w); !s.ok()) return s;
  w.EndArray();
  if (r.has_id) dedupe_.Remember(r.id, RequestHash(r), std::move(body));
  return Status::Ok();
}

}  // namespace locsched
