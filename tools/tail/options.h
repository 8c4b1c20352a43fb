// locsched-tail's settings and its three modes (check, replay, follow), each in
// its own tools/tail/*_mode(s).cc; tools/tail/main.cc parses the flags and picks one.
// Everything runs on the main thread; SIGINT/SIGTERM only set g_tail_stop.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "io/traces/trace_parser.h"

namespace locsched {

/// Every flag of locsched-tail.
struct TailOptions {
  TraceFormat format = TraceFormat::kLocsched;  ///< --format
  std::vector<std::string> files;               ///< the logs, in order
  bool check = false;                           ///< --check: parse only, print counts
  bool follow = false;                          ///< --follow: tail -F the files
  std::string socket;                           ///< --socket: locschedd's event socket
  std::string tls_ca;                           ///< --tls-ca: the CA of a tls: --socket
  std::string checkpoint;                       ///< --checkpoint: follow mode's state file
  std::string resume;                           ///< --resume: the replay run to continue
  double speed = 0;     ///< --speed: replay at trace time / speed; 0 = as fast as accepted
  size_t window = 256;  ///< --window: most requests unanswered at once
  size_t max_line_bytes = 524288;  ///< --max-line-bytes: longer job_submits go in parts
  double timeout = 30;             ///< --timeout: seconds to wait for one reply
  double retry_for = 60;           ///< --retry-for: seconds to keep reconnecting to the daemon
  double poll = 0.2;               ///< --poll: seconds between looks at idle followed files
  double idle_exit = 0;     ///< --idle-exit: follow mode ends after this long idle (0: never)
  size_t max_reports = 20;  ///< --max-reports: malformed records printed (then only counted)
  bool json = false;        ///< --json: the summary as one JSON object on stdout
  bool quiet = false;       ///< -q: no progress bar
  bool announce = false;    ///< --announce-machines: machine_up for unseen replica hosts
  bool map_hosts = false;   ///< --map-hosts: trace hosts become machine_prefix + index
  /// --machines (default: DefaultClusterSize of the first file), --replication, --seed,
  /// --racks, --machine-prefix
  SynthesisOptions synth;
};

/// Set by SIGINT and SIGTERM: finish what is in flight, save the checkpoint, exit.
extern volatile std::sig_atomic_t g_tail_stop;

/// --check: prints one JSON object of counts; 0, or 1 if a file cannot be read.
int RunCheck(const TailOptions& o);
/// Exit code of a replay whose every request the daemon answered as a duplicate.
constexpr int kExitAllDuplicates = 3;

/// Replays the files to the daemon once (paced by --speed) as a new run, or as run
/// --resume; 0 if all were accepted, 1 on failure or when the daemon refused a request,
/// kExitAllDuplicates when every request was a duplicate (nothing was applied).
int RunReplay(const TailOptions& o);
/// Follows the files until stopped; 0 on a clean stop, 1 on failure or when the daemon
/// refused a request.
int RunFollow(const TailOptions& o);

/// Prints "file:line: message" to stderr for the first --max-reports malformed records.
void ReportMalformed(const TailOptions& o, const std::string& file,
                     const std::vector<Malformed>& bad, uint64_t* reported);

}  // namespace locsched
