// Emulator: the cluster behind locsched-agents: machines and (unless submit_jobs is off) a
// job submitter against a scheduler behind a Transport, in emulated time: Poisson arrivals,
// heartbeats, exponential durations fixed per task at submission, completions. Called by
// tools/agents/main.cc and tests; no clocks, no sockets; one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/rng.h"
#include "base/stats.h"
#include "base/status.h"

namespace locsched {

/// The emulated cluster and workload (times in emulated seconds).
struct AgentsParams {
  uint32_t machines = 100;     ///< machines M
  uint32_t slots = 1;          ///< task slots per machine
  double data_fraction = 0.8;  ///< the first share of machines holds every replica
  uint32_t replicas = 3;       ///< replicas per task, on distinct data machines
  double load = 50;            ///< task arrivals per emulated second
  double job_size_mean = 30;   ///< mean map tasks per job (geometric, >= 1)
  uint32_t reduces = 0;        ///< reduce tasks per job (they wait for the maps)
  uint32_t weight_max = 1;     ///< job weights: uniform integers 1..weight_max (as locsched-sim)
  double alpha = 0.8;          ///< local service rate: a local task lasts Exp(alpha)
  double gamma = 0.2;          ///< remote service rate: a remote task lasts Exp(gamma)
  /// Racks: machine m is in rack "r<m * racks / machines>" (sent in machine_up); 0 or 1:
  /// no topology, no rack in machine_up.
  uint32_t racks = 0;
  /// Rack-local service rate (with racks > 1): a task off its holders but in a holder's
  /// rack lasts Exp(beta); 0: sqrt(alpha * gamma), the geometric mean.
  double beta = 0;
  double duration = 60;     ///< jobs arrive until this time
  uint64_t max_tasks = 0;   ///< stop after this many completions (0: no limit)
  double heartbeat = 0.25;  ///< period of a machine's heartbeat while it has a free slot
  /// Scheduler-clock (wall) seconds: every machine heartbeats at least this often, full,
  /// idle or not, so the daemon knows it is alive (its machines.expiry_s); 0: never.
  double keepalive = 3;
  bool drain = false;        ///< after `duration`, run until every submitted task is done
  double drain_limit = 600;  ///< give up draining this long after `duration`
  uint64_t seed = 1;         ///< seeds arrivals, sizes, replicas and durations
  std::string prefix;        ///< prepended to machine and job names
  bool submit_jobs = true;   ///< false (--no-jobs): run only what other clients submit
  double time_scale = 1;     ///< emulated seconds per scheduler-clock second (the speed)
};

/// "" if `p` is usable, else "flag-name: what is wrong" (flag names as locsched-agents spells
/// them).
std::string ValidateAgentsParams(const AgentsParams& p);
/// The throughput bound alpha*K + gamma*(M-K) tasks per emulated second, times slots.
double AgentsCapacity(const AgentsParams& p);

/// How the emulator reaches the scheduler: a batch of request lines in, one reply per line out.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Sends `requests` in order and fills *replies with their replies, in the same order.
  virtual Status Exchange(const std::vector<std::string>& requests,
                          std::vector<std::string>* replies) = 0;
};

/// What the emulator has seen so far.
struct AgentsStats {
  uint64_t jobs_submitted = 0;          ///< job_submit requests acknowledged
  uint64_t tasks_submitted = 0;         ///< tasks in those jobs
  uint64_t tasks_assigned = 0;          ///< assignments received and started
  uint64_t local_assigned = 0;          ///< ... of which the scheduler called local
  uint64_t rack_assigned = 0;           ///< ... of which the scheduler called rack-local
  uint64_t tasks_done = 0;              ///< task_done requests sent
  uint64_t tasks_done_in_arrivals = 0;  ///< ... for completions by `duration` (jobs still arrive)
  uint64_t local_done = 0;              ///< ... of which ran local
  uint64_t jobs_done = 0;               ///< jobs whose every task is done
  double job_delay_sum = 0;             ///< sum over done jobs of (last completion - arrival)
  double weighted_delay_sum = 0;    ///< sum over done jobs of weight x (last completion - arrival)
  double weight_sum = 0;            ///< sum of the done jobs' weights
  uint64_t requests = 0;            ///< request lines sent, status calls included
  uint64_t batches = 0;             ///< transport round trips
  double max_lag = 0;               ///< worst delay between a completion's time and its report
  uint64_t anomalies = 0;           ///< replies that contradict the emulator's own bookkeeping
  uint64_t tasks_dropped = 0;       ///< finished tasks of jobs an operator cancelled meanwhile
  uint64_t foreign_assigned = 0;    ///< tasks of jobs another client submitted, run all the same
  uint64_t foreign_done = 0;        ///< ... and reported done
  uint64_t foreign_local_done = 0;  ///< ... of which the scheduler called local
  uint64_t foreign_jobs_done = 0;   ///< other clients' jobs whose last task ended here
  uint64_t foreign_jobs_unmeasured = 0;  ///< ... whose time the scheduler could not tell
  uint64_t tasks_preempted = 0;  ///< runs stopped on a heartbeat reply's "preempt", own and foreign
  double preempted_task_s = 0;   ///< emulated seconds those runs had run (the work lost)
  uint64_t stops_ignored = 0;    ///< stop orders for runs no longer here (finished meanwhile)
  std::vector<double> job_delays;          ///< (last completion - arrival) of each done job
  std::vector<double> foreign_job_delays;  ///< the scheduler's submit-to-done time, scaled

