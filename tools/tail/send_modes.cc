// locsched-tail's sending modes: replay (files read once, paced by --speed, as
// one run) and follow (tail -F with a checkpoint). Both turn events into
// requests with position-derived ids (a replay's qualified by its run id) and
// feed them to an EventSender; both end with a summary.
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <nlohmann/json.hpp>
#include <thread>

#include "io/traces/trace_reader.h"
#include "tools/common/progress_bar.h"
#include "tools/tail/event_sender.h"
#include "tools/tail/follow.h"
#include "tools/tail/hosts.h"
#include "tools/tail/options.h"
#include "tools/tail/requests.h"

namespace locsched {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

// What a sending run did, for the summary.
struct Tally {
  TraceCounts counts;
  uint64_t requests = 0;
  uint64_t rotations = 0;
  Clock::time_point start = Clock::now();
};

int Summarize(const TailOptions& o, const char* mode, const std::string& run, const Tally& t,
              const SendStats& s, const Status& failure) {
  const double secs = std::chrono::duration<double>(Clock::now() - t.start).count();
  const nlohmann::json j = {{"mode", mode},
                            {"run", run.empty() ? nlohmann::json() : nlohmann::json(run)},
                            {"events", t.counts.events},
                            {"jobs", t.counts.jobs},
                            {"malformed", t.counts.malformed},
                            {"requests", t.requests},
                            {"accepted", s.accepted},
                            {"duplicates", s.duplicates},
                            {"rejected", s.rejected},
                            {"reconnects", s.reconnects},
                            {"resent", s.resent},
                            {"rotations", t.rotations},
                            {"seconds", secs},
                            {"requests_per_s", secs > 0 ? static_cast<double>(s.sent) / secs : 0}};
  if (o.json)
    std::printf("%s\n", j.dump().c_str());
  else
    std::fprintf(
        stderr,
        "locsched-tail: %s: %llu events (%llu malformed records skipped), %llu requests: "
        "%llu accepted (%llu duplicates), %llu rejected, %llu reconnects, %.2f s, %.0f "
        "requests/s\n",
        mode, static_cast<unsigned long long>(t.counts.events),
        static_cast<unsigned long long>(t.counts.malformed),
        static_cast<unsigned long long>(t.requests), static_cast<unsigned long long>(s.accepted),
        static_cast<unsigned long long>(s.duplicates), static_cast<unsigned long long>(s.rejected),
        static_cast<unsigned long long>(s.reconnects), secs, j["requests_per_s"].get<double>());
  if (!failure.ok()) {
    std::fprintf(stderr, "locsched-tail: %s\n", failure.message().c_str());
    // 77: the socket refused this user, or the shared secret is missing or refused.
    return failure.code() == Status::Code::kPermissionDenied ? 77 : 1;
  }
  if (s.rejected > 0) {
    std::fprintf(stderr,
                 "locsched-tail: the daemon refused %llu requests (the first are shown "
                 "above); exiting 1\n",
                 static_cast<unsigned long long>(s.rejected));
    return 1;
  }
  return 0;
}

// The progress bar's note: answered requests per second and how they went.
std::string RateNote(const Tally& t, const SendStats& s) {
  const double secs = std::chrono::duration<double>(Clock::now() - t.start).count();
  char note[128];
  std::snprintf(note, sizeof note, "%.0f requests/s, %llu rejected",
                secs > 0 ? static_cast<double>(s.sent) / secs : 0,
                static_cast<unsigned long long>(s.rejected));
  return note;
}

// Logs the first few rejections (they are counted either way).
EventSender::OnReply RejectionLogger(uint64_t* logged) {
  return [logged](uint64_t, const std::string& reply) {
    if (reply.starts_with("{\"ok\":true") || (*logged)++ >= 5) return;
    std::fprintf(stderr, "locsched-tail: the daemon refused a request: %s\n", reply.c_str());
  };
}

// Waits until trace time `t` is due at --speed, reading replies meanwhile.
class Pacer {
 public:
  explicit Pacer(double speed) : speed_(speed) {}
  Status Wait(double t, EventSender* sender) {
    if (speed_ <= 0 || t < 0) return Status::Ok();
    if (!started_) {
      started_ = true;
      t0_ = t;
      w0_ = Clock::now();
    }
    const auto due = w0_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>((t - t0_) / speed_));
    while (Clock::now() < due && !g_tail_stop) {
      if (Status s = sender->Poll(); !s.ok()) return s;
      std::this_thread::sleep_for(std::min<Clock::duration>(due - Clock::now(), Millis(0.05)));
    }
    return Status::Ok();
  }

 private:
  double speed_;
  bool started_ = false;
  double t0_ = 0;
  Clock::time_point w0_;
};

