#include "daemon/dispatcher.h"

#include <cassert>
#include <nlohmann/json.hpp>

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
static_assert(std::size(kHandlers) == static_cast<size_t>(Op::kResolveLp) + 1,
              "every Op needs a handler");

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
  w.Field("requests", d.lines()).Field("requests_per_s", d.requests_per_second());
  w.Field("remembered_ids", d.remembered_ids()).EndObject();
  if (const LpPlanner* planner = d.planner()) planner->WriteStatus(w);
  return Status::Ok();
}

void AppendCommandCounters(const Dispatcher& d, std::string* text) {
  text->append("# HELP locsched_requests_total Requests per command.\n");
  text->append("# TYPE locsched_requests_total counter\n");
  for (const CommandSpec& c : CommandTable())
    text->append("locsched_requests_total{op=\"")
        .append(c.name)
        .append("\"} ")
        .append(std::to_string(d.counters(c.op).calls))
        .append("\n");
  text->append("# HELP locsched_request_errors_total Requests answered ok:false.\n");
  text->append("# TYPE locsched_request_errors_total counter\n");
  for (const CommandSpec& c : CommandTable())
    text->append("locsched_request_errors_total{op=\"")
        .append(c.name)
        .append("\"} ")
        .append(std::to_string(d.counters(c.op).errors))
        .append("\n");
}

