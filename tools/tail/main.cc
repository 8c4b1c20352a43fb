// locsched-tail: reads real workload logs (Hadoop JobHistory, Rumen JSON, SWIM,
// Google job_events, locsched JSON lines) and feeds locschedd's event socket.
// This file holds the flags and picks the mode: --check (tail_check.cc), replay
// or --follow (tail_send.cc).
#include <csignal>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "io/traces/trace_reader.h"
#include "tools/tail/options.h"
#include "tools/tail/requests.h"

namespace locsched {
namespace {

void OnStop(int) {
  g_tail_stop = 1;
}

void AddFlags(CLI::App& app, TailOptions& o, std::string& format) {
  app.add_option("files", o.files, "Log files, read in this order (.gz read directly)")->required();
  app.add_option("--format", format,
                 "Input format: locsched (protocol JSON lines), jobhistory (Hadoop 0.20 JobHistory "
                 "text), rumen (Rumen JSON jobs), swim (SWIM TSV), google (cluster-data 2011 "
                 "job_events CSV)")
      ->required();
  app.add_flag("--check", o.check,
               "Parse without sending; print one JSON object with jobs, tasks, attempts, events "
               "and malformed, and what a replay sends: hosts (distinct replica hosts the log "
               "names), machines (the cluster replicas are placed on), submits (job_submit "
               "requests) and span (seconds, first to last)");
  app.add_flag("-f,--follow", o.follow,
               "Follow the files like tail -F (rotation, truncation, files not there yet) until "
               "SIGINT/SIGTERM; plain files only");
  app.add_option(
      "--socket", o.socket,
      "locschedd's event socket (needed unless --check), or tcp:HOST:PORT,... the "
      "instances of a high-availability cluster ($LOCSCHED_SECRET_FILE holds its secret)");
  app.add_option("--checkpoint", o.checkpoint,
                 "Follow mode: state file (file identity + offset) so a restart neither loses nor "
                 "repeats events");
  app.add_option("--resume", o.resume,
                 "Replay: continue run RUN_ID (printed when it started) after a crash or a "
                 "stop: the files are sent again with that run's ids and job names, and the "
                 "daemon answers what it applied already as duplicates. Without it a replay is a "
                 "new run: a fresh run id in every request id and job name (JOB@RUN_ID), so "
                 "replaying a file twice runs its jobs twice")
      ->type_name("RUN_ID");
  app.add_option("--speed", o.speed,
                 "Replay: trace seconds per wall second (1 = real time, 60 = accelerated 60x); 0 "
                 "sends as fast as the daemon accepts")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--window", o.window, "Most requests unanswered at once (backpressure)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--max-line-bytes", o.max_line_bytes,
                 "Longest request line sent: a bigger job goes as a job_submit with tasks_total "
                 "and task_add parts (keep it within the daemon's limits.max_line_bytes)")
      ->check(CLI::Range(size_t{4096}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--timeout", o.timeout, "Seconds to wait for a reply before reconnecting")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--retry-for", o.retry_for,
                 "Seconds to keep trying to reach the daemon (it may be restarting)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--poll", o.poll, "Follow mode: seconds between looks at idle files")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--idle-exit", o.idle_exit,
                 "Follow mode: stop after this many seconds without new data (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-reports", o.max_reports,
                 "Malformed records printed with file and line (all are counted)")
      ->capture_default_str();
  app.add_flag("--json", o.json, "Print the final summary as one JSON object on stdout");
  app.add_flag("-q,--quiet", o.quiet, "No progress bar");
  app.add_flag("--announce-machines", o.announce,
               "Send machine_up for each replica host not seen before (the daemon refuses "
               "replicas on unknown machines; real traces name real hosts)");
  app.add_flag("--map-hosts", o.map_hosts,
               "Replay: rename the replica hosts the trace names to --machine-prefix + index "
               "(first seen, first numbered; an error past --machines) so that locsched-agents' "
               "machines hold them; not with --follow");
}

void AddSynthesisFlags(CLI::App& app, SynthesisOptions& s) {
  app.add_option("--machines", s.machines,
                 "swim, google and tasks without known locations: cluster size the seeded policy "
                 "places replicas on (default: 3000, FB-2010's, when the first file's first row "
                 "is SWIM's with-input-paths format; else 600, FB-2009's)")
      ->check(CLI::Range(1u, 1u << 24))
      ->capture_default_str();
  app.add_option("--replication", s.replication, "swim, google: replicas per task")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  app.add_option("--seed", s.seed, "swim, google: seed of the replica placement")
      ->capture_default_str();
  app.add_option("--racks", s.racks,
                 "swim, google: racks (machine i in rack i*R/M, as locsched-agents --racks); "
                 "above 1, replicas follow HDFS's placement: one on a random machine, two "
                 "together on another rack")
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--tenants",
         [&s](const std::string& text) {
           if (Status st = ParseTenants(text, &s.tenants); !st.ok())
             throw CLI::ValidationError(st.message());
         },
         "swim: NAME:SHARE,... puts each job in tenant NAME's queue (job_submit's queue) with "
         "probability SHARE, by a draw seeded by --seed and the job's name; the rest name no "
         "queue (the daemon's placement rules choose)")
      ->type_name("NAME:SHARE,...");
  app.add_option("--machine-prefix", s.machine_prefix,
                 "Placed replica i is named PREFIX + i (locsched-agents names machines m0, m1...)")
      ->capture_default_str();
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  using namespace locsched;
  CLI::App app{
      "locsched-tail: reads workload logs and feeds locschedd's event socket. Job arrivals\n"
      "become job_submit requests (ids derived from the source position, so the daemon drops\n"
      "duplicates; a replay is one run, whose id is in every request id and job name, see\n"
      "--resume); locsched-format lines are forwarded (a replay's run renames their jobs\n"
      "and ids); task attempts are counted, not sent (the cluster reports its own).\n"
      "Malformed records are\n"
      "reported with file and line, counted and skipped. Jobs too big for one request line go\n"
      "in parts (job_submit with tasks_total, then task_add)."};
  app.footer(
      "Exit codes:\n"
      "  0    ok\n"
      "  1    a file could not be read, the daemon could not be reached or refused a\n"
      "       request, or (--check) every record of a file is malformed\n"
      "  2    bad command line\n"
      "  3    replay: the daemon answered every request as a duplicate, so nothing was\n"
      "       applied (a --resume of a run it had applied in full)\n"
      "  77   permission denied: the socket refused this user, or with tcp: the shared\n"
      "       secret ($LOCSCHED_SECRET_FILE unset, its file unreadable, or refused); never\n"
      "       retried");
  app.set_version_flag("--version", std::string("locsched-tail ") + LOCSCHED_VERSION);
  TailOptions o;
  std::string format;
  AddFlags(app, o, format);
  AddSynthesisFlags(app, o.synth);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help is 0; every bad flag is 2
  }
  const auto usage = [](const std::string& what) {
    std::fprintf(stderr, "locsched-tail: %s\nRun with --help for the options.\n", what.c_str());
    return 2;
  };
  if (Status s = ParseTraceFormat(format, &o.format); !s.ok()) return usage(s.message());
  if (o.check && o.follow) return usage("--check and --follow exclude each other");
  if (!o.check && o.socket.empty()) return usage("--socket: is required unless --check");
  if (o.follow && o.speed > 0) return usage("--speed: applies to replays, not to --follow");
  if (!o.follow && !o.checkpoint.empty()) return usage("--checkpoint: applies to --follow only");
  if (!o.resume.empty() && (o.follow || o.check))
    return usage(
        "--resume: applies to replays; --follow resumes from its --checkpoint, and --check "
        "sends nothing");
  if (app.count("--resume") > 0)
    if (const std::string why = RunIdProblem(o.resume); !why.empty())
      return usage("--resume: " + why);
  if (o.follow && o.map_hosts)
    return usage(
        "--map-hosts: applies to replays and --check (it numbers hosts in reading "
        "order, which a restart from a checkpoint would not repeat), not to --follow");
  if (o.map_hosts && (o.format == TraceFormat::kSwim || o.format == TraceFormat::kGoogleJobEvents))
    return usage(
        "--map-hosts: swim and google replicas are placed on --machine-prefix + index "
        "already; it applies to logs that name hosts (jobhistory, rumen)");
  if (o.map_hosts && o.announce)
    return usage("--map-hosts and --announce-machines exclude each other");
  // A SWIM file recorded on FB-2010's cluster replays on it unless --machines says otherwise.
  if (app.count("--machines") == 0)
    o.synth.machines = DefaultClusterSize(o.format, o.files.front());
  if (o.check) return RunCheck(o);
  std::signal(SIGINT, OnStop);
  std::signal(SIGTERM, OnStop);
  return o.follow ? RunFollow(o) : RunReplay(o);
}