// The requests for `e` in run `run` ("" in follow mode): its own line (a big job in
// parts), preceded by machine_up lines with --announce-machines.
void AppendRequests(const TailOptions& o, const TraceEvent& e, const std::string& id,
                    const std::string& run, MachineAnnouncer* announcer,
                    std::vector<std::string>* out) {
  for (std::string& line : RequestLines(e, id, o.synth, o.max_line_bytes, run)) {
    if (o.announce) announcer->Lines(line, out);
    out->push_back(std::move(line));
  }
}

uint64_t CountEvents(const TailOptions& o) {
  TraceCounts c;
  for (const std::string& file : o.files) {
    std::unique_ptr<TraceParser> parser = MakeTraceParser(o.format, o.synth);
    const Status s = ParseTraceFile(file, parser.get(), &c, [](ParseSink* sink) {
      sink->events.clear();
      sink->malformed.clear();
    });
    if (!s.ok()) return 0;
  }
  return c.events;
}

}  // namespace

namespace {

// The replay's bar. Its total costs a first pass over the files: only when a bar will show.
ProgressBar MakeBar(const TailOptions& o) {
  const uint64_t total = o.quiet || !::isatty(STDERR_FILENO) ? 0 : CountEvents(o);
  return ProgressBar("replay", total, total > 0);
}

// Says which run this is, before anything is sent: after a crash it is the way back.
void AnnounceRun(const TailOptions& o, const std::string& run) {
  if (o.resume.empty())
    std::fprintf(stderr,
                 "locsched-tail: replay run %s (job names end in @%s; after a crash, "
                 "--resume %s sends the rest without repeating what the daemon applied)\n",
                 run.c_str(), run.c_str(), run.c_str());
  else
    std::fprintf(stderr,
                 "locsched-tail: resuming replay run %s: what the daemon applied already is "
                 "answered as a duplicate and not applied again\n",
                 run.c_str());
}

// Never a silent no-op: a replay the daemon answered only with duplicates says so.
int AllDuplicates(const std::string& run, const SendStats& s) {
  std::fprintf(stderr,
               "locsched-tail: every one of the %llu requests was answered as a duplicate: the "
               "daemon had applied run %s in full already and applied nothing now; exiting %d "
               "(without --resume, a replay is a new run and sends the files as new jobs)\n",
               static_cast<unsigned long long>(s.accepted), run.c_str(), kExitAllDuplicates);
  return kExitAllDuplicates;
}

// Replay mode: the files once, in order, each event paced and sent, as one run.
class Replayer {
 public:
  explicit Replayer(const TailOptions& o)
      : o_(o),
        run_(o.resume.empty() ? NewRunId() : o.resume),
        sender_(o.socket, o.window, Millis(o.timeout), Millis(o.retry_for),
                RejectionLogger(&logged_)),
        bar_(MakeBar(o)),
        pacer_(o.speed),
        mapper_(o.synth.machine_prefix, o.synth.machines) {}

  int Run() {
    AnnounceRun(o_, run_);
    Status failure = sender_.Connect();
    for (size_t f = 0; f < o_.files.size() && failure.ok() && !g_tail_stop; ++f) {
      const std::string& path = o_.files[f];
      std::unique_ptr<TraceParser> parser = MakeTraceParser(o_.format, o_.synth);
      const Status s = ParseTraceFile(path, parser.get(), &t_.counts, [&](ParseSink* sink) {
        ReportMalformed(o_, path, sink->malformed, &reported_);
        for (TraceEvent& e : sink->events)
          if (failure.ok() && !g_tail_stop) failure = Send(path, &e);
        sink->events.clear();
        sink->malformed.clear();
      });
      if (failure.ok()) failure = s;
    }
    if (failure.ok()) failure = sender_.Drain();
    bar_.Finish(RateNote(t_, sender_.stats()));
    const SendStats& s = sender_.stats();
    const int code = Summarize(o_, "replay", run_, t_, s, failure);
    if (code == 0 && !g_tail_stop && s.accepted > 0 && s.duplicates == s.accepted)
      return AllDuplicates(run_, s);
    return code;
  }

 private:
  // Sends the requests of one event read from `path` (the path as given: two logs never share
  // ids; the run id in front: two runs never share them), its replica hosts renamed first
  // with --map-hosts.
  Status Send(const std::string& path, TraceEvent* e) {
    if (o_.map_hosts)
      if (Status s = mapper_.Map(e); !s.ok()) return s;
    std::vector<std::string> lines;
    AppendRequests(o_, *e, run_ + ":" + EventId(path, 0, *e), run_, &announcer_, &lines);
    // Only sent events are paced: unsent attempt events may be out of time order.
    Status s = lines.empty() ? Status::Ok() : pacer_.Wait(e->time, &sender_);
    for (std::string& line : lines) {
      if (s.ok()) s = sender_.Submit(std::move(line), seq_++);
      ++t_.requests;
    }
    if (++handled_ % 256 == 0) bar_.Update(handled_, RateNote(t_, sender_.stats()));
    return s;
  }

