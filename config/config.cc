#include "config/config.h"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <type_traits>

namespace locsched {
namespace {

constexpr std::array<std::string_view, 9> kPolicies{"jsq-maxweight", "fair",
                                                    "fifo",          "delay",
                                                    "late-binding",  "balanced-pandas",
                                                    "quincy",        "capacity-scheduler",
                                                    "fair-scheduler"};
constexpr std::array<std::string_view, 5> kJobOrders{"auto", "fair", "srpt", "smith", "lp"};
constexpr std::array<std::string_view, 3> kIntraQueues{"fair", "fifo", "priority"};
constexpr std::array<std::string_view, 6> kLogLevels{"trace", "debug", "info",
                                                     "warn",  "error", "off"};
constexpr std::array<std::string_view, 3> kLogTargets{"auto", "stderr", "journal"};
constexpr std::array<std::string_view, 3> kJournalSyncs{"always", "batched", "interval"};

std::string FormatDouble(double v) {
  // Whole numbers print as integers ("1000000", not to_chars' "1e+06").
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return ec == std::errc() ? std::string(buf.data(), end) : std::string("?");
}

// Generic apply/format for a field `Field` of section `Section` of Config.
template <auto Section, auto Field>
void ApplyInt(const ConfigValue& v, Config* c) {
  auto& field = (c->*Section).*Field;
  field = static_cast<std::remove_reference_t<decltype(field)>>(std::get<int64_t>(v));
}
template <auto Section, auto Field>
std::string FormatInt(const Config& c) {
  return std::to_string((c.*Section).*Field);
}
template <auto Section, auto Field>
void ApplyDouble(const ConfigValue& v, Config* c) {
  (c->*Section).*Field = std::get<double>(v);
}
template <auto Section, auto Field>
std::string FormatDoubleField(const Config& c) {
  return FormatDouble((c.*Section).*Field);
}
template <auto Section, auto Field>
void ApplyBool(const ConfigValue& v, Config* c) {
  (c->*Section).*Field = std::get<bool>(v);
}
template <auto Section, auto Field>
std::string FormatBool(const Config& c) {
  return (c.*Section).*Field ? "true" : "false";
}
template <auto Section, auto Field>
void ApplyString(const ConfigValue& v, Config* c) {
  (c->*Section).*Field = std::get<std::string>(v);
}
template <auto Section, auto Field>
std::string FormatString(const Config& c) {
  return (c.*Section).*Field;
}
template <auto Section, auto Field>
void ApplyMode(const ConfigValue& v, Config* c) {
  (c->*Section).*Field = ParseFileMode(std::get<std::string>(v)).value_or(0);
}
template <auto Section, auto Field>
std::string FormatMode(const Config& c) {
  return FormatFileMode((c.*Section).*Field);
}

// Index of `name` in a names array (the enum's underlying order); validated before.
template <typename Enum, size_t N>
Enum EnumFromName(const std::array<std::string_view, N>& names, const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return static_cast<Enum>(0);
}

void ApplyPolicy(const ConfigValue& v, Config* c) {
  c->scheduler.policy = ParsePolicyKind(std::get<std::string>(v)).value_or(c->scheduler.policy);
}
std::string FormatPolicy(const Config& c) {
  return std::string(PolicyKindName(c.scheduler.policy));
}
void ApplyIntra(const ConfigValue& v, Config* c) {
  c->scheduler.intra_queue =
      ParseIntraQueue(std::get<std::string>(v)).value_or(c->scheduler.intra_queue);
}
std::string FormatIntra(const Config& c) {
  return std::string(IntraQueueName(c.scheduler.intra_queue));
}
// "auto" leaves the order unset: each policy's own (srpt for late-binding, fair otherwise).
void ApplyJobOrder(const ConfigValue& v, Config* c) {
  const std::string& text = std::get<std::string>(v);
  c->scheduler.job_order = text == "auto" ? std::nullopt : ParseJobOrder(text);
}
std::string FormatJobOrder(const Config& c) {
  const auto& order = c.scheduler.job_order;
  return order ? std::string(JobOrderName(*order)) : "auto";
}
void ApplyLevel(const ConfigValue& v, Config* c) {
  c->log.level = EnumFromName<LogLevel>(kLogLevels, std::get<std::string>(v));
}
std::string FormatLevel(const Config& c) {
  return std::string(LogLevelName(c.log.level));
}
void ApplyTarget(const ConfigValue& v, Config* c) {
  c->log.target = EnumFromName<LogTarget>(kLogTargets, std::get<std::string>(v));
}
std::string FormatTarget(const Config& c) {
  return std::string(LogTargetName(c.log.target));
}

void ApplySync(const ConfigValue& v, Config* c) {
  c->journal.sync = EnumFromName<JournalSync>(kJournalSyncs, std::get<std::string>(v));
}
std::string FormatSync(const Config& c) {
  return std::string(JournalSyncName(c.journal.sync));
}

constexpr auto kSockets = &Config::sockets;
constexpr auto kJournal = &Config::journal;
constexpr auto kLimits = &Config::limits;
constexpr auto kSched = &Config::scheduler;
constexpr auto kMachines = &Config::machines;
constexpr auto kPreempt = &Config::preemption;
constexpr auto kRebal = &Config::rebalance;
constexpr auto kLp = &Config::lp;
constexpr auto kHttp = &Config::http;
constexpr auto kHa = &Config::ha;
constexpr auto kHistory = &Config::history;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// High-availability mode needs an address to announce and a secret for TCP clients.
Status ValidateHa(const HaConfig& ha) {
  if (!ha.enabled()) return Status::Ok();
  if (ha.instance.empty())
    return Status::InvalidArgument("ha.instance", "is required when ha.zookeeper is set");
  ListenAddress address;
  if (Status s = ParseListenAddress(ha.instance, &address);
      !s.ok() || ha.instance.find(':') == std::string::npos)
    return Status::InvalidArgument(
        "ha.instance", "\"" + ha.instance + "\" is not \"IP:PORT\" (e.g. \"10.0.0.5:7400\")");
  if (ha.secret_file.empty())
    return Status::InvalidArgument("ha.secret_file", "is required when ha.zookeeper is set");
  if (ha.path.empty() || ha.path[0] != '/' || (ha.path.size() > 1 && ha.path.back() == '/'))
    return Status::InvalidArgument("ha.path",
                                   "\"" + ha.path + "\" is not an absolute path such as /locsched");
  return Status::Ok();
}

// The TCP listener's certificate and key come as a pair (the files are read at start).
Status ValidateHaTls(const HaConfig& ha) {
  if (ha.tls_certificate.empty() && !ha.tls_key.empty())
    return Status::InvalidArgument("ha.tls_certificate",
                                   "is required when ha.tls_key is set (both or neither)");
  if (ha.tls_key.empty() && !ha.tls_certificate.empty())
    return Status::InvalidArgument("ha.tls_key",
                                   "is required when ha.tls_certificate is set (both or neither)");
  return Status::Ok();
}

// The schema. Keep config/locsched.toml and docs/config.md in step (tests check both).
const ConfigKey kTable[] = {
    // [sockets]
    {.key = "sockets.event_path",
     .default_text = "/run/locsched/events.sock",
     .help = "path of the event socket (cluster agents, tailer), at most 103 bytes",
     .apply = ApplyString<kSockets, &SocketsConfig::event_path>,
     .format = FormatString<kSockets, &SocketsConfig::event_path>},
    {.key = "sockets.event_mode",
     .type = ConfigType::kMode,
     .default_text = "0660",
     .help = "file mode of the event socket, octal",
     .apply = ApplyMode<kSockets, &SocketsConfig::event_mode>,
     .format = FormatMode<kSockets, &SocketsConfig::event_mode>},
    {.key = "sockets.event_group",
     .default_text = "",
     .help = "group owning the event socket; \"\" = the daemon's group",
     .apply = ApplyString<kSockets, &SocketsConfig::event_group>,
     .format = FormatString<kSockets, &SocketsConfig::event_group>},
    {.key = "sockets.control_path",
     .default_text = "/run/locsched/control.sock",
     .help = "path of the control socket (locschedctl), at most 103 bytes",
     .apply = ApplyString<kSockets, &SocketsConfig::control_path>,
     .format = FormatString<kSockets, &SocketsConfig::control_path>},
    {.key = "sockets.control_mode",
     .type = ConfigType::kMode,
     .default_text = "0600",
     .help = "file mode of the control socket, octal",
     .apply = ApplyMode<kSockets, &SocketsConfig::control_mode>,
     .format = FormatMode<kSockets, &SocketsConfig::control_mode>},
    {.key = "sockets.control_group",
     .default_text = "",
     .help = "group owning the control socket; \"\" = the daemon's group",
     .apply = ApplyString<kSockets, &SocketsConfig::control_group>,
     .format = FormatString<kSockets, &SocketsConfig::control_group>},
    // [limits]
    {.key = "limits.max_line_bytes",
     .type = ConfigType::kInt,
     .min_int = 256,
     .max_int = 67108864,
     .default_text = "1048576",
     .reloadable = true,
     .help = "longest request line in bytes; longer lines are rejected",
     .apply = ApplyInt<kLimits, &LimitsConfig::max_line_bytes>,
     .format = FormatInt<kLimits, &LimitsConfig::max_line_bytes>},
    {.key = "limits.max_clients",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 100000,
     .default_text = "1024",
     .reloadable = true,
     .help = "clients connected at once on the event socket (clamped at start to what "
             "RLIMIT_NOFILE allows)",
     .apply = ApplyInt<kLimits, &LimitsConfig::max_clients>,
     .format = FormatInt<kLimits, &LimitsConfig::max_clients>},
    {.key = "limits.max_control_clients",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 10000,
     .default_text = "16",
     .reloadable = true,
     .help = "clients connected at once on the control socket, apart from the event socket's, so "
             "an operator gets in while agents fill theirs",
     .apply = ApplyInt<kLimits, &LimitsConfig::max_control_clients>,
     .format = FormatInt<kLimits, &LimitsConfig::max_control_clients>},
    {.key = "limits.idle_timeout_s",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 604800,
     .default_text = "600",
     .reloadable = true,
     .help = "seconds a connection may send nothing, or leave a reply unread, before it is "
             "closed; 0 = never",
     .apply = ApplyDouble<kLimits, &LimitsConfig::idle_timeout_s>,
     .format = FormatDoubleField<kLimits, &LimitsConfig::idle_timeout_s>},
    {.key = "limits.max_tasks_per_job",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 10000000,
     .default_text = "1000000",
     .reloadable = true,
     .help = "tasks in one submitted job",
     .apply = ApplyInt<kLimits, &LimitsConfig::max_tasks_per_job>,
     .format = FormatInt<kLimits, &LimitsConfig::max_tasks_per_job>},
    {.key = "limits.dedupe_window",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 100000000,
     .default_text = "1000000",
     .help = "how many recent event ids are remembered to drop duplicates; 0 = off",
     .apply = ApplyInt<kLimits, &LimitsConfig::dedupe_window>,
     .format = FormatInt<kLimits, &LimitsConfig::dedupe_window>},
    {.key = "limits.client_buffer_bytes",
     .type = ConfigType::kInt,
     .min_int = 4096,
     .max_int = 1073741824,
     .default_text = "8388608",
     .reloadable = true,
     .help = "per-client output buffer in bytes before backpressure",
     .apply = ApplyInt<kLimits, &LimitsConfig::client_buffer_bytes>,
     .format = FormatInt<kLimits, &LimitsConfig::client_buffer_bytes>},
    // [scheduler]
    {.key = "scheduler.policy",
     .type = ConfigType::kEnum,
     .allowed = kPolicies,
     .default_text = "late-binding",
     .help = "scheduling policy",
     .apply = ApplyPolicy,
     .format = FormatPolicy},
    {.key = "scheduler.machine_queue_order",
     .type = ConfigType::kEnum,
     .allowed = kIntraQueues,
     .default_text = "fair",
     .reloadable = false,
     .help = "which job a machine serves inside the machine queue it chose (jsq-maxweight; "
             "formerly scheduler.intra_queue, still read with a warning)",
     .apply = ApplyIntra,
     .format = FormatIntra},
    {.key = "scheduler.job_order",
     .type = ConfigType::kEnum,
     .allowed = kJobOrders,
     .default_text = "auto",
     .reloadable = false,
     .help = "how late-binding, fair and delay rank jobs: auto (srpt for late-binding, fair "
             "for the others, as Zaharia et al.'s delay scheduling does), fair (fewest running "
             "tasks), srpt (fewest tasks left), smith (weight per task left) or lp (late-binding: "
             "the backlog LP's order, re-solved with lp.enabled; smith until the first solve)",
     .apply = ApplyJobOrder,
     .format = FormatJobOrder},
    {.key = "scheduler.job_aging",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 1e9,
     .default_text = "300",
     .reloadable = false,
     .help = "late-binding: seconds a job may go without starting a task before it is served "
             "first (0: no bound)",
     .apply = ApplyDouble<kSched, &SchedulerConfig::job_aging>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::job_aging>},
    {.key = "scheduler.duration_cv",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 10,
     .default_text = "1",
     .reloadable = false,
     .help = "late-binding: coefficient of variation of task times (1: exponential, 0: fixed); "
             "a job ends with its last task, so the wider the spread, the longer a task of a "
             "job with other tasks running or queued waits for a replica holder",
     .apply = ApplyDouble<kSched, &SchedulerConfig::duration_cv>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::duration_cv>},
    {.key = "scheduler.beta",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .min_real_open = true,
     .max_real = 1e6,
     .default_text = "0.4",
     .reloadable = true,
     .help = "rack-local service rate (balanced-pandas, late-binding), between gamma and alpha; "
             "the prior of the learnt one",
     .apply = ApplyDouble<kSched, &SchedulerConfig::beta>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::beta>},
    {.key = "scheduler.alpha",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .min_real_open = true,
     .max_real = 1e6,
     .default_text = "0.8",
     .reloadable = true,
     .help = "local service rate (tasks per second per slot) before any is learnt",
     .apply = ApplyDouble<kSched, &SchedulerConfig::alpha>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::alpha>},
    {.key = "scheduler.gamma",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .min_real_open = true,
     .max_real = 1e6,
     .default_text = "0.2",
     .reloadable = true,
     .help = "remote service rate before any is learnt (its ratio to alpha scales the learnt "
             "alpha until remote samples arrive); must be <= alpha",
     .apply = ApplyDouble<kSched, &SchedulerConfig::gamma>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::gamma>},
    {.key = "scheduler.learn_rates",
     .type = ConfigType::kBool,
     .default_text = "true",
     .reloadable = true,
     .help = "learn alpha, beta and gamma from observed task durations",
     .apply = ApplyBool<kSched, &SchedulerConfig::learn_rates>,
     .format = FormatBool<kSched, &SchedulerConfig::learn_rates>},
    {.key = "scheduler.rate_window",
     .type = ConfigType::kInt,
     .min_int = 10,
     .max_int = 100000000,
     .default_text = "10000",
     .reloadable = true,
     .help = "completions the learnt rates average over",
     .apply = ApplyInt<kSched, &SchedulerConfig::rate_window>,
     .format = FormatInt<kSched, &SchedulerConfig::rate_window>},
    {.key = "scheduler.workload_speed",
     .type = ConfigType::kDouble,
     .min_real = 0.001,
     .max_real = 1e6,
     .default_text = "1",
     .reloadable = true,
     .help = "workload seconds per wall second: the rebalance and LP re-solve timers count "
             "workload time, so they run this many times faster on the wall clock (a replay "
             "at locsched-tail --speed N sets N; 1: live)",
     .apply = ApplyDouble<kSched, &SchedulerConfig::workload_speed>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::workload_speed>},
    {.key = "scheduler.delay_wait",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 86400,
     .default_text = "20",
     .reloadable = false,
     .help = "delay policy: seconds of the daemon's clock a job without a local task waits, "
             "since it last ran a local task or became runnable, before it may run remote",
     .apply = ApplyDouble<kSched, &SchedulerConfig::delay_wait>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::delay_wait>},
    {.key = "scheduler.node_locality_delay",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000000,
     .default_text = "40",
     .reloadable = false,
     .help = "capacity-scheduler: YARN's node-locality-delay, missed scheduling opportunities "
             "(free slots offered to a job that declined them) before a job may run rack-local; "
             "capped at the machines",
     .apply = ApplyInt<kSched, &SchedulerConfig::node_locality_delay>,
     .format = FormatInt<kSched, &SchedulerConfig::node_locality_delay>},
    {.key = "scheduler.rack_locality_delay",
     .type = ConfigType::kInt,
     .min_int = -1,
     .max_int = 1000000,
     .default_text = "-1",
     .reloadable = false,
     .help = "capacity-scheduler: YARN's rack-locality-additional-delay, further missed "
             "opportunities before off-rack; -1: derived per job as YARN does, queued tasks x "
             "min(1, its input's machines and racks / machines)",
     .apply = ApplyInt<kSched, &SchedulerConfig::rack_locality_delay>,
     .format = FormatInt<kSched, &SchedulerConfig::rack_locality_delay>},
    {.key = "scheduler.locality_threshold_node",
     .type = ConfigType::kDouble,
     .min_real = -1,
     .max_real = 1,
     .default_text = "-1",
     .reloadable = false,
     .help = "fair-scheduler: YARN's locality.threshold.node, the fraction of the machines whose "
             "opportunities a job declines before it may run rack-local; negative: off",
     .apply = ApplyDouble<kSched, &SchedulerConfig::locality_threshold_node>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::locality_threshold_node>},
    {.key = "scheduler.locality_threshold_rack",
     .type = ConfigType::kDouble,
     .min_real = -1,
     .max_real = 1,
     .default_text = "-1",
     .reloadable = false,
     .help = "fair-scheduler: YARN's locality.threshold.rack, the fraction of the machines whose "
             "opportunities a job at the rack level declines before it may run off-rack; "
             "negative: off",
     .apply = ApplyDouble<kSched, &SchedulerConfig::locality_threshold_rack>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::locality_threshold_rack>},
    {.key = "scheduler.remote_bias",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000000,
     .default_text = "0",
     .reloadable = false,
     .help = "with jsq-maxweight, a task joins the remote queue only when it is shorter than every "
             "local one by more than this (0: the paper's rule, ties at random)",
     .apply = ApplyInt<kSched, &SchedulerConfig::remote_bias>,
     .format = FormatInt<kSched, &SchedulerConfig::remote_bias>},
    {.key = "scheduler.priority_slack",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000000,
     .default_text = "5",
     .reloadable = false,
     .help = "with machine_queue_order = priority, a task bound for the remote queue joins a local "
             "queue up to "
             "this much longer where few tasks run before it (0: off, the paper's routing)",
     .apply = ApplyInt<kSched, &SchedulerConfig::priority_slack>,
     .format = FormatInt<kSched, &SchedulerConfig::priority_slack>},
    {.key = "scheduler.max_task_retries",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000,
     .default_text = "3",
     .reloadable = true,
     .help = "times a failed task is requeued before its job fails",
     .apply = ApplyInt<kSched, &SchedulerConfig::max_task_retries>,
     .format = FormatInt<kSched, &SchedulerConfig::max_task_retries>},
    {.key = "scheduler.task_timeout_s",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 1e7,
     .default_text = "0",
     .reloadable = true,
     .help = "workload seconds a task may run on a live machine before it counts as failed "
             "(retried like a task_failed; on the wall clock divided by workload_speed); 0 = off",
     .apply = ApplyDouble<kSched, &SchedulerConfig::task_timeout_s>,
     .format = FormatDoubleField<kSched, &SchedulerConfig::task_timeout_s>},
    {.key = "scheduler.seed",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = kInt64Max,
     .default_text = "1",
     .help = "seed of the random tie-breaks (same seed + same events = same decisions)",
     .apply = ApplyInt<kSched, &SchedulerConfig::seed>,
     .format = FormatInt<kSched, &SchedulerConfig::seed>},
    // [machines]
    {.key = "machines.expiry_s",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 86400,
     .default_text = "30",
     .reloadable = true,
     .help = "wall seconds without a heartbeat or machine_up after which a machine is lost: its "
             "running tasks are requeued (no retry used) and it takes no work until it is heard "
             "again; 10 heartbeats of the agents' 3 s; 0 = never",
     .apply = ApplyDouble<kMachines, &MachinesConfig::expiry_s>,
     .format = FormatDoubleField<kMachines, &MachinesConfig::expiry_s>},
    // [preemption]
    {.key = "preemption.timeout_s",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 1e7,
     .default_text = "0",
     .reloadable = true,
     .help = "workload seconds a tenant queue stays below its guarantee, with work queued, before "
             "the running tasks of queues above theirs are preempted for it (requeued without "
             "using a retry); needs [queue.*]; 0 = off; 30 is a good start",
     .apply = ApplyDouble<kPreempt, &PreemptionConfig::timeout_s>,
     .format = FormatDoubleField<kPreempt, &PreemptionConfig::timeout_s>},
    {.key = "preemption.kill_wait_s",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .max_real = 3600,
     .default_text = "3",
     .reloadable = true,
     .help = "workload seconds after preemption.timeout_s during which the starved queue takes "
             "the slots that free, each kept for it, before running tasks are stopped for what "
             "is still missing (YARN's max_wait_before_kill); 3 = one heartbeat of the agents; "
             "0 = stop at the timeout",
     .apply = ApplyDouble<kPreempt, &PreemptionConfig::kill_wait_s>,
     .format = FormatDoubleField<kPreempt, &PreemptionConfig::kill_wait_s>},
    // [log]
    {.key = "log.level",
     .type = ConfigType::kEnum,
     .allowed = kLogLevels,
     .default_text = "info",
     .reloadable = true,
     .help = "least severe level written",
     .apply = ApplyLevel,
     .format = FormatLevel},
    {.key = "log.target",
     .type = ConfigType::kEnum,
     .allowed = kLogTargets,
     .default_text = "auto",
     .help = "where logs go; auto = the journal under systemd, else stderr",
     .apply = ApplyTarget,
     .format = FormatTarget},
    // [journal]
    {.key = "journal.path",
     .default_text = "",
     .help = "the journal file; \"\" = none: events are acknowledged without being made durable",
     .apply = ApplyString<kJournal, &JournalConfig::path>,
     .format = FormatString<kJournal, &JournalConfig::path>},
    {.key = "journal.sync",
     .type = ConfigType::kEnum,
     .allowed = kJournalSyncs,
     .default_text = "batched",
     .help = "always: fdatasync per write; batched: one per burst of events (group commit); "
             "interval: at most every interval_ms (survives a crash, not a power cut)",
     .apply = ApplySync,
     .format = FormatSync},
    {.key = "journal.interval_ms",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 60000,
     .default_text = "100",
     .help = "interval mode: the longest time between two fdatasyncs",
     .apply = ApplyInt<kJournal, &JournalConfig::interval_ms>,
     .format = FormatInt<kJournal, &JournalConfig::interval_ms>},
    {.key = "journal.min_free_mb",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000000,
     .default_text = "64",
     .reloadable = true,
     .help = "refuse events (resource_exhausted) while the journal's disk has less free space",
     .apply = ApplyInt<kJournal, &JournalConfig::min_free_mb>,
     .format = FormatInt<kJournal, &JournalConfig::min_free_mb>},
    {.key = "journal.snapshot_mb",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000000,
     .default_text = "64",
     .reloadable = true,
     .help = "write a snapshot and start a new journal once the journal passes this size; "
             "0 = only on the snapshot command and at a clean stop",
     .apply = ApplyInt<kJournal, &JournalConfig::snapshot_mb>,
     .format = FormatInt<kJournal, &JournalConfig::snapshot_mb>},
    // [lp]
    {.key = "lp.enabled",
     .type = ConfigType::kBool,
     .default_text = "true",
     .reloadable = false,
     .help = "run the periodic backlog LP re-solve (its order feeds machine_queue_order = "
             "priority, and "
             "late-binding's job_order = lp) and "
             "the capacity headroom",
     .apply = ApplyBool<kLp, &LpConfig::enabled>,
     .format = FormatBool<kLp, &LpConfig::enabled>},
    {.key = "lp.base_interval_s",
     .type = ConfigType::kDouble,
     .min_real = 1,
     .max_real = 3600,
     .default_text = "5",
     .reloadable = true,
     .help = "seconds between re-solves after a burst; the interval grows from here while the "
             "backlog is quiet",
     .apply = ApplyDouble<kLp, &LpConfig::base_interval_s>,
     .format = FormatDoubleField<kLp, &LpConfig::base_interval_s>},
    {.key = "lp.max_interval_s",
     .type = ConfigType::kDouble,
     .min_real = 1,
     .max_real = 86400,
     .default_text = "60",
     .reloadable = true,
     .help = "longest interval between re-solves; must be >= base_interval_s",
     .apply = ApplyDouble<kLp, &LpConfig::max_interval_s>,
     .format = FormatDoubleField<kLp, &LpConfig::max_interval_s>},
    {.key = "lp.growth",
     .type = ConfigType::kDouble,
     .min_real = 1,
     .max_real = 100,
     .default_text = "2",
     .reloadable = true,
     .help = "factor the interval grows by after each quiet re-solve",
     .apply = ApplyDouble<kLp, &LpConfig::growth>,
     .format = FormatDoubleField<kLp, &LpConfig::growth>},
    {.key = "lp.max_share",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .min_real_open = true,
     .max_real = 1,
     .default_text = "0.1",
     .reloadable = true,
     .help = "most of the wall time the solver may use; a slow solve pushes the next one back",
     .apply = ApplyDouble<kLp, &LpConfig::max_share>,
     .format = FormatDoubleField<kLp, &LpConfig::max_share>},
    {.key = "lp.burst_tasks",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 1000000000,
     .default_text = "1000",
     .reloadable = true,
     .help = "queued tasks added since the last solve that count as a burst (re-solve now, "
             "interval back to base)",
     .apply = ApplyInt<kLp, &LpConfig::burst_tasks>,
     .format = FormatInt<kLp, &LpConfig::burst_tasks>},
    {.key = "lp.epsilon",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .min_real_open = true,
     .max_real = 100,
     .default_text = "1",
     .reloadable = true,
     .help = "interval growth of the LP's time grid: d_l = d_1 * (1 + epsilon)^(l-1)",
     .apply = ApplyDouble<kLp, &LpConfig::epsilon>,
     .format = FormatDoubleField<kLp, &LpConfig::epsilon>},
    {.key = "lp.max_jobs",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 100000,
     .default_text = "128",
     .reloadable = true,
     .help =
         "jobs inside the LP (those with the best weight per work); the rest follow in Smith order",
     .apply = ApplyInt<kLp, &LpConfig::max_jobs>,
     .format = FormatInt<kLp, &LpConfig::max_jobs>},
    {.key = "lp.classes",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 1024,
     .default_text = "4",
     .reloadable = true,
     .help = "machine classes of the LP (racks folded modulo this; machine ids when there are no "
             "racks)",
     .apply = ApplyInt<kLp, &LpConfig::classes>,
     .format = FormatInt<kLp, &LpConfig::classes>},
    {.key = "lp.time_limit_ms",
     .type = ConfigType::kInt,
     .min_int = 10,
     .max_int = 600000,
     .default_text = "1000",
     .reloadable = true,
     .help = "GLPK time limit of one solve; a solve that hits it keeps the last good order and "
             "backs off",
     .apply = ApplyInt<kLp, &LpConfig::time_limit_ms>,
     .format = FormatInt<kLp, &LpConfig::time_limit_ms>},
    {.key = "lp.headroom_window_s",
     .type = ConfigType::kDouble,
     .min_real = 1,
     .max_real = 86400,
     .default_text = "60",
     .reloadable = true,
     .help = "sliding window of task arrivals the capacity headroom estimates rates over",
     .apply = ApplyDouble<kLp, &LpConfig::headroom_window_s>,
     .format = FormatDoubleField<kLp, &LpConfig::headroom_window_s>},
    // [watchdog]
    {.key = "watchdog.enabled",
     .type = ConfigType::kBool,
     .default_text = "true",
     .help = "answer systemd's watchdog (WatchdogSec=) from the event loop",
     .apply = ApplyBool<&Config::watchdog, &WatchdogConfig::enabled>,
     .format = FormatBool<&Config::watchdog, &WatchdogConfig::enabled>},
    // [rebalance]
    {.key = "rebalance.enabled",
     .type = ConfigType::kBool,
     .default_text = "false",
     .reloadable = true,
     .help = "rebalance by max-cover + bal-assign when a trigger fires: jsq-maxweight moves "
             "queued tasks between queues, late-binding lets free machines take the tasks of a "
             "large job that finish sooner off their holders (off by default); locschedctl "
             "rebalance works either way",
     .apply = ApplyBool<kRebal, &RebalanceConfig::enabled>,
     .format = FormatBool<kRebal, &RebalanceConfig::enabled>},
    {.key = "rebalance.big_job_tasks",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 100000000,
     .default_text = "1000",
     .reloadable = true,
     .help = "a submitted job with at least this many tasks triggers a rebalance",
     .apply = ApplyInt<kRebal, &RebalanceConfig::big_job_tasks>,
     .format = FormatInt<kRebal, &RebalanceConfig::big_job_tasks>},
    {.key = "rebalance.imbalance",
     .type = ConfigType::kDouble,
     .min_real = 1,
     .max_real = 1e6,
     .default_text = "4",
     .reloadable = true,
     .help = "trigger when the longest local queue exceeds this many times the mean local "
             "queue length plus one",
     .apply = ApplyDouble<kRebal, &RebalanceConfig::imbalance>,
     .format = FormatDoubleField<kRebal, &RebalanceConfig::imbalance>},
    {.key = "rebalance.base_interval_ms",
     .type = ConfigType::kInt,
     .min_int = 10,
     .max_int = 3600000,
     .default_text = "1000",
     .reloadable = true,
     .help = "the adaptive timer's first interval, also how often triggers are checked",
     .apply = ApplyInt<kRebal, &RebalanceConfig::base_interval_ms>,
     .format = FormatInt<kRebal, &RebalanceConfig::base_interval_ms>},
    {.key = "rebalance.max_interval_ms",
     .type = ConfigType::kInt,
     .min_int = 10,
     .max_int = 86400000,
     .default_text = "60000",
     .reloadable = true,
     .help = "the adaptive timer doubles while quiet up to this; must be >= base_interval_ms",
     .apply = ApplyInt<kRebal, &RebalanceConfig::max_interval_ms>,
     .format = FormatInt<kRebal, &RebalanceConfig::max_interval_ms>},
    {.key = "rebalance.max_share",
     .type = ConfigType::kDouble,
     .min_real = 0,
     .min_real_open = true,
     .max_real = 1,
     .default_text = "0.1",
     .reloadable = true,
     .help = "largest share of wall time the solver may use: a run of d CPU seconds delays "
             "the next by at least d / max_share",
     .apply = ApplyDouble<kRebal, &RebalanceConfig::max_share>,
     .format = FormatDoubleField<kRebal, &RebalanceConfig::max_share>},
    {.key = "rebalance.uncovered_to_remote",
     .type = ConfigType::kBool,
     .default_text = "false",
     .reloadable = true,
     .help = "move the tasks max-cover leaves uncovered to the remote queue, as Algorithm 2 "
             "assigns them; false leaves them in the local queue JSQ chose",
     .apply = ApplyBool<kRebal, &RebalanceConfig::uncovered_to_remote>,
     .format = FormatBool<kRebal, &RebalanceConfig::uncovered_to_remote>},
    // [http]
    {.key = "http.listen",
     .default_text = "",
     .help =
         "address of the HTTP listener (/metrics, /status, /machine-queues, the dashboard at /): "
         "\"PORT\" (on 127.0.0.1), \"IP:PORT\" or \"[IPV6]:PORT\"; \"\" = off",
     .apply = ApplyString<kHttp, &HttpConfig::listen>,
     .format = FormatString<kHttp, &HttpConfig::listen>},
    {.key = "http.max_connections",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 1024,
     .default_text = "16",
     .help = "HTTP connections open at once; one more is closed at once",
     .apply = ApplyInt<kHttp, &HttpConfig::max_connections>,
     .format = FormatInt<kHttp, &HttpConfig::max_connections>},
    {.key = "http.timeout_ms",
     .type = ConfigType::kInt,
     .min_int = 10,
     .max_int = 600000,
     .default_text = "5000",
     .help = "a request must arrive and its reply be written within this, and an idle "
             "keep-alive connection is closed after it",
     .apply = ApplyInt<kHttp, &HttpConfig::timeout_ms>,
     .format = FormatInt<kHttp, &HttpConfig::timeout_ms>},
    // [history]
    {.key = "history.finished_jobs",
     .type = ConfigType::kInt,
     .min_int = 0,
     .max_int = 1000000,
     .default_text = "1000",
     .reloadable = true,
     .help = "the last finished jobs remembered with their outcome, completion time and "
             "locality (jobs --finished, job); kept in snapshots; 0 = none",
     .apply = ApplyInt<kHistory, &HistoryConfig::finished_jobs>,
     .format = FormatInt<kHistory, &HistoryConfig::finished_jobs>},
    // [ha]
    {.key = "ha.zookeeper",
     .default_text = "",
     .help = "ZooKeeper servers \"HOST:PORT,...\" of high-availability mode (active/standby "
             "instances, state in ZooKeeper); \"\" = single-node mode with the local journal",
     .apply = ApplyString<kHa, &HaConfig::zookeeper>,
     .format = FormatString<kHa, &HaConfig::zookeeper>},
    {.key = "ha.path",
     .default_text = "/locsched",
     .help = "this cluster's folder in ZooKeeper (election, epoch, log, snapshots)",
     .apply = ApplyString<kHa, &HaConfig::path>,
     .format = FormatString<kHa, &HaConfig::path>},
    {.key = "ha.session_timeout_ms",
     .type = ConfigType::kInt,
     .min_int = 1000,
     .max_int = 120000,
     .default_text = "4000",
     .help = "an instance that ZooKeeper has not heard from for this long loses its session: "
             "a standby takes over and the old active can no longer write",
     .apply = ApplyInt<kHa, &HaConfig::session_timeout_ms>,
     .format = FormatInt<kHa, &HaConfig::session_timeout_ms>},
    {.key = "ha.instance",
     .default_text = "",
     .help = "\"IP:PORT\" of this instance's TCP listener, as clients reach it (announced in "
             "the election); required in high-availability mode",
     .apply = ApplyString<kHa, &HaConfig::instance>,
     .format = FormatString<kHa, &HaConfig::instance>},
    {.key = "ha.secret_file",
     .default_text = "",
     .help = "file holding the shared secret every TCP client presents in its hello; required "
             "in high-availability mode",
     .apply = ApplyString<kHa, &HaConfig::secret_file>,
     .format = FormatString<kHa, &HaConfig::secret_file>},
    {.key = "ha.zookeeper_auth_file",
     .default_text = "",
     .help = "file holding USER:PASSWORD, the same on every instance: the daemon authenticates "
             "to ZooKeeper with it (digest) and creates its nodes under ha.path with an ACL "
             "granting that identity alone every right; \"\" = nodes open to every ZooKeeper "
             "client",
     .apply = ApplyString<kHa, &HaConfig::zookeeper_auth_file>,
     .format = FormatString<kHa, &HaConfig::zookeeper_auth_file>},
    {.key = "ha.tls_certificate",
     .default_text = "",
     .help = "PEM file holding the TCP listener's certificate (then its chain); set with "
             "ha.tls_key, the listener speaks TLS only and clients connect with tls:HOST:PORT; "
             "\"\" = plain TCP",
     .apply = ApplyString<kHa, &HaConfig::tls_certificate>,
     .format = FormatString<kHa, &HaConfig::tls_certificate>},
    {.key = "ha.tls_key",
     .default_text = "",
     .help = "PEM file holding the private key of ha.tls_certificate (both or neither)",
     .apply = ApplyString<kHa, &HaConfig::tls_key>,
     .format = FormatString<kHa, &HaConfig::tls_key>},
    {.key = "ha.snapshot_mb",
     .type = ConfigType::kInt,
     .min_int = 1,
     .max_int = 1024,
     .default_text = "16",
     .help = "the active writes a snapshot into ZooKeeper once this much log follows the last "
             "one, and trims the log behind the one before",
     .apply = ApplyInt<kHa, &HaConfig::snapshot_mb>,
     .format = FormatInt<kHa, &HaConfig::snapshot_mb>},
    {.key = "ha.snapshot_entries",
     .type = ConfigType::kInt,
     .min_int = 100,
     .max_int = 1000000,
     .default_text = "20000",
     .help = "... or once this many log entries (one per burst of events) follow it",
     .apply = ApplyInt<kHa, &HaConfig::snapshot_entries>,
     .format = FormatInt<kHa, &HaConfig::snapshot_entries>},
};

std::string_view ValueTypeName(const ConfigValue& v) {
  static constexpr std::array<std::string_view, 4> kNames{"boolean", "integer", "float", "string"};
  return kNames[v.index()];
}

std::string WrongType(const ConfigKey& k, const ConfigValue& v) {
  return "expected " + DescribeType(k) + ", got " + std::string(ValueTypeName(v));
}

std::string OutOfRange(const ConfigKey& k, const std::string& value) {
  return value + " is out of range " + DescribeLimits(k);
}

Status CheckNumber(const ConfigKey& k, ConfigValue* v) {
  if (k.type == ConfigType::kInt) {
    if (!std::holds_alternative<int64_t>(*v))
      return Status::InvalidArgument(std::string(k.key), WrongType(k, *v));
    int64_t i = std::get<int64_t>(*v);
    if (i < k.min_int || i > k.max_int)
      return Status::InvalidArgument(std::string(k.key), OutOfRange(k, std::to_string(i)));
    return Status::Ok();
  }
  if (std::holds_alternative<int64_t>(*v)) *v = static_cast<double>(std::get<int64_t>(*v));
  if (!std::holds_alternative<double>(*v))
    return Status::InvalidArgument(std::string(k.key), WrongType(k, *v));
  double d = std::get<double>(*v);
  bool above_min = k.min_real_open ? d > k.min_real : d >= k.min_real;
  if (!(above_min && d <= k.max_real))  // also rejects NaN
    return Status::InvalidArgument(std::string(k.key), OutOfRange(k, FormatDouble(d)));
  return Status::Ok();
}

Status CheckText(const ConfigKey& k, const ConfigValue& v) {
  if (!std::holds_alternative<std::string>(v))
    return Status::InvalidArgument(std::string(k.key), WrongType(k, v));
  const std::string& s = std::get<std::string>(v);
  if (k.type == ConfigType::kMode && !ParseFileMode(s))
    return Status::InvalidArgument(std::string(k.key),
                                   "\"" + s + "\" is not an octal file mode " + DescribeLimits(k));
  if (k.type == ConfigType::kEnum) {
    for (std::string_view a : k.allowed)
      if (a == s) return Status::Ok();
    return Status::InvalidArgument(std::string(k.key),
                                   "\"" + s + "\" is not one of " + DescribeLimits(k));
  }
  return Status::Ok();
}

}  // namespace

std::span<const ConfigKey> ConfigTable() {
  return kTable;
}

const ConfigKey* FindConfigKey(std::string_view key) {
  for (const ConfigKey& k : kTable)
    if (k.key == key) return &k;
  return nullptr;
}

std::string_view ConfigSection(const ConfigKey& k) {
  return k.key.substr(0, k.key.find('.'));
}

std::string_view ConfigName(const ConfigKey& k) {
  return k.key.substr(k.key.find('.') + 1);
}

namespace {

// Appends the parts into one string. GCC 12 misreads `"literal" + std::string&&` (an
// insert at offset 0) as an overlapping memcpy (-Wrestrict at -O3, -Wstringop-overflow
// under LTO); appending to a reserved string builds the same text without it.
std::string Concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  out.reserve(size);
  for (std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace

std::string DescribeLimits(const ConfigKey& k) {
  switch (k.type) {
    case ConfigType::kInt:
      return Concat({"[", std::to_string(k.min_int), ", ", std::to_string(k.max_int), "]"});
    case ConfigType::kDouble:
      return Concat({k.min_real_open ? "(" : "[", FormatDouble(k.min_real), ", ",
                     FormatDouble(k.max_real), "]"});
    case ConfigType::kEnum: {
      std::string out;
      for (std::string_view a : k.allowed) {
        if (!out.empty()) out += '|';
        out.append(a);
      }
      return out;
    }
    case ConfigType::kMode:
      return "0000..0777";
    default:
      return "";
  }
}

std::string DescribeType(const ConfigKey& k) {
  switch (k.type) {
    case ConfigType::kBool:
      return "a boolean";
    case ConfigType::kInt:
      return "an integer in " + DescribeLimits(k);
    case ConfigType::kDouble:
      return "a number in " + DescribeLimits(k);
    case ConfigType::kEnum:
      return "one of " + DescribeLimits(k);
    case ConfigType::kMode:
      return "an octal mode string " + DescribeLimits(k);
    default:
      return "a string";
  }
}

Status SetConfigValue(const ConfigKey& k, const ConfigValue& v, Config* c) {
  ConfigValue value = v;
  Status s;
  switch (k.type) {
    case ConfigType::kBool:
      if (!std::holds_alternative<bool>(v))
        s = Status::InvalidArgument(std::string(k.key), WrongType(k, v));
      break;
    case ConfigType::kInt:
    case ConfigType::kDouble:
      s = CheckNumber(k, &value);
      break;
    default:
      s = CheckText(k, v);
  }
  if (s.ok()) k.apply(value, c);
  return s;
}

Status SetConfigText(const ConfigKey& k, std::string_view text, Config* c) {
  const char* end = text.data() + text.size();
  ConfigValue v = std::string(text);
  bool ok = true;
  if (k.type == ConfigType::kBool) {
    ok = text == "true" || text == "false";
    v = text == "true";
  } else if (k.type == ConfigType::kInt) {
    int64_t i = 0;
    auto r = std::from_chars(text.data(), end, i);
    ok = r.ec == std::errc() && r.ptr == end;
    v = i;
  } else if (k.type == ConfigType::kDouble) {
    double d = 0;
    auto r = std::from_chars(text.data(), end, d);
    ok = r.ec == std::errc() && r.ptr == end;
    v = d;
  }
  if (!ok)
    return Status::InvalidArgument(std::string(k.key),
                                   Concat({"\"", text, "\" is not ", DescribeType(k)}));
  return SetConfigValue(k, v, c);
}

std::string TomlLiteral(const ConfigKey& k, std::string_view text) {
  if (k.type == ConfigType::kBool || k.type == ConfigType::kInt || k.type == ConfigType::kDouble)
    return std::string(text);
  std::string quoted;
  for (char ch : text) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    quoted += ch;
  }
  return Concat({"\"", EscapeControlChars(quoted), "\""});
}

std::string EscapeControlChars(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

Status ValidateConfig(const Config& c) {
  if (c.sockets.control_mode & 0002)
    return Status::InvalidArgument(
        "sockets.control_mode",
        "\"" + FormatFileMode(c.sockets.control_mode) +
            "\" lets every local user write to the control socket; use 0600, or 0660 with "
            "sockets.control_group");
  if (c.scheduler.gamma > c.scheduler.alpha)
    return Status::InvalidArgument("scheduler.gamma", FormatDouble(c.scheduler.gamma) +
                                                          " must be <= scheduler.alpha (" +
                                                          FormatDouble(c.scheduler.alpha) + ")");
  if (c.machines.expiry_s > 0 && c.machines.expiry_s < 1)
    return Status::InvalidArgument("machines.expiry_s",
                                   FormatDouble(c.machines.expiry_s) +
                                       " must be 0 (never) or at least 1 (machines are checked "
                                       "once a second, and heartbeat every few seconds)");
  if (c.rebalance.max_interval_ms < c.rebalance.base_interval_ms)
    return Status::InvalidArgument("rebalance.max_interval_ms",
                                   std::to_string(c.rebalance.max_interval_ms) +
                                       " must be >= rebalance.base_interval_ms (" +
                                       std::to_string(c.rebalance.base_interval_ms) + ")");
  if (c.scheduler.job_order == JobOrder::kLp && c.scheduler.policy != PolicyKind::kLateBinding)
    return Status::InvalidArgument("scheduler.job_order",
                                   "lp orders late-binding's jobs only (jsq-maxweight takes the "
                                   "LP's order with machine_queue_order = priority)");
  if (c.lp.max_interval_s < c.lp.base_interval_s)
    return Status::InvalidArgument("lp.max_interval_s", FormatDouble(c.lp.max_interval_s) +
                                                            " must be >= lp.base_interval_s (" +
                                                            FormatDouble(c.lp.base_interval_s) +
                                                            ")");
  if (!c.http.listen.empty()) {
    ListenAddress address;
    if (Status s = ParseListenAddress(c.http.listen, &address); !s.ok()) return s;
  }
  if (Status s = ValidateHaTls(c.ha); !s.ok()) return s;
  return ValidateHa(c.ha);
}

namespace {

bool IsIpLiteral(const std::string& host) {
  in6_addr buf{};
  const int family = host.find(':') == std::string::npos ? AF_INET : AF_INET6;
  return inet_pton(family, host.c_str(), &buf) == 1;
}

}  // namespace

Status ParseListenAddress(std::string_view text, ListenAddress* out) {
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("http.listen", Concat({"\"", text, "\" ", why}));
  };
  const size_t colon = text.rfind(':');
  const std::string_view port_text = colon == text.npos ? text : text.substr(colon + 1);
  std::string host = colon == text.npos ? "127.0.0.1" : std::string(text.substr(0, colon));
  unsigned port = 0;
  const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || r.ec != std::errc() || r.ptr != port_text.data() + port_text.size())
    return bad("has no port: expected PORT, IP:PORT or [IPV6]:PORT");
  if (port < 1 || port > 65535) return bad("has a port out of range [1, 65535]");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos)
    return bad("needs brackets around an IPv6 address: [IPV6]:PORT");
  if (host == "localhost") host = "127.0.0.1";
  if (!IsIpLiteral(host)) return bad("is not an IP address (host names are not looked up)");
  out->host = host;
  out->port = static_cast<uint16_t>(port);
  return Status::Ok();
}

std::optional<uint32_t> ParseFileMode(std::string_view text) {
  if (text.size() < 3 || text.size() > 4) return std::nullopt;
  uint32_t mode = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '7') return std::nullopt;
    mode = mode * 8 + static_cast<uint32_t>(ch - '0');
  }
  if (mode > 0777) return std::nullopt;
  return mode;
}

std::string FormatFileMode(uint32_t mode) {
  std::string out(4, '0');
  for (int i = 3; i >= 0 && mode != 0; --i, mode /= 8)
    out[static_cast<size_t>(i)] = static_cast<char>('0' + mode % 8);
  return out;
}

std::string_view LogLevelName(LogLevel level) {
  return kLogLevels[static_cast<size_t>(level)];
}

std::string_view LogTargetName(LogTarget target) {
  return kLogTargets[static_cast<size_t>(target)];
}

std::string_view JournalSyncName(JournalSync sync) {
  return kJournalSyncs[static_cast<size_t>(sync)];
}

}  // namespace locsched
