#include "tools/sim/trace_jobs.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "io/traces/trace_reader.h"
#include "tools/tail/hosts.h"
#include "tools/tail/requests.h"

namespace locsched {
namespace {

bool MapsHosts(TraceFormat f) {
  return f == TraceFormat::kJobHistory || f == TraceFormat::kRumen;
}

// Machine ids for replica names: "m<i>" is machine i; the locsched format's own names
// take ids in first-seen order (as --map-hosts would).
class MachineIds {
 public:
  explicit MachineIds(bool by_name) : by_name_(by_name) {}
  bool Find(const std::string& name, MachineId* id) {
    if (by_name_) {
      const auto it = ids_.emplace(name, static_cast<MachineId>(ids_.size())).first;
      *id = it->second;
      return true;
    }
    if (name.size() < 2 || name[0] != 'm' || name.size() > 10) return false;
    uint64_t n = 0;
    for (const char c : name.substr(1)) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    *id = static_cast<MachineId>(n);
    return true;
  }

 private:
  bool by_name_;
  std::unordered_map<std::string, MachineId> ids_;
};

// The tailer's --speed pacing in trace seconds: the first timed job at 0; an untimed one,
// or one older than the last, goes at once.
struct Pacing {
  bool started = false;
  double t0 = 0, last = 0;
  double At(double t) {
    if (t >= 0 && !started) started = true, t0 = t;
    if (t >= 0) last = std::max(last, t - t0);
    return last;
  }
};

// Distinct replica hosts the log names (jobhistory and rumen, before placement).
Status CountHosts(const TraceJobsOptions& o, uint32_t* hosts) {
  SynthesisOptions synth;
  HostMapper mapper("m", std::numeric_limits<uint32_t>::max());
  std::unique_ptr<TraceParser> parser = MakeTraceParser(o.format, synth);
  TraceCounts counts;
  const Status s = ParseTraceFile(o.path, parser.get(), &counts, [&](ParseSink* sink) {
    for (TraceEvent& e : sink->events) (void)mapper.Map(&e);
    sink->events.clear();
    sink->malformed.clear();
  });
  *hosts = static_cast<uint32_t>(std::max<size_t>(1, mapper.hosts()));
  return s;
}

// Appends the job of one job_submit line at trace-relative time `at`.
Status AddJob(const nlohmann::json& req, double at, MachineIds* ids, TraceWorkload* w) {
  const auto tasks = req.find("tasks");
  if (tasks == req.end() || !tasks->is_array() || tasks->empty()) return Status::Ok();
  w->AddJob(at);
  std::vector<MachineId> replicas;
  for (const nlohmann::json& t : *tasks) {
    replicas.clear();
    if (t.contains("replicas") && t["replicas"].is_array()) {
      for (const nlohmann::json& host : t["replicas"]) {
        MachineId m = 0;
        const std::string name = host.is_string() ? host.get<std::string>() : host.dump();
        if (!ids->Find(name, &m))
          return Status::InvalidArgument("--trace", "replica '" + name + "' of job " +
                                                        req.value("job", std::string()) +
                                                        " is not a machine name m0, m1, ...");
        if (std::find(replicas.begin(), replicas.end(), m) == replicas.end()) replicas.push_back(m);
      }
    }
    const bool reduce = t.value("kind", std::string("map")) == "reduce";
    w->AddTask(reduce ? TaskKind::kReduce : TaskKind::kMap, replicas);
  }
  return Status::Ok();
}

}  // namespace

Status LoadTraceJobs(const TraceJobsOptions& o, TraceJobs* out) {
  if (o.hour >= 0 && o.format != TraceFormat::kSwim)
    return Status::InvalidArgument("--hour", "only a swim trace is cut into hours");
  out->machines = o.machines;
  if (out->machines == 0 && MapsHosts(o.format)) {
    if (Status s = CountHosts(o, &out->machines); !s.ok()) return s;
  } else if (out->machines == 0) {
    out->machines = DefaultClusterSize(o.format, o.path);  // as locsched-tail's --machines
  }
  SynthesisOptions synth;
  synth.machines = out->machines;
  synth.seed = o.seed;
  synth.racks = o.racks <= synth.machines ? o.racks : 0;  // more racks than machines: refused later
  synth.tenants = o.tenants;
  std::unique_ptr<TraceParser> parser = MakeTraceParser(o.format, synth);
  HostMapper mapper(synth.machine_prefix, out->machines);
  MachineIds ids(o.format == TraceFormat::kLocsched);
  Pacing pacing;
  TraceCounts counts;
  Status failure = Status::Ok();
  const Status s = ParseTraceFile(o.path, parser.get(), &counts, [&](ParseSink* sink) {
    for (TraceEvent& e : sink->events) {
      if (!failure.ok()) break;
      if (o.hour >= 0 && (e.time < o.hour * 3600.0 || e.time >= (o.hour + 1) * 3600.0)) continue;
      if (MapsHosts(o.format)) failure = mapper.Map(&e);
      const std::string line = failure.ok() ? RequestLine(e, "", synth) : "";
      if (line.empty()) continue;
      const nlohmann::json req = nlohmann::json::parse(line, nullptr, false);
      if (!req.is_object() || req.value("op", std::string()) != "job_submit") continue;
      const size_t before = out->workload.jobs.size();
      failure = AddJob(req, pacing.At(e.time), &ids, &out->workload);
      if (out->workload.jobs.size() == before) continue;
      out->queues.push_back(e.queue);
      out->users.push_back(e.user);
    }
    sink->events.clear();
    out->malformed += sink->malformed.size();
    sink->malformed.clear();
  });
  return s.ok() ? failure : s;
}

}  // namespace locsched