  /// Mean delay of done jobs (0 if none).
  double MeanJobDelay() const { return jobs_done ? job_delay_sum / jobs_done : 0; }
  /// Weighted mean delay of done jobs, sum w_j C_j / sum w_j (0 if none).
  double WeightedMeanJobDelay() const {
    return weight_sum > 0 ? weighted_delay_sum / weight_sum : 0;
  }
  /// Share of done tasks that ran local (0 if none).
  double Locality() const { return tasks_done ? double(local_done) / tasks_done : 0; }
  /// Tasks reported done, own and foreign.
  uint64_t AllDone() const { return tasks_done + foreign_done; }
  /// Share of all done tasks, own and foreign, that ran local (0 if none).
  double AllLocality() const {
    return AllDone() ? double(local_done + foreign_local_done) / AllDone() : 0;
  }
};

/// Counters from the scheduler's `status` reply.
struct DaemonCounts {
  uint64_t queued = 0;     ///< tasks.queued
  uint64_t running = 0;    ///< tasks.running
  uint64_t blocked = 0;    ///< tasks.blocked (reduces waiting for maps)
  uint64_t live_jobs = 0;  ///< jobs.live
  /// Tasks the scheduler holds that are not done.
  uint64_t InSystem() const { return queued + running + blocked; }
};

/// The emulated cluster: machines, submitter, running tasks and job bookkeeping.
class Emulator {
 public:
  /// An emulator for `params` (validated by the caller) that talks through `transport`.
  Emulator(const AgentsParams& params, Transport* transport);

  /// Registers every machine with machine_up; call once, at emulated time 0.
  Status Start();
  /// Advances to emulated time `now`: submits due jobs, reports due completions in time
  /// order (a freed machine heartbeats right after its report), heartbeats the other
  /// machines with free slots that are due, and starts the tasks assigned to them.
  Status Step(double now);
  /// The earliest emulated time at which Step has something to do.
  double NextEventTime() const;
  /// True once the run is over at `now` (duration, task count or drain reached).
  bool Finished(double now) const;
  /// Asks the scheduler for its status counters.
  Status QueryStatus(DaemonCounts* out);
  /// With submit_jobs off: the scheduler's counters from the last batch's status request.
  const DaemonCounts& last_status() const { return last_status_; }

  /// The counters so far.
  const AgentsStats& stats() const { return stats_; }
  /// The first anomalies, each with the request and the reply that showed it.
  const std::vector<std::string>& anomaly_log() const { return anomaly_log_; }
  /// The jobs whose running tasks were dropped because an operator cancelled them.
  const std::vector<std::string>& cancelled_jobs() const { return cancelled_jobs_; }
  /// Tasks submitted and not running or done (a preempted one waits again), by the
  /// emulator's own count.
  uint64_t unassigned() const {
    return stats_.tasks_submitted + own_preempted_ - stats_.tasks_assigned;
  }
  /// Tasks of the emulator's own jobs running on the emulated machines now.
  uint64_t running() const { return stats_.tasks_assigned - own_preempted_ - stats_.tasks_done; }
  /// The emulated time of the last Step.
  double now() const { return now_; }

 private:
  enum class TaskState : uint8_t { kQueued, kRunning, kDone };
  struct Task {
    TaskState state = TaskState::kQueued;
    double work = 1;  // Exp(1) draw: the task lasts work / alpha local, work / gamma remote
    std::vector<uint32_t> replicas;
    uint32_t run = 0;      // runs started; a completion of an earlier (preempted) one is void
    uint32_t machine = 0;  // while running
    double started = 0;    // while running
  };
  struct Job {
    std::string name;
    double arrival = 0;
    uint32_t weight = 1;
    uint32_t maps = 0;
    uint32_t maps_left = 0;
    uint32_t tasks_left = 0;
    std::vector<Task> tasks;  // maps first, then reduces
  };
  static constexpr uint32_t kForeign = ~0u;  // Completion::job of another client's task
  struct Completion {
    double time;
    uint32_t machine, job, task;  // job kForeign: task indexes foreign_
    uint32_t run;                 // the task's (or foreign_ entry's) run it ends
    bool local;
    bool operator>(const Completion& o) const { return time > o.time; }
  };
  // What a request in the current batch was for, to read its reply.
  struct Pending {
    enum Kind : uint8_t {
      kSubmit,
      kDone,
      kForeignDone,
      kHeartbeat,
      kStatus,
      kJobQuery,
      kPreempted
    } kind;
    uint32_t a;         // job (kSubmit, kDone), machine (kHeartbeat) or foreign_ slot
    uint32_t b;         // task (kDone) or free slots offered (kHeartbeat)
    bool job_finished;  // kDone: the emulator's view of "job_done"
  };

