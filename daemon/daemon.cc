#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/daemon.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <sys/statvfs.h>

#include <boost/asio.hpp>
#include <csignal>
#include <memory>
#include <string>

#include "config/config_loader.h"
#include "daemon/clock.h"
#include "daemon/dispatcher.h"
#include "daemon/engine.h"
#include "daemon/logging.h"
#include "daemon/server.h"
#include "io/journal.h"

namespace locsched {

namespace asio = boost::asio;

Status LoadConfig(const DaemonOptions& opts, Config* out) {
  Config cfg;
  if (!opts.config_path.empty())
    if (Status s = LoadConfigFile(opts.config_path, &cfg); !s.ok()) return s;
  for (const std::string& kv : opts.overrides) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos)
      return Status::InvalidArgument("--set", "'" + kv + "' is not KEY=VALUE");
    const std::string key = kv.substr(0, eq);
    const ConfigKey* k = FindConfigKey(key);
    if (!k) {
      const std::string guess = SuggestConfigKey(key);
      return Status::InvalidArgument(
          "--set " + key, "unknown key" + (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
    if (Status s = SetConfigText(*k, std::string_view(kv).substr(eq + 1), &cfg); !s.ok()) return s;
  }
  if (Status s = ValidateConfig(cfg); !s.ok()) return s;
  *out = cfg;
  return Status::Ok();
}

namespace {

// The parts of a running daemon, wired together on one io_context.
class Daemon {
 public:
  Daemon(const Config& cfg, const DaemonOptions& opts)
      : cfg_(cfg),
        opts_(opts),
        engine_(cfg, clock_),
        dispatcher_(engine_, cfg),
        server_(io_, dispatcher_, cfg) {
    engine_.SetNotify([](const std::string& line) { spdlog::warn("{}", line); });
    dispatcher_.SetReloadHook(
        [this](std::vector<std::string>* changed) { return Reload(changed); });
  }

  int Run();

 private:
  void WaitForSignal();
  void OnSignal(int signo);
  void BeginStop();
  Status Reload(std::vector<std::string>* changed);
  void StartWatchdog();
  void WatchdogTick(std::chrono::microseconds interval);
  void StatusTick();
  std::string StatusLine() const;
  Status Recover();
  void ReplayAll(const JournalScan& scan);

  asio::io_context io_{1};
  DaemonClock clock_;
  std::unique_ptr<FileJournal> journal_;
  Config cfg_;
  DaemonOptions opts_;
  Engine engine_;
  Dispatcher dispatcher_;
  Server server_;
  asio::signal_set signals_{io_, SIGTERM, SIGINT, SIGHUP};
  asio::steady_timer watchdog_{io_};
  asio::steady_timer status_{io_};
  bool stopping_ = false;
};

int Daemon::Run() {
  if (Status s = Recover(); !s.ok()) {
    spdlog::error("cannot open the journal: {}", s.message());
    return 1;
  }
  if (Status s = server_.Listen(); !s.ok()) {
    spdlog::error("cannot listen: {}", s.message());
    return 1;
  }
  spdlog::info("locschedd ready: policy {}, event socket {}, control socket {}",
               PolicyKindName(cfg_.scheduler.policy), cfg_.sockets.event_path,
               cfg_.sockets.control_path);
  WaitForSignal();
  StartWatchdog();
  StatusTick();
  sd_notifyf(0, "READY=1\nSTATUS=%s\nMAINPID=%d", StatusLine().c_str(), getpid());
  io_.run();
  spdlog::info("locschedd stopped");
  return 0;
}

SyncMode ToSyncMode(JournalSync s) {
  switch (s) {
    case JournalSync::kAlways:
      return SyncMode::kAlways;
    case JournalSync::kBatched:
      return SyncMode::kBatched;
    case JournalSync::kInterval:
      return SyncMode::kInterval;
  }
  return SyncMode::kBatched;
}

// Opens the journal, re-applies what it holds, then journals from there on.
Status Daemon::Recover() {
  const JournalConfig& j = cfg_.journal;
  if (j.path.empty()) {
    spdlog::warn("journal.path is empty: events are not made durable");
    return Status::Ok();
  }
  JournalScan scan;
  if (Status s =
          FileJournal::Open(j.path, ToSyncMode(j.sync), j.interval_ms / 1000.0, &journal_, &scan);
      !s.ok())
    return s;
  if (scan.cut_bytes > 0)
    spdlog::warn("journal {}: cut {} bytes after the last good record ({})", j.path, scan.cut_bytes,
                 scan.cut_reason);
  ReplayAll(scan);
  const std::string dir = j.path.substr(0, j.path.find_last_of('/') + 1);
  dispatcher_.SetJournal(
      journal_.get(), &clock_,
      [path = dir.empty() ? std::string(".") : dir] {
        struct statvfs st {};
        if (statvfs(path.c_str(), &st) != 0) return UINT64_MAX;  // unknown: do not refuse
        return uint64_t{st.f_bavail} * st.f_frsize;
      },
      j.min_free_mb << 20);
  return Status::Ok();
}

void Daemon::ReplayAll(const JournalScan& scan) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t failed = 0;
  for (const std::string& record : scan.records) {
    if (Status s = dispatcher_.Replay(record, &clock_); !s.ok() && failed++ < 5)
      spdlog::error("journal replay: {}", s.message());
  }
  clock_.Release();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const Scheduler& s = engine_.scheduler();
  spdlog::info(
      "journal {}: recovered {} events in {:.0f} ms: {} live jobs, {} queued, {} running "
      "tasks{}",
      cfg_.journal.path, scan.records.size() - failed, ms, s.cluster().live_jobs(), s.queued(),
      s.running(), failed ? ", " + std::to_string(failed) + " records could not be applied" : "");
}

void Daemon::WaitForSignal() {
  signals_.async_wait([this](boost::system::error_code ec, int signo) {
    if (ec) return;
    OnSignal(signo);
    if (!stopping_) WaitForSignal();
  });
}

// A signal only starts work on the loop: a graceful stop or a reload.
void Daemon::OnSignal(int signo) {
  if (signo != SIGHUP) {
    spdlog::info("{} received: stopping", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    BeginStop();
    return;
  }
  std::vector<std::string> changed;
  if (Status s = Reload(&changed); !s.ok()) spdlog::error("reload refused: {}", s.message());
}

void Daemon::BeginStop() {
  if (stopping_) return;
  stopping_ = true;
  sd_notify(0, "STOPPING=1\nSTATUS=stopping: answering connected clients");
  signals_.cancel();
  watchdog_.cancel();
  status_.cancel();
  server_.Stop(2.0, [this] { io_.stop(); });
}

// Re-reads the file and the --set overrides; only reloadable keys may change.
Status Daemon::Reload(std::vector<std::string>* changed) {
  if (opts_.config_path.empty())
    return Status::FailedPrecondition("reload", "locschedd was started without --config");
  sd_notify(0, "RELOADING=1");
  Config next;
  Status s = LoadConfig(opts_, &next);
  if (s.ok()) s = CheckReload(cfg_, next, changed);
  if (s.ok()) {
    cfg_ = next;
    SetLogLevel(cfg_.log.level);
    server_.ApplyLimits(cfg_.limits);
    dispatcher_.ApplyConfig(cfg_);
    spdlog::info("configuration reloaded from {} ({} keys changed)", opts_.config_path,
                 changed->size());
  }
  sd_notify(0, "READY=1");
  return s;
}

void Daemon::StartWatchdog() {
  uint64_t usec = 0;
  if (!cfg_.watchdog.enabled || sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return;
  WatchdogTick(std::chrono::microseconds(usec / 2));
}

// The ping runs on the loop, so a wedged loop misses it and systemd restarts us.
void Daemon::WatchdogTick(std::chrono::microseconds interval) {
  sd_notify(0, "WATCHDOG=1");
  watchdog_.expires_after(interval);
  watchdog_.async_wait([this, interval](boost::system::error_code ec) {
    if (!ec) WatchdogTick(interval);
  });
}

void Daemon::StatusTick() {
  sd_notifyf(0, "STATUS=%s", StatusLine().c_str());
  status_.expires_after(std::chrono::seconds(5));
  status_.async_wait([this](boost::system::error_code ec) {
    if (!ec) StatusTick();
  });
}

std::string Daemon::StatusLine() const {
  const Scheduler& s = engine_.scheduler();
  return "queued " + std::to_string(s.queued()) + ", running " + std::to_string(s.running()) +
         ", machines " + std::to_string(s.cluster().num_machines()) + ", clients " +
         std::to_string(server_.clients());
}

}  // namespace

int RunDaemon(const Config& cfg, const DaemonOptions& opts) {
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client is an error code, not a death
  Daemon daemon(cfg, opts);
  return daemon.Run();
}

}  // namespace locsched
