#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/daemon.h"

#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/asio/thread_pool.hpp>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <string>

#include "config/config_loader.h"
#include "daemon/clock.h"
#include "daemon/commit_step.h"
#include "daemon/daemon_control.h"
#include "daemon/dispatcher.h"
#include "daemon/durability.h"
#include "daemon/engine.h"
#include "daemon/event_log.h"
#include "daemon/ha/ha_node.h"
#include "daemon/ha/hello.h"
#include "daemon/http_server.h"
#include "daemon/liveness.h"
#include "daemon/logging.h"
#include "daemon/lp_planner.h"
#include "daemon/rebalancer.h"
#include "daemon/server.h"
#include "daemon/workload_timers.h"
#include "io/coord/zk_coordinator.h"

namespace locsched {

namespace asio = boost::asio;

Status LoadConfig(const DaemonOptions& opts, Config* out, std::vector<std::string>* warnings) {
  Config cfg;
  if (!opts.config_path.empty())
    if (Status s = LoadConfigFile(opts.config_path, &cfg, warnings); !s.ok()) return s;
  for (const std::string& kv : opts.overrides) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos)
      return Status::InvalidArgument("--set", "'" + kv + "' is not KEY=VALUE");
    std::string key = kv.substr(0, eq);
    if (const std::string_view renamed = RenamedConfigKey(key); !renamed.empty()) {
      if (warnings != nullptr)
        warnings->push_back("--set " + key + ": deprecated; it is named " + std::string(renamed) +
                            " (same values); rename it");
      key = renamed;
    }
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

// The worker thread (rebalance and LP solves) runs under SCHED_IDLE: it gets a
// core only when nothing else wants one, so the event loop's latency does not
// depend on a solve (nice 10 still cost the heartbeat p99 1.26x on 2 cores).
// An overrunning solve keeps the last good result and backs off. Where
// SCHED_IDLE is refused, nice 19 is the next best thing.
void YieldToEventLoop() {
  sched_param param{};
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) != 0)
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
}

// The parts of a running daemon, wired together on one io_context. Data flows
// one way: Server (lines) -> Dispatcher -> Engine -> Scheduler, records into the
// EventLog; the CommitStep closes each burst. The Daemon is the DaemonControl the
// admin commands reach.
// In high-availability mode the HaNode snapshots into ZooKeeper and the disk
// is not the journal's: no local snapshot trigger, no free-space check.
JournalConfig EventLogConfig(const Config& cfg) {
  JournalConfig j = cfg.journal;
  if (cfg.ha.enabled()) j.snapshot_mb = 0;
  return j;
}

EventLog::FreeBytes DiskCheck(const Config& cfg) {
  if (cfg.ha.enabled()) return nullptr;
  return [path = cfg.journal.path] { return JournalDiskFreeBytes(path); };
}

// A deposed active must never acknowledge again: it leaves at once, holding
// replies it never sent (its clients resend to the new active).
[[noreturn]] void LeaveDeposed(const Status& s) {
  spdlog::critical("ha: deposed, exiting without acknowledging anything more: {}", s.message());
  spdlog::default_logger()->flush();
  std::_Exit(kExitDeposed);
}

class Daemon final : public DaemonControl {
 public:
  Daemon(const Config& cfg, const DaemonOptions& opts, Coordinator* coord, std::string secret)
      : cfg_(cfg),
        opts_(opts),
        engine_(
            cfg, clock_, [](const std::string& line) { spdlog::warn("{}", line); },
            cfg.lp.enabled ? &arrivals_ : nullptr),
        log_(clock_, EventLogConfig(cfg), DiskCheck(cfg)),
        planner_(cfg.lp.enabled ? MakePlanner() : nullptr),
        dispatcher_(engine_, cfg, &log_, planner_.get(), this,
                    [](const std::string& line) { spdlog::info("{}", line); }),
        ha_(coord ? std::make_unique<HaNode>(io_, *coord, dispatcher_, log_, clock_, cfg.ha,
                                             LeaveDeposed)
                  : nullptr),
        hello_(coord ? std::make_unique<HelloGate>(std::move(secret),
                                                   [this](JsonWriter& w) { DescribeRole(w); })
                     : nullptr),
        server_(io_, dispatcher_, commit_, cfg, hello_.get()),
        http_(io_, dispatcher_, cfg.http) {}

