// locsched-agents: the cluster emulator. Plays N machines and (without --no-jobs) a
// job submitter against a running locschedd over its event socket, on an accelerated
// clock, prints a live line every few seconds and a summary (text or --json) at the end.
// The emulation itself is tools/agents/emulator.h; this file holds flags, socket and clock.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "io/wire/client.h"
#include "tools/agents/emulator.h"

namespace locsched {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  AgentsParams params;
  std::string socket;
  std::string tls_ca;  // --tls-ca
  double speed = 20;
  double report = 2;
  size_t window = 1024;
  double timeout = 30;
  bool json = false;
  bool quiet = false;
};

volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) {
  g_interrupted = 1;
}

const CLI::Validator kNotNegative(
    [](const std::string& s) {
      return s.find('-') == std::string::npos ? "" : "must not be negative";
    },
    "");

void AddClusterFlags(CLI::App& app, Options& o) {
  AgentsParams& p = o.params;
  app.add_option("--socket", o.socket,
                 "locschedd's event socket (required), or tcp:HOST:PORT,... the instances of "
                 "a high-availability cluster (or tls:HOST:PORT,... over TLS): the active is "
                 "found at start and followed across failovers (a batch whose connection fails "
                 "is resent whole, with the same ids, to the active found again, for up to 60 s)")
      ->required();
  app.add_option("--tls-ca", o.tls_ca,
                 "PEM file of the CA that signed the daemons' certificates, for a tls: --socket "
                 "(default: $LOCSCHED_TLS_CA)");
  app.add_option("--machines", p.machines, "Machines to emulate")->capture_default_str();
  app.add_option("--slots", p.slots, "Task slots per machine")->capture_default_str();
  app.add_option("--data-machines", p.data_fraction,
                 "Share of the machines, the first ones, that hold input replicas "
                 "(0.8 = the paper's 800 of 1000)")
      ->capture_default_str();
  app.add_option("--replicas", p.replicas, "Replicas per task, on distinct data machines")
      ->capture_default_str();
  app.add_option("--alpha", p.alpha, "Local service rate: a local task lasts Exp(alpha) emulated s")
      ->capture_default_str();
  app.add_option("--gamma", p.gamma, "Remote service rate: a remote task lasts Exp(gamma)")
      ->capture_default_str();
  app.add_option("--racks", p.racks,
                 "Racks: machine m joins rack r<m*R/M> (machine_up's rack), and a task run off "
                 "its holders but in a holder's rack lasts Exp(--beta); 0 or 1: no racks")
      ->capture_default_str();
  app.add_option("--beta", p.beta,
                 "With --racks: rack-local service rate, between --gamma and --alpha (0: "
                 "sqrt(alpha*gamma), 0.4 at the defaults)")
      ->capture_default_str();
  app.add_option("--heartbeat", p.heartbeat,
                 "Emulated seconds between heartbeats of a machine with a free slot, sent while "
                 "submitted tasks wait (a machine also heartbeats at once when a task of its ends)")
      ->capture_default_str();
  app.add_option("--keepalive", p.keepalive,
                 "Seconds of the daemon's clock (wall seconds, whatever --speed) within which "
                 "every machine heartbeats, full or idle, so the daemon can tell a silent machine "
                 "from a lost one (machines.expiry_s, 30 s by default); 0: only the heartbeats "
                 "above")
      ->capture_default_str();
  app.add_option("--prefix", p.prefix, "Prepended to machine and job names (run several at once)");
}