  const TailOptions& o_;
  const std::string run_;
  uint64_t logged_ = 0, reported_ = 0, seq_ = 0, handled_ = 0;
  EventSender sender_;
  ProgressBar bar_;
  Pacer pacer_;
  MachineAnnouncer announcer_;
  HostMapper mapper_;
  Tally t_;
};

}  // namespace

int RunReplay(const TailOptions& o) {
  Replayer r(o);
  return r.Run();
}

namespace {

// A checkpoint cursor that becomes safe once `need` requests are answered.
struct Mark {
  uint64_t need;
  size_t file;
  FileCursor cursor;
};

// Follow mode's state: the files, the sender, and the marks between them.
class Follower {
 public:
  explicit Follower(const TailOptions& o)
      : o_(o),
        sender_(o.socket, o.window, Millis(o.timeout), Millis(o.retry_for),
                [this](uint64_t token, const std::string& reply) { OnReply(token, reply); }) {}

  Status Init() {
    if (!o_.checkpoint.empty())
      if (Status s = LoadCheckpoint(o_.checkpoint, &cp_); !s.ok()) return s;
    for (const std::string& path : o_.files) {
      const auto it = cp_.find(path);
      files_.push_back(std::make_unique<FollowedFile>(
          path, o_.format, o_.synth, it == cp_.end() ? FileCursor{} : it->second, it != cp_.end()));
    }
    return sender_.Connect();
  }

  // Shape: poll every file once, send what it produced, then read replies and save.
  Status Run() {
    auto idle_since = Clock::now(), last_save = Clock::now();
    while (!g_tail_stop) {
      bool any = false;
      for (size_t i = 0; i < files_.size(); ++i)
        if (Status s = PollFile(i, &any); !s.ok()) return s;
      if (Status s = sender_.Poll(); !s.ok()) return s;
      if (dirty_ && Clock::now() - last_save > Millis(0.2)) {
        if (Status s = Save(); !s.ok()) return s;
        last_save = Clock::now();
      }
      if (any) {
        idle_since = Clock::now();
        continue;
      }
      if (o_.idle_exit > 0 && Clock::now() - idle_since > Millis(o_.idle_exit)) break;
      std::this_thread::sleep_for(Millis(o_.poll));
    }
    return Status::Ok();
  }

  Status Finish() {
    Status s = sender_.Drain();
    const Status saved = Save();
    for (const auto& f : files_) tally_.rotations += f->rotations();
    return s.ok() ? saved : s;
  }

  const Tally& tally() const { return tally_; }
  const SendStats& stats() const { return sender_.stats(); }

 private:
  Status PollFile(size_t i, bool* any) {
    FollowedFile& f = *files_[i];
    ParseSink sink;
    bool progressed = false;
    if (Status s = f.Poll(&sink, &progressed); !s.ok()) return s;
    *any |= progressed;
    tally_.counts.malformed += sink.malformed.size();
    ReportMalformed(o_, f.path(), sink.malformed, &reported_);
    const std::string& source = f.path();
    for (const TraceEvent& e : sink.events) {
      tally_.counts.Add(e);
      std::vector<std::string> lines;
      AppendRequests(o_, e, EventId(source, f.generation(), e), "", &announcer_, &lines);
      for (std::string& line : lines) {
        ++tally_.requests;
        if (Status s = sender_.Submit(std::move(line), submitted_++); !s.ok()) return s;
      }
    }
    if (progressed) marks_.push_back({submitted_, i, f.Cursor()});
    ApplyMarks();
    return Status::Ok();
  }

  void OnReply(uint64_t, const std::string& reply) {
    ++answered_;
    if (!reply.starts_with("{\"ok\":true") && logged_++ < 5)
      std::fprintf(stderr, "locsched-tail: the daemon refused a request: %s\n", reply.c_str());
    ApplyMarks();
  }

  void ApplyMarks() {
    while (!marks_.empty() && marks_.front().need <= answered_) {
      cp_[files_[marks_.front().file]->path()] = marks_.front().cursor;
      marks_.pop_front();
      dirty_ = true;
    }
  }

  Status Save() {
    if (!dirty_ || o_.checkpoint.empty()) return Status::Ok();
    dirty_ = false;
    return SaveCheckpoint(o_.checkpoint, cp_);
  }

  const TailOptions& o_;
  EventSender sender_;
  Checkpoint cp_;
  std::vector<std::unique_ptr<FollowedFile>> files_;
  std::deque<Mark> marks_;
  MachineAnnouncer announcer_;
  uint64_t submitted_ = 0, answered_ = 0, reported_ = 0, logged_ = 0;
  bool dirty_ = false;
  Tally tally_;
};

}  // namespace

int RunFollow(const TailOptions& o) {
  Follower f(o);
  Status failure = f.Init();
  if (failure.ok()) failure = f.Run();
  const Status finished = f.Finish();
  if (failure.ok()) failure = finished;
  return Summarize(o, "follow", "", f.tally(), f.stats(), failure);
}

}  // namespace locsched