  int Run();

  // DaemonControl: what the admin commands reach.
  Status Reload(std::vector<std::string>* changed) override;
  Status Snapshot(JsonWriter& w) override {
    return ha_ ? ha_->Snapshot(&w) : durability_.Snapshot(&w);
  }
  Status AdmitMutation() const override { return ha_ ? ha_->Admit() : Status::Ok(); }
  void WriteStatus(JsonWriter& w) const override {
    if (ha_) ha_->WriteStatus(w);
  }
  void AppendMetrics(std::string* text) const override {
    if (ha_) ha_->AppendMetrics(text);
  }
  Status Rebalance(JsonWriter& w) override {
    w.Field("started", StartRebalance("forced"));
    w.Field("runs", engine_.rebalancer()->runs());
    return Status::Ok();
  }
  uint64_t clients() const override { return server_.clients(); }

 private:
  Status ReloadConfig(std::vector<std::string>* changed);
  Status Recover();
  void DescribeRole(JsonWriter& w) const;
  void WaitForSignal();
  void OnSignal(int signo);
  void BeginStop();
  void StartWatchdog();
  void WatchdogTick(std::chrono::microseconds interval);
  void StatusTick();
  std::string StatusLine() const;
  void StartFlushTimer();
  void StartRebalanceTimer();
  void LivenessTick();
  bool StartRebalance(const std::string& trigger);
  void ApplyRebalance();
  std::unique_ptr<LpPlanner> MakePlanner();
  void LpTick();

  asio::io_context io_{1};
  DaemonClock clock_;
  Config cfg_;
  DaemonOptions opts_;
  ArrivalWindow arrivals_{cfg_.lp.headroom_window_s};  // the engine counts, the planner reads
  Engine engine_;
  EventLog log_;
  std::unique_ptr<LpPlanner> planner_;  // null when lp.enabled is false
  Dispatcher dispatcher_;
  Durability durability_{dispatcher_, log_, clock_};
  CommitStep commit_{io_, clock_, log_, [this] { (void)durability_.Snapshot(nullptr); }};
  std::unique_ptr<HaNode> ha_;        // high-availability mode, else null
  std::unique_ptr<HelloGate> hello_;  // its TCP clients' hello, else null
  Server server_;
  HttpServer http_;  // off unless http.listen is set
  asio::signal_set signals_{io_, SIGTERM, SIGINT, SIGHUP};
  asio::steady_timer watchdog_{io_};
  asio::steady_timer status_{io_};
  asio::steady_timer flush_{io_};
  asio::steady_timer rebalance_{io_};
  std::unique_ptr<RebalanceRun> run_;  // the rebalance out on the worker, if any
  asio::steady_timer lp_timer_{io_};
  Liveness liveness_{dispatcher_, cfg_};
  asio::steady_timer liveness_timer_{io_};
  bool stopping_ = false;
  // The worker (rebalance and LP solves, one at a time): declared last so it is
  // joined before anything its work touches goes.
  asio::thread_pool worker_{1};
};

// Moves one event-loop turn applies before letting queued requests in.
constexpr size_t kMovesPerTurn = 512;

// Single node: the local journal. High availability: the state in ZooKeeper.
Status Daemon::Recover() {
  if (!ha_) return durability_.Recover(cfg_.journal);
  if (!cfg_.journal.path.empty())
    spdlog::info(
        "ha: journal.path is not used in high-availability mode; the state is in "
        "ZooKeeper at {}{}",
        cfg_.ha.zookeeper, cfg_.ha.path);
  return ha_->Start();
}

void Daemon::DescribeRole(JsonWriter& w) const {
  w.Field("role", ha_->role()).Field("instance", cfg_.ha.instance);
  w.Key("active");
  if (ha_->active())
    w.String(cfg_.ha.instance);
  else if (ha_->leader().empty())
    w.Null();
  else
    w.String(ha_->leader());
}