void AddWorkloadFlags(CLI::App& app, Options& o) {
  AgentsParams& p = o.params;
  app.add_flag_function(
      "--no-jobs", [&p](int64_t) { p.submit_jobs = false; },
      "Submit no jobs: only register the machines, heartbeat while the daemon has queued "
      "tasks and run what it assigns (e.g. a trace fed by locsched-tail). Job completion "
      "times are then the daemon's own submit-to-done times (the `job` command's "
      "\"seconds\") times --speed; --load, --job-size-mean and --reduces are unused");
  app.add_option("--load", p.load, "Task arrivals per emulated second (Poisson job arrivals)")
      ->capture_default_str();
  app.add_option("--job-size-mean", p.job_size_mean, "Mean map tasks per job (geometric)")
      ->capture_default_str();
  app.add_option("--reduces", p.reduces, "Reduce tasks per job; they wait for the job's maps")
      ->capture_default_str();
  app.add_option("--weight-max", p.weight_max,
                 "Job weights: each job draws an integer uniformly from 1..N, as locsched-sim "
                 "--weight-max (1: all weight 1)")
      ->capture_default_str();
  app.add_option("--seed", p.seed, "Random seed of arrivals, sizes, replicas and durations")
      ->check(kNotNegative)
      ->capture_default_str();
}

void AddRunFlags(CLI::App& app, Options& o) {
  AgentsParams& p = o.params;
  app.add_option("--speed", o.speed,
                 "Emulated seconds per wall-clock second. locschedd times tasks on the wall "
                 "clock, so its rate prior should be --alpha and --gamma times this (or run it "
                 "with scheduler.learn_rates=false)")
      ->capture_default_str();
  app.add_option("--duration", p.duration,
                 "Jobs arrive for this many emulated seconds, then the run ends (see --drain)")
      ->capture_default_str();
  app.add_option("--tasks", p.max_tasks, "Stop after this many task completions (0: no limit)")
      ->check(kNotNegative)
      ->capture_default_str();
  app.add_flag("--drain", p.drain,
               "After --duration, keep running until every submitted task is done (with "
               "--no-jobs: until the daemon holds no queued, blocked or running task)");
  app.add_option("--drain-limit", p.drain_limit,
                 "With --drain: give up this many emulated seconds after --duration")
      ->capture_default_str();
  app.add_option("--window", o.window, "Most requests in flight at once on the socket")
      ->capture_default_str();
  app.add_option("--timeout", o.timeout, "Wall seconds to wait for a reply before giving up")
      ->capture_default_str();
  app.add_option("--report", o.report, "Wall seconds between live lines (0: none)")
      ->capture_default_str();
  app.add_flag("--json", o.json, "Print the summary as one JSON object (live lines go to stderr)");
  app.add_flag("-q,--quiet", o.quiet, "No live lines");
}

void Validate(const Options& o) {
  if (const std::string err = ValidateAgentsParams(o.params); !err.empty())
    throw std::invalid_argument("--" + err);
  if (!(o.speed > 0)) throw std::invalid_argument("--speed: must be positive");
  if (!(o.report >= 0)) throw std::invalid_argument("--report: must not be negative");
  if (o.window < 1) throw std::invalid_argument("--window: must be at least 1");
  if (!(o.timeout > 0)) throw std::invalid_argument("--timeout: must be positive");
}

