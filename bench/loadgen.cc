// locsched-loadgen: drives locschedd (or locsched-echo with --echo) over one
// pipelined connection and measures sustained replies per second, heartbeat
// latency percentiles and, with --pid, the daemon's memory per queued task.
// A writer thread sends, a reader thread matches replies to requests in order.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/rng.h"
#include "io/wire/client.h"

namespace locsched {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string socket;
  uint32_t machines = 1000;
  uint64_t queued = 100000;
  uint32_t job_size = 100;
  uint32_t replicas = 3;
  double seconds = 10;
  double warmup = 1;
  size_t window = 128;
  bool echo = false;
  int pid = 0;
  uint64_t seed = 1;
  double timeout = 30;
};

enum class Kind : uint8_t { kHeartbeat, kTaskDone, kJobSubmit, kSentinel };

// What the writer sent as request number `seq`, for the reader to match its reply.
struct Sent {
  Kind kind;
  uint32_t machine;
  Clock::time_point at;
};

// Builds the request lines. Writer thread only (setup runs before the threads).
class Workload {
 public:
  explicit Workload(const Options& o) : o_(o), rng_(o.seed) {}
  /// The name of machine m.
  static std::string Machine(uint32_t m) { return "m" + std::to_string(m); }
  /// Registers machine m with one slot.
  std::string MachineUp(uint32_t m) const {
    return R"({"op":"machine_up","machine":")" + Machine(m) + R"(","slots":1})";
  }
  /// Machine m has one free slot.
  std::string Heartbeat(uint32_t m) const {
    return R"({"op":"heartbeat","machine":")" + Machine(m) + R"(","free_slots":1})";
  }
  /// A new job of o.job_size map tasks, each with o.replicas distinct random replicas.
  std::string JobSubmit() {
    std::string line =
        R"({"op":"job_submit","job":"lg)" + std::to_string(++jobs_) + R"(","tasks":[)";
    for (uint32_t t = 0; t < o_.job_size; ++t) {
      line.append(t ? R"(,{"task":"t)" : R"({"task":"t)").append(std::to_string(t));
      line.append(R"(","replicas":[)");
      uint32_t picked[8];
      for (uint32_t r = 0; r < o_.replicas; ++r) {
        picked[r] = PickNew(picked, r);
        line.append(r ? ",\"" : "\"").append(Machine(picked[r])).append("\"");
      }
      line.append("]}");
    }
    return line.append("]}");
  }

 private:
  // A random machine that is not among the first n of `picked`.
  uint32_t PickNew(const uint32_t* picked, uint32_t n) {
    for (;;) {
      const uint32_t m = rng_.Below(o_.machines);
      if (std::find(picked, picked + n, m) == picked + n) return m;
    }
  }

  const Options& o_;
  Rng rng_;
  uint64_t jobs_ = 0;
};

// The text of string field `key` in a compact JSON object `obj`, or "".
std::string_view StringField(std::string_view obj, std::string_view key) {
  const size_t k = obj.find(key);
  if (k == std::string_view::npos) return {};
  const size_t start = obj.find('"', k + key.size());
  const size_t end = start == std::string_view::npos ? start : obj.find('"', start + 1);
  if (end == std::string_view::npos) return {};
  return obj.substr(start + 1, end - start - 1);
}

// Calls f(job, task, local) for every entry of a heartbeat reply's "assign"
// array; false if there is no such array. Names hold no braces or quotes.
template <typename F>
bool ForEachAssignment(std::string_view reply, F&& f) {
  size_t pos = reply.find("\"assign\":");
  if (pos == std::string_view::npos) return false;
  const size_t close = reply.find(']', pos);
  for (pos = reply.find('{', pos); pos < close; pos = reply.find('{', pos)) {
    const size_t end = reply.find('}', pos);
    if (end == std::string_view::npos) return false;
    const std::string_view obj = reply.substr(pos, end - pos + 1);
    f(StringField(obj, "\"job\":"), StringField(obj, "\"task\":"),
      obj.find("\"local\":true") != std::string_view::npos);
    pos = end;
  }
  return true;
}

bool IsOk(std::string_view reply) {
  return reply.find("\"ok\":true") != std::string_view::npos;
}

// VmRSS of process `pid` in KiB (0 if unreadable).
uint64_t RssKib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

// CPU seconds (user + system) used so far by process `pid` ("self": this one).
double CpuSeconds(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');  // the command name may hold spaces
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(name_end + 1));
  std::string skip;
  for (int i = 3; i <= 13; ++i) fields >> skip;  // state .. cmajflt
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Cores used on average over the measured window by the daemon (--pid) and by loadgen.
struct CpuShare {
  double daemon = 0;
  double loadgen = 0;
};

// A thread that samples both processes' CPU time at `from` and at `to`.
std::thread SampleCpu(int pid, Clock::time_point from, Clock::time_point to, CpuShare* out) {
  return std::thread([=] {
    const std::string daemon = std::to_string(pid);
    std::this_thread::sleep_until(from);
    const double d0 = pid > 0 ? CpuSeconds(daemon) : 0, l0 = CpuSeconds("self");
    std::this_thread::sleep_until(to);
    const double span = std::chrono::duration<double>(to - from).count();
    out->daemon = pid > 0 ? (CpuSeconds(daemon) - d0) / span : 0;
    out->loadgen = (CpuSeconds("self") - l0) / span;
  });
}

void Check(const Status& s) {
  if (!s.ok()) throw std::runtime_error(s.message());
}

// Sends `lines` pipelined and, unless echoing, requires every reply to be ok.
void CallAll(LineClient& c, const Options& o, const std::vector<std::string>& lines) {
  std::vector<std::string> replies;
  Check(c.CallBatch(lines, &replies, 64));
  for (size_t i = 0; i < lines.size() && !o.echo; ++i)
    if (!IsOk(replies[i]))
      throw std::runtime_error("setup: request " + lines[i].substr(0, 200) + " got " + replies[i]);
}

struct SetupResult {
  double seconds = 0;
  uint64_t rss_before_kib = 0, rss_after_kib = 0;
  uint64_t tasks_submitted = 0;
  nlohmann::json status;  // the daemon's status after the fill (null with --echo)
};

// Registers the machines, then submits jobs until --queued tasks wait.
SetupResult Setup(LineClient& c, const Options& o, Workload& w) {
  SetupResult r;
  const auto start = Clock::now();
  std::vector<std::string> lines;
  for (uint32_t m = 0; m < o.machines; ++m) lines.push_back(w.MachineUp(m));
  CallAll(c, o, lines);
  if (o.pid > 0) r.rss_before_kib = RssKib(o.pid);
  while (r.tasks_submitted < o.queued) {
    lines.clear();
    for (int j = 0; j < 256 && r.tasks_submitted < o.queued; ++j, r.tasks_submitted += o.job_size)
      lines.push_back(w.JobSubmit());
    CallAll(c, o, lines);
  }
  if (o.pid > 0) r.rss_after_kib = RssKib(o.pid);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (o.echo) return r;
  std::string reply;
  Check(c.Call(R"({"op":"status"})", &reply));
  r.status = nlohmann::json::parse(reply, nullptr, false);
  return r;
}

// State the writer and reader share. The ring holds what each in-flight request was.
struct Shared {
  explicit Shared(size_t window) : ring(std::bit_ceil(4 * window + 1024)), mask(ring.size() - 1) {}
  std::vector<Sent> ring;
  uint64_t mask;
  std::atomic<uint64_t> sent{0}, received{0}, assigned{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> writer_waiting{false};
  std::string done_lines;               // guarded by mu: task_done lines for the writer to send
  uint32_t done_count = 0;              // guarded by mu: lines in done_lines
  std::vector<uint32_t> idle;           // guarded by mu: machines whose heartbeat came back
  std::vector<uint32_t> done_machines;  // guarded by mu: machine of each done line
  std::string error;                    // guarded by mu: why the reader stopped
};

// What the reader measured.
struct ReaderResult {
  uint64_t counted = 0;  // replies received inside the measurement window
  uint64_t heartbeats = 0, task_dones = 0, job_submits = 0, assignments = 0, local = 0;
  uint64_t errors = 0;
  std::string first_error;
  std::vector<uint32_t> latency_ns;  // heartbeats sent inside the window
  std::string final_reply;           // the sentinel's reply (the daemon's status)
};

class Reader {
 public:
  Reader(LineClient& c, const Options& o, Shared& s, Clock::time_point from, Clock::time_point to)
      : c_(c), o_(o), s_(s), from_(from), to_(to) {}
  ReaderResult Run();

 private:
  void Handle(const Sent& sent, const std::string& reply, Clock::time_point now);
  void OnHeartbeat(const Sent& sent, const std::string& reply);
  void Publish();

  LineClient& c_;
  const Options& o_;
  Shared& s_;
  Clock::time_point from_, to_;
  ReaderResult r_;
  std::string lines_;  // task_done lines not yet handed to the writer
  uint32_t count_ = 0;
  std::vector<uint32_t> idle_, done_machines_;
};

ReaderResult Reader::Run() {
  std::string reply;
  for (uint64_t seq = 0;; ++seq) {
    if (Status st = c_.ReadLine(&reply); !st.ok()) {
      std::lock_guard lock(s_.mu);
      s_.error = st.message();
      s_.failed = true;
      s_.cv.notify_one();
      break;
    }
    while (s_.sent.load(std::memory_order_acquire) <= seq) {
    }  // a reply cannot beat its request; this only orders the ring read after its write
    const Sent sent = s_.ring[seq & s_.mask];
    s_.received.store(seq + 1);
    if (sent.kind == Kind::kSentinel) {
      r_.final_reply = reply;
      break;
    }
    Handle(sent, reply, Clock::now());
    if (!c_.LineBuffered()) Publish();
  }
  return std::move(r_);
}

void Reader::Handle(const Sent& sent, const std::string& reply, Clock::time_point now) {
  if (now >= from_ && now < to_) ++r_.counted;
  if (!o_.echo && !IsOk(reply) && r_.errors++ == 0) r_.first_error = reply;
  switch (sent.kind) {
    case Kind::kHeartbeat:
      ++r_.heartbeats;
      if (sent.at >= from_ && sent.at < to_)
        r_.latency_ns.push_back(static_cast<uint32_t>(
            std::min<int64_t>(std::chrono::nanoseconds(now - sent.at).count(), UINT32_MAX)));
      OnHeartbeat(sent, reply);
      break;
    case Kind::kTaskDone:
      ++r_.task_dones;
      break;
    case Kind::kJobSubmit:
      ++r_.job_submits;
      break;
    case Kind::kSentinel:
      break;
  }
}

// Turns each assignment into a task_done for the writer; the echo server's
// reply stands for one assignment, so both modes send the same stream.
void Reader::OnHeartbeat(const Sent& sent, const std::string& reply) {
  const std::string machine = Workload::Machine(sent.machine);
  auto done = [&](std::string_view job, std::string_view task, bool local) {
    lines_.append(R"({"op":"task_done","job":")").append(job).append(R"(","task":")");
    lines_.append(task).append(R"(","machine":")").append(machine).append("\"}\n");
    ++count_;
    done_machines_.push_back(sent.machine);
    ++r_.assignments;
    r_.local += local;
  };
  size_t before = count_;
  if (o_.echo)
    done("lg1", "t0", false);
  else
    ForEachAssignment(reply, done);
  s_.assigned.fetch_add(count_ - before);
  if (count_ == before) idle_.push_back(sent.machine);
}

// Hands the task_done lines and idle machines to the writer, waking it if it waits.
void Reader::Publish() {
  if (count_ == 0 && idle_.empty() && !s_.writer_waiting) return;
  std::lock_guard lock(s_.mu);
  s_.done_lines.append(lines_);
  s_.done_count += count_;
  s_.done_machines.insert(s_.done_machines.end(), done_machines_.begin(), done_machines_.end());
  s_.idle.insert(s_.idle.end(), idle_.begin(), idle_.end());
  lines_.clear();
  count_ = 0;
  idle_.clear();
  done_machines_.clear();
  if (s_.writer_waiting) s_.cv.notify_one();
}

class Writer {
 public:
  Writer(LineClient& c, const Options& o, Shared& s, Workload& w, uint64_t queued)
      : c_(c), o_(o), s_(s), w_(w), submitted_(queued) {
    for (uint32_t m = 0; m < o.machines; ++m) idle_.push_back(m);
  }
  /// Sends until `until`, then the sentinel; false if the reader failed.
  bool Run(Clock::time_point until);

 private:
  bool Take();
  void Add(Kind kind, uint32_t machine, std::string_view line);
  void Fill();
  bool Flush();

  LineClient& c_;
  const Options& o_;
  Shared& s_;
  Workload& w_;
  uint64_t submitted_;  // tasks submitted, the setup's included
  // Machines to heartbeat, oldest first: every machine takes its turn, as in a
  // cluster where each heartbeats periodically (a stack would cycle a few only).
  std::deque<uint32_t> idle_;
  std::string batch_;
  std::vector<Sent> pending_;
};

bool Writer::Run(Clock::time_point until) {
  while (Clock::now() < until) {
    if (!Take()) return false;
    Fill();
    if (!Flush()) return false;
  }
  Add(Kind::kSentinel, 0, o_.echo ? R"({"op":"sentinel"})" : R"({"op":"status"})");
  return Flush();
}

// Collects what the reader handed over; waits (at most 20 ms) while nothing can be sent.
bool Writer::Take() {
  std::unique_lock lock(s_.mu);
  auto can_send = [&] {
    const uint64_t in_flight = s_.sent.load() - s_.received.load();
    return s_.failed || s_.done_count > 0 ||
           (in_flight < o_.window && (!idle_.empty() || !s_.idle.empty()));
  };
  s_.writer_waiting = true;
  s_.cv.wait_for(lock, std::chrono::milliseconds(20), can_send);
  s_.writer_waiting = false;
  if (s_.failed) return false;
  batch_.append(s_.done_lines);
  for (uint32_t m : s_.done_machines) pending_.push_back({Kind::kTaskDone, m, {}});
  idle_.insert(idle_.end(), s_.done_machines.begin(), s_.done_machines.end());
  idle_.insert(idle_.end(), s_.idle.begin(), s_.idle.end());
  s_.done_lines.clear();
  s_.done_count = 0;
  s_.done_machines.clear();
  s_.idle.clear();
  return true;
}

void Writer::Add(Kind kind, uint32_t machine, std::string_view line) {
  batch_.append(line).push_back('\n');
  pending_.push_back({kind, machine, {}});
}

// Adds heartbeats from idle machines up to the window, and jobs to keep the queue full.
void Writer::Fill() {
  const uint64_t in_flight = s_.sent.load() - s_.received.load() + pending_.size();
  uint64_t room = in_flight < o_.window ? o_.window - in_flight : 0;
  const uint64_t queued = submitted_ - s_.assigned.load();
  if (room > 0 && queued + o_.job_size <= o_.queued) {
    Add(Kind::kJobSubmit, 0, w_.JobSubmit());
    submitted_ += o_.job_size;
    --room;
  }
  for (; room > 0 && !idle_.empty(); --room) {
    Add(Kind::kHeartbeat, idle_.front(), w_.Heartbeat(idle_.front()));
    idle_.pop_front();
  }
}

// Stamps the batch, records it in the ring and writes it in one call.
bool Writer::Flush() {
  if (pending_.empty()) return true;
  uint64_t seq = s_.sent.load();
  if (seq + pending_.size() - s_.received.load() > s_.ring.size()) {
    std::lock_guard lock(s_.mu);
    s_.error = "too many requests in flight: heartbeats got several assignments each";
    return false;
  }
  const Clock::time_point now = Clock::now();
  for (Sent& p : pending_) {
    p.at = now;
    s_.ring[seq++ & s_.mask] = p;
  }
  s_.sent.store(seq, std::memory_order_release);
  const Status st = c_.SendRaw(batch_);
  batch_.clear();
  pending_.clear();
  if (st.ok()) return true;
  std::lock_guard lock(s_.mu);
  s_.error = st.message();
  return false;
}

uint32_t Percentile(std::vector<uint32_t>& v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * v.size()));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

nlohmann::json LatencyJson(std::vector<uint32_t>& ns) {
  double sum = 0;
  for (uint32_t x : ns) sum += x;
  const auto us = [](uint32_t x) { return x / 1000.0; };
  return {{"samples", ns.size()},
          {"mean", ns.empty() ? 0 : sum / ns.size() / 1000.0},
          {"p50", us(Percentile(ns, 0.50))},
          {"p99", us(Percentile(ns, 0.99))},
          {"p999", us(Percentile(ns, 0.999))},
          {"max", us(ns.empty() ? 0 : *std::max_element(ns.begin(), ns.end()))}};
}

nlohmann::json SetupJson(const Options& o, const SetupResult& s) {
  nlohmann::json j = {{"seconds", s.seconds}, {"tasks_submitted", s.tasks_submitted}};
  if (o.pid > 0) {
    j["rss_before_kib"] = s.rss_before_kib;
    j["rss_after_kib"] = s.rss_after_kib;
    j["bytes_per_queued_task"] =
        (static_cast<double>(s.rss_after_kib) - static_cast<double>(s.rss_before_kib)) * 1024.0 /
        static_cast<double>(std::max<uint64_t>(s.tasks_submitted, 1));
  }
  if (!s.status.is_null()) j["status"] = s.status;
  return j;
}

nlohmann::json ResultJson(const Options& o, const SetupResult& setup, ReaderResult& r,
                          double measured) {
  return {{"mode", o.echo ? "echo" : "daemon"},
          {"machines", o.machines},
          {"queued_target", o.queued},
          {"job_size", o.job_size},
          {"window", o.window},
          {"seconds", measured},
          {"replies", r.counted},
          {"replies_per_second", r.counted / measured},
          {"heartbeats", r.heartbeats},
          {"task_dones", r.task_dones},
          {"job_submits", r.job_submits},
          {"assignments", r.assignments},
          {"local_fraction", r.assignments ? double(r.local) / r.assignments : 0.0},
          {"errors", r.errors},
          {"first_error", r.first_error},
          {"heartbeat_latency_us", LatencyJson(r.latency_ns)},
          {"setup", SetupJson(o, setup)},
          {"final_status",
           o.echo ? nlohmann::json() : nlohmann::json::parse(r.final_reply, nullptr, false)}};
}

int Run(const Options& o) {
  LineClient client;
  Check(client.Connect(o.socket));
  client.set_timeout(std::chrono::milliseconds(static_cast<int64_t>(o.timeout * 1000)));
  Workload work(o);
  const SetupResult setup = Setup(client, o, work);
  Shared shared(o.window);
  const auto start = Clock::now();
  const auto from =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup));
  const auto to =
      from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  CpuShare cpu;
  std::thread sampler = SampleCpu(o.pid, from, to, &cpu);
  Reader reader(client, o, shared, from, to);
  ReaderResult result;
  std::thread reading([&] { result = reader.Run(); });
  Writer writer(client, o, shared, work, setup.tasks_submitted);
  const bool ok = writer.Run(to);
  if (!ok) ::shutdown(client.fd(), SHUT_RDWR);  // wakes the reader
  reading.join();
  sampler.join();
  if (!ok || shared.failed) throw std::runtime_error("connection failed: " + shared.error);
  nlohmann::json out = ResultJson(o, setup, result, o.seconds);
  out["cpu_cores"] = {{"loadgen", cpu.loadgen}};
  if (o.pid > 0) out["cpu_cores"]["daemon"] = cpu.daemon;
  std::printf("%s\n", out.dump().c_str());
  if (result.errors == 0) return 0;
  std::fprintf(stderr, "locsched-loadgen: %llu error replies, the first: %s\n",
               static_cast<unsigned long long>(result.errors), result.first_error.c_str());
  return 1;
}

