// Config: every setting of locschedd as one plain struct, and the schema table
// (key, type, limits, default, reloadable, help, apply) the loader, the docs and
// --check-config are driven by. The loader and the daemon call it. Pure data and
// pure functions: safe from any thread; a Config is a plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "algorithms/core/policy.h"
#include "base/status.h"
#include "config/queue_config.h"

namespace locsched {

/// Log verbosity ([log] level).
enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };
/// Where logs go ([log] target): auto = journal under systemd, else stderr.
enum class LogTarget { kAuto, kStderr, kJournal };

/// [sockets]: where the daemon listens and who may connect.
struct SocketsConfig {
  std::string event_path = "/run/locsched/events.sock";     ///< event socket (agents, tailer)
  uint32_t event_mode = 0660;                               ///< its file mode
  std::string event_group;                                  ///< its group; "" = process group
  std::string control_path = "/run/locsched/control.sock";  ///< control socket (CLI)
  uint32_t control_mode = 0600;                             ///< its file mode
  std::string control_group;                                ///< its group; "" = process group
  bool operator==(const SocketsConfig&) const = default;    ///< field-wise equality
};

/// [limits]: bounds that turn abuse into clear errors instead of crashes.
struct LimitsConfig {
  uint64_t max_line_bytes = 1048576;       ///< longest accepted request line
  uint32_t max_clients = 1024;             ///< clients connected at once on the event socket
  uint32_t max_control_clients = 16;       ///< clients connected at once on the control socket
  double idle_timeout_s = 600;             ///< close a connection idle this long; 0 = never
  uint64_t max_tasks_per_job = 1000000;    ///< tasks in one job
  uint64_t dedupe_window = 1000000;        ///< recent event ids remembered
  uint64_t client_buffer_bytes = 8388608;  ///< per-client output buffer before backpressure
  bool operator==(const LimitsConfig&) const = default;  ///< field-wise equality
};

/// [scheduler]: the policy and its parameters.
struct SchedulerConfig {
  PolicyKind policy = PolicyKind::kLateBinding;  ///< the scheduling policy
  IntraQueue intra_queue =
      IntraQueue::kFair;              ///< machine_queue_order: job order in a machine queue
  double alpha = 0.8;                 ///< initial local service rate
  double gamma = 0.2;                 ///< initial remote service rate, <= alpha
  bool learn_rates = true;            ///< learn alpha/gamma from completions
  uint64_t rate_window = 10000;       ///< completions the learnt rates average over
  double delay_wait = 20;             ///< delay scheduling's wait, seconds
  uint32_t node_locality_delay = 40;  ///< capacity-scheduler: opportunities before rack-local
  int32_t rack_locality_delay = -1;   ///< capacity-scheduler: further ones to off-rack; -1 derived
  double locality_threshold_node = -1;  ///< fair-scheduler: fraction of machines; < 0 off
  double locality_threshold_rack = -1;  ///< fair-scheduler: fraction of machines; < 0 off
  uint32_t remote_bias = 0;             ///< JSQ: R only when shorter than every local queue by more
  uint32_t priority_slack = 5;    ///< priority: local queue length over |R| a ranked task may join
  uint32_t max_task_retries = 3;  ///< retries of a failed task
  uint64_t seed = 1;              ///< seeds random tie-breaks
  std::optional<JobOrder> job_order;    ///< how jobs are ranked; unset ("auto"): DefaultJobOrder
  double job_aging = kDefaultJobAging;  ///< late-binding: starvation bound in seconds (0: off)
  double duration_cv = 1;               ///< late-binding: task times' coefficient of variation
  double beta = 0.4;                    ///< rack-local service rate (balanced-pandas)
  double workload_speed = 1;  ///< workload seconds per wall second of the rebalance and LP timers
  double task_timeout_s = 0;  ///< a task running longer (workload seconds) fails; 0 = off
  bool operator==(const SchedulerConfig&) const = default;  ///< field-wise equality
};

/// [machines]: liveness of the machines that run tasks.
struct MachinesConfig {
  double expiry_s = 30;  ///< a machine silent this long (wall seconds) is lost; 0 = never
  bool operator==(const MachinesConfig&) const = default;  ///< field-wise equality
};

/// [preemption]: stopping other queues' tasks for a queue kept below its guarantee.
struct PreemptionConfig {
  double timeout_s = 0;    ///< workload seconds a queue waits below its guarantee; 0 = off
  double kill_wait_s = 3;  ///< further seconds it takes the slots that free before victims
  bool operator==(const PreemptionConfig&) const = default;  ///< field-wise equality
};

/// [log]: verbosity and destination.
struct LogConfig {
  LogLevel level = LogLevel::kInfo;                   ///< least severe level written
  LogTarget target = LogTarget::kAuto;                ///< where log lines go
  bool operator==(const LogConfig&) const = default;  ///< field-wise equality
};

