// Turning parsed trace events into locschedd requests for locsched-tail: each
// request gets an "id" derived from the event's source position, so the daemon
// drops a duplicate after a retry or a restart. A replay is one run: its run id
// qualifies every id and job name, so two runs of one file are distinct work
// while a resumed run repeats its own ids. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "io/traces/trace_parser.h"

namespace locsched {

/// The id of `e` read from `source` (the path as given) at rotation `generation`.
std::string EventId(std::string_view source, uint64_t generation, const TraceEvent& e);

/// A replay run's id: 8 random hex digits (a fresh one per run).
std::string NewRunId();
/// "" if `run` may name a run (1 to 64 of A-Z a-z 0-9 . _ -), else why not.
std::string RunIdProblem(std::string_view run);
/// Job `job` as run `run` names it: "<job>@<run>"; `job` itself when `run` is "".
std::string RunJobName(std::string_view job, std::string_view run);

/// The request lines for `e` with `id`, none when the event is not sent (attempt events,
/// JobHistory job records without tasks). Tasks without replicas get placed ones. A job
/// whose line would pass `max_bytes` goes as a job_submit with "tasks_total" and the
/// first tasks, then task_add parts with ids "<id>#1", "<id>#2", ..., each within it.
/// With a non-empty `run`, every job name is RunJobName(job, run), and so is the "job"
/// of a forwarded locsched line, whose own id gets "<run>:" in front.
std::vector<std::string> RequestLines(const TraceEvent& e, const std::string& id,
                                      const SynthesisOptions& o, size_t max_bytes,
                                      std::string_view run = {});
/// RequestLines' first line with no size limit, or "".
std::string RequestLine(const TraceEvent& e, const std::string& id, const SynthesisOptions& o,
                        std::string_view run = {});

/// `line` as it goes on the wire: itself if it fits `max_bytes` or is no job_submit;
/// else a job_submit with "tasks_total" and the first tasks, then task_add requests
/// with the rest, every line within max_bytes. Part k > 0 has the id "<id>#k" (the
/// id's digits for an integer id), so a resent part is dropped as a duplicate.
std::vector<std::string> SplitRequest(const std::string& line, size_t max_bytes);

/// For --announce-machines: machine_up requests for the replica hosts of a job_submit or
/// task_add line that were not announced before (ids "up:<host>", so repeats are dropped
/// by the daemon). The ids carry no run: machines are the cluster, shared by every run, and
/// a machine_up again would undo an operator's drain.
class MachineAnnouncer {
 public:
  /// Appends to *out a machine_up line per new replica host named in `request`.
  void Lines(const std::string& request, std::vector<std::string>* out);

 private:
  std::unordered_set<std::string> announced_;
};

}  // namespace locsched