// Sends each batch pipelined over one LineClient. Given the instances of a
// high-availability cluster (tcp:... or tls:...), every request carries an id, and a batch
// whose connection fails is sent again whole, with the same ids, to the active
// found again (for up to `retry_for`): the daemon answers what it had applied
// from its replicated id memory, so each event applies once.
class SocketTransport : public Transport {
 public:
  SocketTransport(LineClient* client, std::string address, size_t window,
                  std::chrono::milliseconds retry_for)
      : client_(client),
        address_(std::move(address)),
        window_(window),
        retry_for_(retry_for),
        resend_(IsClusterAddress(address_)),
        id_prefix_("agents-" + std::to_string(getpid()) + "-" +
                   std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) +
                   "-") {}
  Status Exchange(const std::vector<std::string>& requests,
                  std::vector<std::string>* replies) override {
    if (!resend_) return client_->CallBatch(requests, replies, window_);
    tagged_.clear();
    for (const std::string& r : requests)
      tagged_.push_back("{\"id\":\"" + id_prefix_ + std::to_string(next_id_++) + "\"," +
                        r.substr(1));
    const auto deadline = std::chrono::steady_clock::now() + retry_for_;
    for (;;) {
      replies->clear();
      Status s = client_->CallBatch(tagged_, replies, window_);
      if (s.ok() || std::chrono::steady_clock::now() >= deadline) return s;
      std::fprintf(stderr, "locsched-agents: %s; finding the active again\n", s.message().c_str());
      do {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        s = client_->Connect(address_);
      } while (!s.ok() && s.code() != Status::Code::kPermissionDenied &&
               std::chrono::steady_clock::now() < deadline);
      if (!s.ok()) return s;
      ++reconnects_;
    }
  }
  /// Times the active was found again after a failed batch.
  uint64_t reconnects() const { return reconnects_; }

 private:
  LineClient* client_;
  std::string address_;
  size_t window_;
  std::chrono::milliseconds retry_for_;
  bool resend_;
  std::string id_prefix_;
  uint64_t next_id_ = 0;
  uint64_t reconnects_ = 0;
  std::vector<std::string> tagged_;
};