/// When an acknowledged event is on the disk ([journal] sync).
enum class JournalSync { kAlways, kBatched, kInterval };

/// [journal]: the durable event log.
struct JournalConfig {
  std::string path;  ///< journal file; "" = no journal (nothing survives a restart)
  JournalSync sync = JournalSync::kBatched;  ///< always / batched (group commit) / interval
  uint32_t interval_ms = 100;                ///< interval mode: longest time between fdatasyncs
  uint64_t min_free_mb = 64;                 ///< refuse events when the disk has less free space
  uint64_t snapshot_mb = 64;  ///< snapshot once the journal grows past this; 0 = never
  bool operator==(const JournalConfig&) const = default;  ///< field-wise equality
};

/// [watchdog]: the systemd watchdog.
struct WatchdogConfig {
  bool enabled = true;  ///< ping WATCHDOG=1 when systemd asks for it
  bool operator==(const WatchdogConfig&) const = default;  ///< field-wise equality
};

/// [rebalance]: the max-cover rebalance (jsq-maxweight's queued backlog; late binding's
/// remote permits for large jobs).
struct RebalanceConfig {
  bool enabled = false;              ///< automatic runs (big job, imbalance, adaptive timer)
  uint64_t big_job_tasks = 1000;     ///< a job with at least this many tasks triggers a run
  double imbalance = 4;              ///< run when longest local queue > this x (mean + 1)
  uint64_t base_interval_ms = 1000;  ///< the adaptive timer's first interval (and poll period)
  uint64_t max_interval_ms = 60000;  ///< the adaptive timer's cap
  double max_share = 0.1;            ///< largest share of wall time the solver may take
  bool uncovered_to_remote = false;  ///< move tasks the cover leaves out to R (Algorithm 2)
  bool operator==(const RebalanceConfig&) const = default;  ///< field-wise equality
};

/// [lp]: the periodic backlog LP re-solve and the capacity headroom.
struct LpConfig {
  bool enabled = true;          ///< run the periodic backlog LP re-solve and the capacity headroom
  double base_interval_s = 5;   ///< seconds between re-solves after a burst
  double max_interval_s = 60;   ///< longest interval between re-solves
  double growth = 2;            ///< factor the interval grows by after each quiet re-solve
  double max_share = 0.1;       ///< most of the wall time the solver may use
  uint64_t burst_tasks = 1000;  ///< queued tasks added since the last solve that make a burst
  double epsilon = 1;           ///< growth of the LP's time grid: d_l = d_1 * (1 + epsilon)^(l-1)
  uint64_t max_jobs = 128;      ///< jobs inside the LP (those with the best weight per work)
  uint32_t classes = 4;         ///< machine classes of the LP (racks folded modulo this)
  uint64_t time_limit_ms = 1000;  ///< GLPK time limit of one solve
  double headroom_window_s = 60;  ///< seconds of arrivals the headroom's rates cover
  bool operator==(const LpConfig&) const = default;  ///< field-wise equality
};

/// [http]: the HTTP listener (/metrics, /status, /machine-queues and the dashboard).
struct HttpConfig {
  std::string listen;             ///< "HOST:PORT" or "PORT" (loopback); "" = no listener
  uint32_t max_connections = 16;  ///< HTTP connections open at once
  uint64_t timeout_ms = 5000;     ///< a request must arrive, or a reply leave, within this
  bool operator==(const HttpConfig&) const = default;  ///< field-wise equality
};

/// [history]: what the daemon remembers of finished jobs.
struct HistoryConfig {
  uint64_t finished_jobs = 1000;  ///< the last finished jobs kept for `jobs --finished` and `job`
  bool operator==(const HistoryConfig&) const = default;  ///< field-wise equality
};

/// [ha]: high availability, active/standby instances on ZooKeeper ("" = single node).
struct HaConfig {
  std::string zookeeper;               ///< "HOST:PORT,..." of the ensemble; "" = single-node mode
  std::string path = "/locsched";      ///< this cluster's folder in ZooKeeper
  uint32_t session_timeout_ms = 4000;  ///< a silent instance loses its session after this
  std::string instance;     ///< "IP:PORT": this instance's TCP listener, as clients reach it
  std::string secret_file;  ///< file holding the shared secret TCP clients present
  std::string zookeeper_auth_file;    ///< file holding USER:PASSWORD (digest ACL); "" = open ACL
  std::string tls_certificate;        ///< PEM certificate chain of the TCP listener; "" = plain TCP
  std::string tls_key;                ///< PEM private key of tls_certificate
  uint64_t snapshot_mb = 16;          ///< snapshot into ZooKeeper past this much log
  uint64_t snapshot_entries = 20000;  ///< ... or past this many log entries
  bool enabled() const { return !zookeeper.empty(); }  ///< HA mode is on
  bool operator==(const HaConfig&) const = default;    ///< field-wise equality
};