Status Metrics(Dispatcher& d, const Request&, JsonWriter& w) {
  std::string text;
  d.engine().AppendMetrics(&text);
  if (const LpPlanner* planner = d.planner()) planner->AppendMetrics(&text);
  AppendCommandCounters(d, &text);
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

Dispatcher::Dispatcher(Engine& engine, const Config& cfg)
    : engine_(engine),
      dedupe_(cfg.limits.dedupe_window),
      snapshot_bytes_(cfg.journal.snapshot_mb << 20) {}

Status Dispatcher::Rebalance(const Request& r, JsonWriter& w) {
  if (rebalance_ && engine_.rebalancer()) return rebalance_(w);
  return engine_.Rebalance(r, w);
}

Status Dispatcher::Snapshot(JsonWriter& w) {
  if (!snapshot_) return Status::FailedPrecondition("journal.path", "no journal to snapshot");
  if (Status s = SyncJournal(); !s.ok()) return s;
  return snapshot_(&w);
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

Status Dispatcher::Load(const std::vector<std::string>& records) {
  std::vector<std::string> engine_records;
  engine_records.reserve(records.size());
  for (const std::string& record : records) {
    if (record.rfind("{\"id\":", 0) != 0) {
      engine_records.push_back(record);
      continue;
    }
    const nlohmann::json r = nlohmann::json::parse(record, nullptr, false);
    if (r.is_discarded() || !r.contains("id") || !r.contains("b") || !r["id"].is_string() ||
        !r["b"].is_string())
      return Status::InvalidArgument("snapshot", "unreadable event id record");
    dedupe_.Remember(r["id"], r["b"]);
  }
  return engine_.Load(engine_records);
}

void Dispatcher::ApplyConfig(const Config& cfg) {
  dedupe_.SetCapacity(cfg.limits.dedupe_window);
  min_free_bytes_ = cfg.journal.min_free_mb << 20;
  snapshot_bytes_ = cfg.journal.snapshot_mb << 20;
  since_disk_check_ = 0;
  engine_.ApplyConfig(cfg);
  if (planner_) planner_->ApplyConfig(cfg.lp);
}

Status Dispatcher::Reload(std::vector<std::string>* changed) {
  if (!reload_) return Status::FailedPrecondition("reload", "no configuration file to re-read");
  return reload_(changed);
}

void Dispatcher::AppendError(const Status& s, std::string* out) {
  OpenReply(false, Request{}, out);
  AppendErrorBody(s, out);
}

void Dispatcher::HandleLine(std::string_view line, const Caller& caller, std::string* out) {
  ++lines_;
  rate_.Add(engine_.Now());
  Request& r = request_;  // decoding clears it (HandleLine is never re-entered)
  Status s = DecodeRequest(line, &r);
  if (!s.ok()) {
    ++undecodable_;
    OpenReply(false, r, out);
    AppendErrorBody(s, out);
    return;
  }
  CommandCounters& counters = counters_[static_cast<size_t>(r.op)];
  ++counters.calls;
  const size_t start = out->size();
  s = Run(r, line, caller, out);
  if (s.ok()) return;
  ++counters.errors;
  out->resize(start);
  OpenReply(false, r, out);
  AppendErrorBody(s, out);
}

// Checks access, answers a repeated id from the window, or runs the handler and
// remembers the reply body of a mutating command under its id.
Status Dispatcher::Run(const Request& r, std::string_view line, const Caller& caller,
                       std::string* out) {
  const CommandSpec& spec = SpecOf(r.op);
  if (Status s = CheckAccess(spec, caller); !s.ok()) return s;
  const bool mutating = (spec.flags & kMutating) != 0;
  if (mutating)
    if (Status s = CheckDisk(); !s.ok()) return s;
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
  const std::string_view body = std::string_view(*out).substr(body_start);
  if (mutating && journal_) Record(r, line, body);
  if (dedupe) dedupe_.Remember(r.id, std::string(body));
  out->append("}\n");
  return Status::Ok();
}

// ---- journal ---------------------------------------------------------------

void Dispatcher::SetJournal(Journal* journal, const Clock* clock,
                            std::function<uint64_t()> free_bytes, uint64_t min_free_bytes) {
  journal_ = journal;
  journal_clock_ = clock;
  free_bytes_ = std::move(free_bytes);
  min_free_bytes_ = min_free_bytes;
  since_disk_check_ = 0;
}

// The disk's free space is read every 1024 mutating events (a statvfs each).
Status Dispatcher::CheckDisk() {
  if (!journal_ || !free_bytes_) return Status::Ok();
  if (since_disk_check_++ % 1024 == 0) disk_low_ = free_bytes_() < min_free_bytes_;
  if (!disk_low_) return Status::Ok();
  return Status::ResourceExhausted("journal.min_free_mb",
                                   "the journal's disk has less than " +
                                       std::to_string(min_free_bytes_ >> 20) +
                                       " MiB free; events are refused until space is freed");
}

// A record: {"t":time,"line":request line} plus, for a heartbeat, "body": the
// reply fields, whose "assign" list replay re-applies instead of re-deciding.
void Dispatcher::Record(const Request& r, std::string_view line, std::string_view body) {
  record_.clear();
  JsonWriter w(&record_);
  w.BeginObject().Field("t", journal_clock_->Now()).Field("line", line);
  if (r.op == Op::kHeartbeat) w.Field("body", body);
  w.EndObject();
  journal_->Append(record_);
  ++unsynced_;
}

Status Dispatcher::SyncJournal() {
  if (!journal_ || unsynced_ == 0) return Status::Ok();
  unsynced_ = 0;
  return journal_->Sync();
}

// After a successful sync a journal past journal.snapshot_mb is snapshotted
// (the hook swaps in the new journal; a failure is logged, not fatal).
Status Dispatcher::Sync() {
  if (!journal_ || unsynced_ == 0) return Status::Ok();
  if (Status s = SyncJournal(); !s.ok()) return s;
  if (snapshot_ && snapshot_bytes_ > 0 && journal_->size() >= snapshot_bytes_)
    (void)snapshot_(nullptr);
  return Status::Ok();
}

// Re-applies one record: a heartbeat's recorded assignments are imposed (the
// policy is not asked again); every other event goes through HandleLine.
Status Dispatcher::Replay(std::string_view record, DaemonClock* clock) {
  const nlohmann::json rec = nlohmann::json::parse(record, nullptr, false);
  if (rec.is_discarded() || !rec.contains("line") || !rec.contains("t"))
    return Status::InvalidArgument("journal", "unreadable record");
  clock->Pin(rec["t"].get<double>());
  const std::string line = rec["line"].get<std::string>();
  Request r;
  if (Status s = DecodeRequest(line, &r); !s.ok()) return s;
  if (r.op != Op::kHeartbeat) {
    std::string out;
    HandleLine(line, Caller{}, &out);
    if (out.rfind("{\"ok\":true", 0) != 0)
      return Status::Internal("journal", "replay refused: " + out);
    return Status::Ok();
  }
  const std::string body = rec.value("body", std::string());
  const nlohmann::json reply =
      nlohmann::json::parse("{" + body.substr(body.empty() ? 0 : 1) + "}", nullptr, false);
  if (reply.is_discarded()) return Status::InvalidArgument("journal", "unreadable heartbeat body");
  for (const nlohmann::json& a : reply.value("assign", nlohmann::json::array()))
    if (Status s = engine_.ReplayAssign(r.machine, a["job"], a["task"]); !s.ok()) return s;
  if (r.has_id) dedupe_.Remember(r.id, body);
  ++lines_;
  return Status::Ok();
}

}  // namespace locsched