int Daemon::Run() {
  if (Status s = Recover(); !s.ok()) {
    spdlog::error("cannot recover {}: {}", ha_ ? "the state from ZooKeeper" : "from the journal",
                  s.message());
    return 1;
  }
  dispatcher_.engine().FinishRecovery();  // queues the config dropped: kept while they hold jobs
  // HTTP first: a port in use fails the start before the socket files appear.
  if (Status s = http_.Listen(); !s.ok()) {
    spdlog::error("cannot listen: {}", s.message());
    return 1;
  }
  if (Status s = server_.Listen(); !s.ok()) {
    spdlog::error("cannot listen: {}", s.message());
    return 1;
  }
  spdlog::info("locschedd ready: policy {}, event socket {}, control socket {}{}",
               PolicyKindName(cfg_.scheduler.policy), cfg_.sockets.event_path,
               cfg_.sockets.control_path, ha_ ? ", TCP " + cfg_.ha.instance : "");
  if (!http_.endpoint().empty())
    spdlog::info("HTTP on {}: /metrics, /status, /machine-queues, the dashboard at /",
                 http_.endpoint());
  WaitForSignal();
  StartWatchdog();
  StatusTick();
  StartFlushTimer();
  StartRebalanceTimer();
  LivenessTick();
  asio::post(worker_, [] { YieldToEventLoop(); });
  if (planner_) LpTick();
  sd_notifyf(0, "READY=1\nSTATUS=%s\nMAINPID=%d", StatusLine().c_str(), getpid());
  io_.run();
  worker_.join();  // a solve still running finishes; its result is dropped
  // A clean stop leaves a snapshot, so the next start replays nothing.
  if (durability_.enabled()) (void)durability_.Snapshot(nullptr);
  spdlog::info("locschedd stopped");
  return 0;
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
  (void)Reload(&changed);  // Reload logs a refusal itself
}

void Daemon::BeginStop() {
  if (stopping_) return;
  stopping_ = true;
  sd_notify(0, "STOPPING=1\nSTATUS=stopping: answering connected clients");
  signals_.cancel();
  watchdog_.cancel();
  status_.cancel();
  flush_.cancel();
  rebalance_.cancel();
  lp_timer_.cancel();
  liveness_timer_.cancel();
  if (ha_) ha_->Stop();
  http_.Stop();
  server_.Stop(2.0, [this] { io_.stop(); });
}

// Re-reads the file and the --set overrides; only reloadable keys may change. A
// refusal (SIGHUP or the reload command alike) is logged with the key it names.
Status Daemon::Reload(std::vector<std::string>* changed) {
  Status s = ReloadConfig(changed);
  if (!s.ok()) spdlog::error("reload refused: {}", s.message());
  return s;
}

Status Daemon::ReloadConfig(std::vector<std::string>* changed) {
  if (opts_.config_path.empty())
    return Status::FailedPrecondition("reload", "locschedd was started without --config");
  sd_notify(0, "RELOADING=1");
  Config next;
  std::vector<std::string> warnings;
  Status s = LoadConfig(opts_, &next, &warnings);
  for (const std::string& w : warnings) spdlog::warn("config: {}", w);
  if (s.ok()) s = CheckReload(cfg_, next, changed);
  // The queue tree last of the checks and first applied: a refusal leaves everything as it
  // was. Applied even when unchanged, so queues a restart kept for their jobs go once empty.
  if (s.ok()) {
    s = dispatcher_.engine().ReloadQueues(next.queues);
    if (s.ok() && !(next.queues == cfg_.queues)) changed->emplace_back("queue");
  }
  if (s.ok()) {
    cfg_ = next;
    SetLogLevel(cfg_.log.level);
    server_.ApplyLimits(cfg_.limits);
    dispatcher_.ApplyConfig(cfg_);
    liveness_.ApplyConfig(cfg_);
    log_.ApplyConfig(cfg_.journal);
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

// Interval mode writes without fdatasync; this makes the last writes durable
// within interval_ms even when no further event arrives.
void Daemon::StartFlushTimer() {
  if (!durability_.enabled() || cfg_.journal.sync != JournalSync::kInterval) return;
  flush_.expires_after(std::chrono::milliseconds(cfg_.journal.interval_ms));
  flush_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    // The written bytes stay in memory and are written again before the next
    // fdatasync (FileJournal), so a failure is retried at the next tick.
    if (Status s = durability_.Flush(); !s.ok())
      spdlog::error("journal fdatasync failed (retrying): {}", s.message());
    StartFlushTimer();
  });
}