  void QueueCompletions();
  void QueueArrivals();
  void QueueHeartbeats();
  void QueueForeignQueries();
  bool TasksWaiting() const;
  void ReadForeignDone(const Pending& p, const nlohmann::json& reply);
  bool DropCancelled(const Pending& p, const std::string& request, const nlohmann::json& reply);
  void ReadJobQuery(const nlohmann::json& reply);
  void MarkForHeartbeat(uint32_t machine);
  void AskForWork(uint32_t machine);
  void SendHeartbeat(uint32_t machine);
  void QueueKeepalives();
  void SubmitJob();
  std::vector<uint32_t> PickReplicas();
  std::string JobSubmitLine(const Job& job) const;
  void FinishTask(const Completion& c);
  void FinishForeign(const Completion& c);
  bool OwnJobName(std::string_view name) const;
  void StartForeign(uint32_t machine, std::string_view job, std::string_view task, bool local,
                    bool rack);
  Status ReadReply(const Pending& p, const std::string& request, const std::string& reply);
  void StartAssigned(uint32_t machine, uint32_t offered, const nlohmann::json& assign,
                     const std::string& request, const std::string& reply);
  bool StartOne(uint32_t machine, std::string_view job, std::string_view task, bool local,
                bool rack, std::string* problem);
  uint32_t StopPreempted(uint32_t machine, const nlohmann::json& stops, const std::string& request,
                         const std::string& reply);
  bool StopOwn(uint32_t machine, const std::string& job, const std::string& task);
  bool StopForeign(uint32_t machine, const std::string& job, const std::string& task);
  void ReportPreempted(uint32_t machine, const std::string& job, const std::string& task);
  bool Stale(const Completion& c) const;
  void Anomaly(const std::string& what, const std::string& request, const std::string& reply);
  uint32_t GeometricSize();
  uint32_t RackOf(uint32_t machine) const;
  double RateOn(uint32_t machine, const std::vector<uint32_t>& replicas) const;
  double Exponential(double rate);
  std::string MachineName(uint32_t m) const;

  AgentsParams p_;
  Transport* transport_;
  Rng rng_;
  Rng weight_rng_;  // a stream of its own: weights leave every other draw unchanged
  // Task durations come from their own stream, drawn at submission: the jobs that arrive,
  // and how long each task takes, do not depend on the scheduler's choices.
  Rng work_rng_;
  double now_ = 0;
  double next_arrival_ = 0;
  uint32_t data_machines_ = 0;
  std::vector<uint32_t> free_;   // free slots per machine
  std::vector<uint8_t> marked_;  // machine already heartbeats in this batch
  std::vector<uint32_t> to_heartbeat_;
  std::vector<uint8_t> asked_;        // machine sent a heartbeat in this batch
  std::vector<uint32_t> asked_list_;  // ... which machines, to clear asked_
  std::vector<Completion> due_;       // completions reported in this batch
  std::vector<uint32_t> due_on_;      // per machine: its completions in due_ not yet reported
  std::queue<std::pair<double, uint32_t>> heartbeat_due_;  // FIFO: the period is constant
  std::queue<std::pair<double, uint32_t>> keepalive_due_;  // FIFO: the period is constant
  std::vector<double> last_beat_;                          // per machine: its last heartbeat
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::vector<Job> jobs_;
  std::unordered_map<std::string, uint32_t> job_index_;  // live jobs by name
  struct ForeignRun {
    std::string job, task;
    uint32_t machine = 0;
    uint32_t run = 0;  // bumped when the entry's run ends or is preempted
    double started = 0;
    bool running = false;
  };
  std::vector<ForeignRun> foreign_;            // foreign tasks' runs
  std::vector<uint32_t> foreign_free_;         // reusable foreign_ entries
  std::vector<std::string> finished_foreign_;  // foreign jobs done, their time not yet asked
  DaemonCounts last_status_;
  double next_poll_ = 0;        // submit_jobs off: emulated time of the next status request
  double status_at_ = -1;       // emulated time of the last status read in a batch
  uint64_t own_preempted_ = 0;  // of stats_.tasks_preempted, own jobs' runs
  std::vector<std::string> preempt_reports_;  // task_preempted lines for the next batch
  std::vector<std::string> requests_, replies_;
  std::vector<Pending> pending_;
  AgentsStats stats_;
  std::vector<std::string> anomaly_log_;
  std::vector<std::string> cancelled_jobs_;
};

}  // namespace locsched