/// Every setting; default-constructed = the shipped defaults.
struct Config {
  SocketsConfig sockets;        ///< [sockets]
  LimitsConfig limits;          ///< [limits]
  SchedulerConfig scheduler;    ///< [scheduler]
  MachinesConfig machines;      ///< [machines]
  PreemptionConfig preemption;  ///< [preemption]
  LogConfig log;                ///< [log]
  JournalConfig journal;        ///< [journal]
  WatchdogConfig watchdog;      ///< [watchdog]
  RebalanceConfig rebalance;    ///< [rebalance]
  LpConfig lp;                  ///< [lp]
  HttpConfig http;              ///< [http]
  HistoryConfig history;        ///< [history]
  HaConfig ha;                  ///< [ha]
  QueueConfig queues;           ///< [queue.*], [placement], [groups] (config/queue_config.h)
  bool operator==(const Config&) const = default;  ///< field-wise equality
};

/// The type of a config key as written in TOML.
enum class ConfigType {
  kBool,    ///< true / false
  kInt,     ///< a 64-bit integer within [min_int, max_int]
  kDouble,  ///< a number within min_real..max_real (integers accepted)
  kString,  ///< any string
  kEnum,    ///< a string, one of `allowed`
  kMode,    ///< an octal file mode as a string, "0000".."0777"
};

/// A typed value before it is stored (the loader converts TOML nodes to this).
using ConfigValue = std::variant<bool, int64_t, double, std::string>;

/// One row of the schema.
struct ConfigKey {
  std::string_view key;                            ///< dotted key, "section.name"
  ConfigType type = ConfigType::kString;           ///< TOML type
  std::span<const std::string_view> allowed = {};  ///< kEnum: the accepted values
  int64_t min_int = 0;                             ///< kInt: smallest value
  int64_t max_int = 0;                             ///< kInt: largest value
  double min_real = 0;                             ///< kDouble: lower bound
  bool min_real_open = false;                      ///< kDouble: lower bound excluded
  double max_real = 0;                             ///< kDouble: upper bound (included)
  std::string_view default_text;                   ///< the default, unquoted ("0.8", "fair")
  bool reloadable = false;                         ///< SIGHUP reload may change it
  std::string_view help;                           ///< one line for docs and --check-config
  void (*apply)(const ConfigValue& v, Config* c) = nullptr;  ///< stores a validated value
  std::string (*format)(const Config& c) = nullptr;          ///< the current value, unquoted
};

/// The schema: every key, in file order (sections grouped).
std::span<const ConfigKey> ConfigTable();
/// The row for a dotted key, or nullptr.
const ConfigKey* FindConfigKey(std::string_view key);
/// The section part of a dotted key ("scheduler" for "scheduler.alpha").
std::string_view ConfigSection(const ConfigKey& k);
/// The name part of a dotted key ("alpha" for "scheduler.alpha").
std::string_view ConfigName(const ConfigKey& k);
/// Human name of a type, with its limits ("double in (0, 1]").
std::string DescribeType(const ConfigKey& k);
/// The range or allowed set alone ("(0, 1]", "[1, 100000]", "fair|fifo"); "" if none.
std::string DescribeLimits(const ConfigKey& k);
/// Checks v against k's type and limits and stores it; the error names the key and value.
Status SetConfigValue(const ConfigKey& k, const ConfigValue& v, Config* c);
/// Parses unquoted text as k's type ("0.8", "true", "fair"); the error names the key.
Status SetConfigText(const ConfigKey& k, std::string_view text, Config* c);
/// The value as a TOML literal: strings quoted (and escaped), numbers and booleans bare.
std::string TomlLiteral(const ConfigKey& k, std::string_view text);
/// Control characters as TOML escapes ("\n", "\t", "\r", "\u0001"); the rest unchanged.
std::string EscapeControlChars(std::string_view text);
/// Cross-key checks after all keys are set (gamma <= alpha); names the offending key.
Status ValidateConfig(const Config& c);
/// An HTTP listen address: an IP literal and a port.
struct ListenAddress {
  std::string host;   ///< "127.0.0.1", "0.0.0.0", "::1" (no brackets)
  uint16_t port = 0;  ///< 1..65535
};
/// Parses http.listen: "PORT" (on 127.0.0.1), "IPV4:PORT", "localhost:PORT" or
/// "[IPV6]:PORT"; host names other than localhost are refused (no lookups). The error
/// names the key.
Status ParseListenAddress(std::string_view text, ListenAddress* out);
/// Parses "0660"-style octal modes (3 or 4 digits, <= 0777).
std::optional<uint32_t> ParseFileMode(std::string_view text);
/// Formats a mode as 4 octal digits ("0660").
std::string FormatFileMode(uint32_t mode);
/// The canonical name of a log level ("info").
std::string_view LogLevelName(LogLevel level);
/// The canonical name of a journal sync mode ("batched").
std::string_view JournalSyncName(JournalSync sync);
/// The canonical name of a log target ("auto").
std::string_view LogTargetName(LogTarget target);

}  // namespace locsched
