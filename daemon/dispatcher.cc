#include "daemon/dispatcher.h"

#include <simdjson.h>

#include <algorithm>
#include <cassert>

#include "daemon/metrics_text.h"
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

#define LOCSCHED_ENGINE(method) \
  [](Dispatcher& d, const Request& r, JsonWriter& w) { return d.engine().method(r, w); }

constexpr HandlerRow kHandlers[] = {
    {Op::kMachineUp, LOCSCHED_ENGINE(MachineUp)},
    {Op::kMachineDown, LOCSCHED_ENGINE(MachineDown)},
    {Op::kMachineDrain, LOCSCHED_ENGINE(MachineDrain)},
    {Op::kJobSubmit, LOCSCHED_ENGINE(JobSubmit)},
    {Op::kHeartbeat, LOCSCHED_ENGINE(Heartbeat)},
    {Op::kTaskStarted, LOCSCHED_ENGINE(TaskStarted)},
    {Op::kTaskDone, LOCSCHED_ENGINE(TaskDone)},
    {Op::kTaskFailed, LOCSCHED_ENGINE(TaskFailed)},
    {Op::kJobCancel, LOCSCHED_ENGINE(JobCancel)},
    {Op::kStatus, StatusCmd},
    {Op::kQueues, LOCSCHED_ENGINE(Queues)},
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
  w.Field("mutating", (c.flags & kMutating) != 0).Field("admin", (c.flags & kAdmin) != 0);
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
  w.Field("remembered_ids", d.remembered_ids());
  if (const EventLog* log = d.event_log(); log && log->attached()) log->WriteStatus(w);
  w.EndObject();
  if (const LpPlanner* planner = d.planner()) planner->WriteStatus(w);
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

void AppendErrorBody(const Status& s, std::string* out) {
  JsonWriter w(out);
  w.ResumeObject(true);
  w.Key("error").BeginObject().Field("code", s.code_name()).Field("field", s.subject());
  w.Field("message", s.message()).EndObject();
  out->append("}\n");
}

// The socket and peer rules of the command table.
Status CheckAccess(const CommandSpec& spec, const Caller& caller) {
  const uint32_t socket = caller.control ? kControlSocket : kEventSocket;
  if (!(spec.flags & socket))
    return Status::FailedPrecondition("op", "'" + std::string(spec.name) +
                                                "' is not accepted on the " +
                                                (caller.control ? "control" : "event") + " socket");
  if ((spec.flags & kAdmin) && caller.control && !caller.authorized)
    return Status::PermissionDenied("op",
                                    "'" + std::string(spec.name) + "' is an admin command; uid " +
                                        std::to_string(caller.uid) + " is not allowed to run it");
  return Status::Ok();
}

}  // namespace

Dispatcher::Dispatcher(Engine& engine, const Config& cfg, EventLog* log, LpPlanner* planner,
                       DaemonControl* control)
    : engine_(engine),
      log_(log),
      planner_(planner),
      control_(control),
      dedupe_(cfg.limits.dedupe_window) {}

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
  dedupe_.ForEach([&](const std::string& id, const std::string& body) {
    rec.clear();
    JsonWriter(&rec).BeginObject().Field("id", id).Field("b", body).EndObject();
    emit(rec);
  });
}

// An event id record is {"id":...,"b":...}; the rest are the engine's.
Status Dispatcher::Load(const std::vector<std::string>& records) {
  std::vector<std::string> engine_records;
  engine_records.reserve(records.size());
  simdjson::dom::parser parser;
  for (const std::string& record : records) {
    if (record.rfind("{\"id\":", 0) != 0) {
      engine_records.push_back(record);
      continue;
    }
    simdjson::dom::object r;
    std::string_view id, body;
    if (parser.parse(record).get(r) != simdjson::SUCCESS || r["id"].get(id) != simdjson::SUCCESS ||
        r["b"].get(body) != simdjson::SUCCESS)
      return Status::InvalidArgument("snapshot", "unreadable event id record");
    dedupe_.Remember(std::string(id), std::string(body));
  }
  return engine_.Load(engine_records);
}

void Dispatcher::ApplyConfig(const Config& cfg) {
  dedupe_.SetCapacity(cfg.limits.dedupe_window);
  engine_.ApplyConfig(cfg);
  if (planner_) planner_->ApplyConfig(cfg.lp);
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
  if (mutating && log_)
    if (Status s = log_->Admit(); !s.ok()) return s;
  const bool dedupe = r.has_id && mutating;
  OpenReply(true, r, out);
  if (dedupe) {
    if (const std::string* body = dedupe_.Find(r.id)) {
      out->append(*body).append(",\"duplicate\":true}\n");
      return Status::Ok();
    }
  }
  const size_t body_start = out->size();
  JsonWriter w(out);
  w.ResumeObject(true);
  if (Status s = kHandlers[static_cast<size_t>(r.op)].handler(*this, r, w); !s.ok()) return s;
  if (r.op == Op::kHeartbeat)
    heartbeat_latency_.Observe(std::max(0.0, engine_.clock().Fresh() - engine_.Now()));
  const std::string_view body = std::string_view(*out).substr(body_start);
  if (mutating && log_ && log_->attached()) Record(r, line);
  if (dedupe) dedupe_.Remember(r.id, std::string(body));
  out->append("}\n");
  return Status::Ok();
}

// The journal record of an applied event; a heartbeat's carries its assignments.
void Dispatcher::Record(const Request& r, std::string_view line) {
  assigned_.clear();
  if (r.op == Op::kHeartbeat)
    for (const Assignment& a : engine_.last_assigned())
      assigned_.push_back({engine_.JobName(a.job), engine_.TaskName(a.task)});
  log_->Append(line, assigned_);
}

// The reply body is written as a live heartbeat writes it, so a retried id gets
// the same answer after a restart.
Status Dispatcher::ReplayHeartbeat(const Request& r,
                                   std::span<const JournaledAssignment> assigned) {
  counters_.CountLine(engine_.Now());
  ++counters_.of(r.op).calls;
  std::string body;
  JsonWriter w(&body);
  w.ResumeObject(true);
  w.Key("assign").BeginArray();
  for (const JournaledAssignment& a : assigned)
    if (Status s = engine_.ReplayAssign(r.machine, a.job, a.task, w); !s.ok()) return s;
  w.EndArray();
  if (r.has_id) dedupe_.Remember(r.id, std::move(body));
  return Status::Ok();
}

}  // namespace locsched