// A refusal that retrying cannot change (exit 77).
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws the error of `s`, if any: Refused for permission_denied (the socket's mode,
// the shared secret), else a runtime_error.
void Check(const Status& s) {
  if (s.code() == Status::Code::kPermissionDenied) throw Refused(s.message());
  if (!s.ok()) throw std::runtime_error(s.message());
}

// Prints the live line: emulated time, completion rate, locality, queues, job delay.
class LiveLine {
 public:
  LiveLine(const Options& o, Emulator* emu) : o_(o), emu_(emu) {}
  void Print() {
    DaemonCounts d;
    Check(emu_->QueryStatus(&d));
    const AgentsStats& s = emu_->stats();
    const double dt = emu_->now() - last_now_;
    const double rate = dt > 0 ? (s.AllDone() - last_done_) / dt : 0;
    const bool own = o_.params.submit_jobs;
    const std::vector<double>& delays = own ? s.job_delays : s.foreign_job_delays;
    const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::fprintf(o_.json ? stderr : stdout,
                 "t=%8.1fs  done %9llu (%8.1f tasks/s)  locality %5.1f%%  queued %7llu  blocked "
                 "%6llu  running %6llu  jobs done %6llu  mean job delay %.2fs  p95 %.2fs\n",
                 emu_->now(), u(s.AllDone()), rate, 100 * s.AllLocality(), u(d.queued),
                 u(d.blocked), u(d.running), u(own ? s.jobs_done : s.foreign_jobs_done),
                 MeanOf(delays), Quantile(delays, 0.95));
    std::fflush(o_.json ? stderr : stdout);
    last_now_ = emu_->now();
    last_done_ = s.AllDone();
  }

 private:
  const Options& o_;
  Emulator* emu_;
  double last_now_ = 0;
  uint64_t last_done_ = 0;
};

// Runs the emulation on the wall clock until it is finished or interrupted; returns wall seconds.
double Drive(const Options& o, Emulator* emu) {
  LiveLine live(o, emu);
  const auto start = Clock::now();
  const auto report_every = std::chrono::duration<double>(o.report);
  auto next_report = start + report_every;
  const bool reporting = o.report > 0 && !o.quiet;
  for (;;) {
    const std::chrono::duration<double> elapsed = Clock::now() - start;
    const double now = o.speed * elapsed.count();
    Check(emu->Step(now));
    if (emu->Finished(now) || g_interrupted) return elapsed.count();
    if (reporting && Clock::now() >= next_report) {
      live.Print();
      next_report += report_every;
    }
    // Sleep until the next event, at least 1 ms (so work batches), at most 100 ms.
    const double wake = std::clamp(emu->NextEventTime() / o.speed - elapsed.count(), 1e-3, 0.1);
    std::this_thread::sleep_for(std::chrono::duration<double>(wake));
  }
}

struct Summary {
  double wall_seconds = 0;
  DaemonCounts before, after;
  bool interrupted = false;
  int64_t Lost(const Emulator& emu) const {
    // The scheduler should hold what this run added (its own tasks not done, less
    // the other clients' tasks it ran) on top of what it held before.
    const AgentsStats& s = emu.stats();
    const auto added = static_cast<int64_t>(s.tasks_submitted - s.tasks_done) -
                       static_cast<int64_t>(s.foreign_done);
    return added -
           (static_cast<int64_t>(after.InSystem()) - static_cast<int64_t>(before.InSystem()));
  }
};

using json = nlohmann::json;

json SummaryJson(const Options& o, const Emulator& emu, const Summary& sum) {
  const AgentsStats& s = emu.stats();
  const AgentsParams& p = o.params;
  return {{"machines", p.machines},
          {"slots", p.slots},
          {"load", p.load},
          {"capacity", AgentsCapacity(p)},
          {"speed", o.speed},
          {"emulated_seconds", emu.now()},
          {"wall_seconds", sum.wall_seconds},
          {"interrupted", sum.interrupted},
          {"jobs_submitted", s.jobs_submitted},
          {"jobs_done", s.jobs_done},
          {"tasks_submitted", s.tasks_submitted},
          {"tasks_assigned", s.tasks_assigned},
          {"tasks_done", s.tasks_done},
          {"tasks_per_second", emu.now() > 0 ? s.tasks_done / emu.now() : 0.0},
          {"arrival_tasks_per_second", double(s.tasks_done_in_arrivals) / p.duration},
          {"locality", s.Locality()},
          {"racks", p.racks},
          {"rack_assigned", s.rack_assigned},
          {"mean_job_delay", s.MeanJobDelay()},
          {"weight_max", p.weight_max},
          {"weighted_mean_job_delay", s.WeightedMeanJobDelay()},
          {"p95_job_delay", Quantile(s.job_delays, 0.95)},
          {"submit_jobs", p.submit_jobs},
          {"all_tasks_done", s.AllDone()},
          {"all_locality", s.AllLocality()},
          {"unassigned", emu.unassigned()},
          {"running", emu.running()},
          {"daemon",
           {{"queued", sum.after.queued},
            {"running", sum.after.running},
            {"blocked", sum.after.blocked},
            {"live_jobs", sum.after.live_jobs}}},
          {"daemon_before", {{"in_system", sum.before.InSystem()}}},
          {"lost", p.submit_jobs ? json(sum.Lost(emu)) : json(nullptr)},
          {"requests", s.requests},
          {"batches", s.batches},
          {"max_lag", s.max_lag},
          {"foreign_assigned", s.foreign_assigned},
          {"foreign_done", s.foreign_done},
          {"foreign_jobs_done", s.foreign_jobs_done},
          {"foreign_jobs_unmeasured", s.foreign_jobs_unmeasured},
          {"foreign_mean_job_delay", MeanOf(s.foreign_job_delays)},
          {"foreign_p95_job_delay", Quantile(s.foreign_job_delays, 0.95)},
          {"tasks_preempted", s.tasks_preempted},
          {"preempted_task_s", s.preempted_task_s},
          {"stops_ignored", s.stops_ignored},
          {"anomalies", s.anomalies},
          {"tasks_dropped", s.tasks_dropped},
          {"cancelled_jobs", emu.cancelled_jobs()}};
}

// The runs the scheduler preempted, if any.
void PrintPreempted(const AgentsStats& s) {
  if (s.tasks_preempted == 0 && s.stops_ignored == 0) return;
  std::printf(
      "  preempted: %llu runs stopped (%.1f emulated task-s lost), %llu stop orders for "
      "runs already ended\n",
      static_cast<unsigned long long>(s.tasks_preempted), s.preempted_task_s,
      static_cast<unsigned long long>(s.stops_ignored));
}

// The summary's body with --no-jobs: every job came from another client.
void PrintForeignSummary(const Emulator& emu, const Summary& sum) {
  const AgentsStats& s = emu.stats();
  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf(
      "  jobs:      %llu done (submitted by another client); completion time mean %.2f, p95 "
      "%.2f emulated s (the daemon's clock x speed; %llu not measured)\n",
      u(s.foreign_jobs_done), MeanOf(s.foreign_job_delays), Quantile(s.foreign_job_delays, 0.95),
      u(s.foreign_jobs_unmeasured));
  std::printf("  tasks:     %llu assigned, %llu done (%.1f/s), locality %.1f%%\n",
              u(s.foreign_assigned), u(s.foreign_done),
              emu.now() > 0 ? s.foreign_done / emu.now() : 0, 100 * s.AllLocality());
  std::printf("  scheduler: queued %llu, running %llu, blocked %llu, live jobs %llu\n",
              u(sum.after.queued), u(sum.after.running), u(sum.after.blocked),
              u(sum.after.live_jobs));
  PrintPreempted(s);
  std::printf("  traffic:   %llu requests in %llu batches; worst completion lag %.3f emulated s\n",
              u(s.requests), u(s.batches), s.max_lag);
}

void PrintSummary(const Options& o, const Emulator& emu, const Summary& sum) {
  const AgentsStats& s = emu.stats();
  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  char load[64] = "no jobs of its own";
  if (o.params.submit_jobs) std::snprintf(load, sizeof load, "load %.1f tasks/s", o.params.load);
  std::printf(
      "locsched-agents: %u machines x %u slots, %s (capacity %.1f), %.1f emulated s in %.1f wall "
      "s%s\n",
      o.params.machines, o.params.slots, load, AgentsCapacity(o.params), emu.now(),
      sum.wall_seconds, sum.interrupted ? " (interrupted)" : "");
  if (!o.params.submit_jobs) return PrintForeignSummary(emu, sum);
  std::printf(
      "  jobs:      %llu submitted, %llu done, mean job delay %.2f (weighted %.2f), p95 %.2f "
      "emulated s\n",
      u(s.jobs_submitted), u(s.jobs_done), s.MeanJobDelay(), s.WeightedMeanJobDelay(),
      Quantile(s.job_delays, 0.95));
  std::printf("  tasks:     %llu submitted, %llu done (%.1f/s), locality %.1f%%\n",
              u(s.tasks_submitted), u(s.tasks_done), emu.now() > 0 ? s.tasks_done / emu.now() : 0,
              100 * s.Locality());
  std::printf(
      "  scheduler: queued %llu, running %llu, blocked %llu (emulator: %llu unassigned, "
      "%llu running); lost %lld\n",
      u(sum.after.queued), u(sum.after.running), u(sum.after.blocked), u(emu.unassigned()),
      u(emu.running()), static_cast<long long>(sum.Lost(emu)));
  if (s.foreign_assigned > 0)
    std::printf("  foreign:   %llu tasks of other clients' jobs assigned here, %llu done\n",
                u(s.foreign_assigned), u(s.foreign_done));
  PrintPreempted(s);
  std::printf("  traffic:   %llu requests in %llu batches; worst completion lag %.3f emulated s\n",
              u(s.requests), u(s.batches), s.max_lag);
}

// Prints the anomalies and says whether the run passed its own checks.
bool Verdict(const Options& o, const Emulator& emu) {
  for (const std::string& a : emu.anomaly_log()) std::fprintf(stderr, "anomaly: %s\n", a.c_str());
  const AgentsStats& s = emu.stats();
  if (s.tasks_dropped > 0) {
    std::string jobs;
    for (const std::string& j : emu.cancelled_jobs())
      jobs += (jobs.empty() ? "'" : ", '") + j + "'";
    std::fprintf(stderr,
                 "locsched-agents: dropped %llu running tasks of jobs cancelled meanwhile: %s\n",
                 static_cast<unsigned long long>(s.tasks_dropped), jobs.c_str());
  }
  bool ok = true;
  if (s.anomalies > 0) {
    std::fprintf(stderr, "locsched-agents: %llu replies contradicted the emulator's bookkeeping\n",
                 static_cast<unsigned long long>(s.anomalies));
    ok = false;
  }
  if (!o.params.submit_jobs && o.params.drain && !g_interrupted &&
      emu.last_status().InSystem() > 0) {
    std::fprintf(stderr, "locsched-agents: drain incomplete: the daemon still holds %llu tasks\n",
                 static_cast<unsigned long long>(emu.last_status().InSystem()));
    ok = false;
  }
  if (o.params.drain && !g_interrupted && s.tasks_done < s.tasks_submitted) {
    std::fprintf(stderr, "locsched-agents: drain incomplete: %llu tasks never finished\n",
                 static_cast<unsigned long long>(s.tasks_submitted - s.tasks_done));
    ok = false;
  }
  return ok;
}

int Run(Options o) {
  o.params.time_scale = o.speed;
  LineClient client;
  Check(client.Connect(o.socket));
  client.set_timeout(std::chrono::milliseconds(static_cast<int64_t>(o.timeout * 1000)));
  SocketTransport transport(&client, o.socket, o.window, std::chrono::seconds(60));
  Emulator emu(o.params, &transport);
  Summary sum;
  Check(emu.QueryStatus(&sum.before));
  if (sum.before.InSystem() > 0 && o.params.submit_jobs)
    std::fprintf(stderr,
                 "locsched-agents: note: the scheduler already holds %llu tasks; those assigned "
                 "here run as foreign tasks\n",
                 static_cast<unsigned long long>(sum.before.InSystem()));
  Check(emu.Start());
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  sum.wall_seconds = Drive(o, &emu);
  sum.interrupted = g_interrupted != 0;
  Check(emu.QueryStatus(&sum.after));
  if (o.json)
    std::printf("%s\n", SummaryJson(o, emu, sum).dump().c_str());
  else
    PrintSummary(o, emu, sum);
  std::fflush(stdout);
  return Verdict(o, emu) ? 0 : 1;
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  using namespace locsched;
  CLI::App app{
      "locsched-agents: emulates a cluster against a running locschedd. Registers the\n"
      "machines (named [--prefix]m0, m1, ...), submits Poisson jobs (unless --no-jobs),\n"
      "heartbeats free slots (and every machine at least every --keepalive s), runs each\n"
      "assigned task for an exponential time (rate --alpha\n"
      "if local, --gamma if remote) on an accelerated clock and reports completions. Prints a\n"
      "live line every --report s and a summary at the end."};
  app.footer(
      "Exit codes:\n"
      "  0    ok\n"
      "  1    the scheduler refused a request, contradicted the emulator's bookkeeping or\n"
      "       could not be reached\n"
      "  2    bad command line\n"
      "  77   permission denied: the socket refused this user, or with tcp: or tls: the\n"
      "       shared secret ($LOCSCHED_SECRET_FILE unset, its file unreadable, or refused),\n"
      "       or with tls: the CA (--tls-ca and $LOCSCHED_TLS_CA unset, its file unreadable,\n"
      "       or the daemon's certificate not verified by it); never retried");
  app.set_version_flag("--version", std::string("locsched-agents ") + LOCSCHED_VERSION);
  Options o;
  AddClusterFlags(app, o);
  AddWorkloadFlags(app, o);
  AddRunFlags(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help is 0; every bad flag is 2
  }
  if (!o.tls_ca.empty()) UseTlsCa(o.tls_ca);
  try {
    Validate(o);
    return Run(o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "locsched-agents: %s\nRun with --help for the options.\n", e.what());
    return 2;
  } catch (const Refused& e) {
    std::fprintf(stderr, "locsched-agents: %s\n", e.what());
    return 77;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locsched-agents: %s\n", e.what());
    return 1;
  }
}