// Checks the rebalance triggers every base_interval_ms (the Rebalancer decides).
// Late binding's remote-permit plan runs on the loop itself (one large job's tasks at a time).
void Daemon::StartRebalanceTimer() {
  if (!engine_.rebalancer() && !engine_.permit_rebalancer()) return;
  rebalance_.expires_after(std::chrono::milliseconds(
      WallTimed(cfg_.rebalance, cfg_.scheduler.workload_speed).base_interval_ms));
  rebalance_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    if (!engine_.rebalancer())
      engine_.RebalancePermits();
    else if (const char* trigger = engine_.rebalancer()->Due(clock_.Now()))
      StartRebalance(trigger);
    StartRebalanceTimer();
  });
}

// Takes the snapshot on the loop and solves on the worker; the moves come back
// through post() and are applied in slices between requests.
bool Daemon::StartRebalance(const std::string& trigger) {
  Rebalancer* rb = engine_.rebalancer();
  run_ = rb->Begin(clock_.Now(), trigger, engine_.rates().alpha(), engine_.rates().gamma());
  if (!run_) return false;
  asio::post(worker_, [this, rb, run = run_.get()] {
    rb->Solve(*run);
    asio::post(io_, [this] { ApplyRebalance(); });
  });
  return true;
}

void Daemon::ApplyRebalance() {
  Rebalancer* rb = engine_.rebalancer();
  if (!rb->Apply(*run_, kMovesPerTurn)) {
    asio::post(io_, [this] { ApplyRebalance(); });
    return;
  }
  rb->End(*run_, clock_.Now());
  const RebalanceStats& s = run_->stats;
  spdlog::debug("rebalance ({}): {} queued, {} moved, {} stale, solve {:.1f} ms, loop {:.1f} ms",
                s.trigger, s.backlog, s.moved, s.stale, s.solve_seconds * 1000,
                s.loop_seconds * 1000);
  run_.reset();
}

// Solves run on worker_ over a snapshot the planner took on the loop; the result
// is posted back and applied on the loop.
std::unique_ptr<LpPlanner> Daemon::MakePlanner() {
  return std::make_unique<LpPlanner>(
      engine_, arrivals_, WallTimed(cfg_.lp, cfg_.scheduler.workload_speed),
      [this](std::function<void()> work, std::function<void()> done) {
        asio::post(worker_, [this, work = std::move(work), done = std::move(done)]() mutable {
          work();
          asio::post(io_, std::move(done));
        });
      });
}

// Once a workload second the planner decides whether the interval passed or a burst came.
void Daemon::LpTick() {
  planner_->Tick();
  lp_timer_.expires_after(WallPeriod(1, cfg_.scheduler.workload_speed));
  lp_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) LpTick();
  });
}

// Once a wall second: machines silent past machines.expiry_s are lost, tasks past
// scheduler.task_timeout_s fail. The events go through a burst of their own, so the
// commit step syncs them; the first tick after a start or a takeover only grants grace.
void Daemon::LivenessTick() {
  if (!stopping_) {
    commit_.Enter();
    liveness_.Check(!ha_ || ha_->active());
  }
  liveness_timer_.expires_after(std::chrono::seconds(1));
  liveness_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) LivenessTick();
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
  std::unique_ptr<ZkCoordinator> coord;
  std::string secret, auth;
  if (cfg.ha.enabled()) {
    Status s = ReadSecretFile(cfg.ha.secret_file, &secret);
    if (s.ok() && !cfg.ha.zookeeper_auth_file.empty())
      s = ReadZooKeeperAuth(cfg.ha.zookeeper_auth_file, &auth);
    if (s.ok() && auth.empty())
      spdlog::warn(
          "ha: ha.zookeeper_auth_file is not set: the nodes under {} are open to every "
          "ZooKeeper client (docs/operations.md, ZooKeeper ACL)",
          cfg.ha.path);
    if (s.ok())
      s = ZkCoordinator::Open({.hosts = cfg.ha.zookeeper,
                               .root = cfg.ha.path,
                               .session_timeout_ms = static_cast<int>(cfg.ha.session_timeout_ms),
                               .op_timeout_ms = static_cast<int>(
                                   std::min<uint32_t>(1000, cfg.ha.session_timeout_ms / 2)),
                               .auth = auth},
                              &coord);
    if (!s.ok()) {
      spdlog::error("cannot start high-availability mode: {}", s.message());
      return 1;
    }
  }
  Daemon daemon(cfg, opts, coord.get(), std::move(secret));
  return daemon.Run();
}

}  // namespace locsched