void AddFlags(CLI::App& app, Options& o) {
  app.add_option("--socket", o.socket, "Event socket of locschedd (or locsched-echo)")->required();
  app.add_option("--machines", o.machines,
                 "Machines registered (1 slot each); heartbeats cycle over them")
      ->capture_default_str();
  app.add_option("--queued", o.queued, "Tasks queued before measuring, and kept queued meanwhile")
      ->capture_default_str();
  app.add_option("--job-size", o.job_size, "Tasks per submitted job")->capture_default_str();
  app.add_option("--replicas", o.replicas, "Replicas per task, on distinct random machines (<= 8)")
      ->capture_default_str();
  app.add_option("--seconds", o.seconds, "Length of the measured window")->capture_default_str();
  app.add_option("--warmup", o.warmup, "Seconds of load before the window opens")
      ->capture_default_str();
  app.add_option("--window", o.window, "Most requests in flight at once")->capture_default_str();
  app.add_flag("--echo", o.echo,
               "The server is locsched-echo: replies are opaque, each heartbeat "
               "counts as one assignment");
  app.add_option("--pid", o.pid, "Read this process's VmRSS before and after queueing the tasks");
  app.add_option("--seed", o.seed, "Random seed of the replicas")->capture_default_str();
  app.add_option("--timeout", o.timeout, "Seconds to wait for a reply before giving up")
      ->capture_default_str();
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  using namespace locsched;
  CLI::App app{
      "locsched-loadgen: sustained pipelined load on locschedd's event socket. Registers\n"
      "--machines, queues --queued tasks, then for --seconds sends heartbeats (free_slots 1),\n"
      "a task_done for every assignment and job_submits that keep the queue full, with at most\n"
      "--window requests in flight. Prints one JSON object: replies/s, heartbeat latency\n"
      "percentiles (us), and with --pid the daemon's bytes per queued task."};
  Options o;
  AddFlags(app, o);
  CLI11_PARSE(app, argc, argv);
  try {
    if (o.machines < o.replicas || o.replicas < 1 || o.replicas > 8)
      throw std::invalid_argument("--replicas: must be 1..8 and at most --machines");
    if (o.window < 1 || o.job_size < 1 || !(o.seconds > 0) || !(o.warmup >= 0))
      throw std::invalid_argument("--window, --job-size and --seconds must be positive");
    return Run(o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "locsched-loadgen: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locsched-loadgen: %s\n", e.what());
    return 1;
  }
}
