#include "tools/sim/trace_list_mode.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "algorithms/lp/online_synchpack.h"
#include "algorithms/lp/packing_baselines.h"

namespace locsched {
namespace {

// 10 x the mean gap between submissions (the SynchPack paper's first interval is a
// multiple of the mean inter-arrival time); the local mean if the trace has one job.
double DefaultFirstInterval(const TraceWorkload& w, const TraceClusterModel& c) {
  if (w.jobs.size() < 2) return c.local_mean_s;
  const double span = w.jobs.back().submit_s - w.jobs.front().submit_s;
  const double gap = span / static_cast<double>(w.jobs.size() - 1);
  return gap > 0 ? 10 * gap : c.local_mean_s;
}

}  // namespace

bool IsListPolicy(std::string_view name) {
  return name == "synchpack" || name == "tetris" || name == "jsq-mw";
}

TraceSimResult RunListPolicy(std::string_view name, const TraceWorkload& w,
                             const TraceClusterModel& cluster, uint64_t seed,
                             const std::vector<double>& weights, const ListPolicySettings& s,
                             ListRunStats* stats) {
  if (!(s.resolve_first >= 0 && s.resolve_first <= 1e6))
    throw std::invalid_argument("--resolve-first: must be in [0, 1e6] seconds");
  if (!(s.resolve_growth >= 1 && s.resolve_growth <= 10))
    throw std::invalid_argument("--resolve-growth: must be in [1, 10]");
  const LpInstance model = TraceListModel(w, cluster, weights);
  std::unique_ptr<ListPolicy> policy;
  OnlineSynchPack* synchpack = nullptr;
  *stats = ListRunStats{};
  if (name == "synchpack") {
    OnlineSynchPackOptions o;
    o.first_interval = s.resolve_first > 0 ? s.resolve_first : DefaultFirstInterval(w, cluster);
    o.growth = s.resolve_growth;
    stats->first_interval_s = o.first_interval;
    auto online = std::make_unique<OnlineSynchPack>(model, o);
    synchpack = online.get();
    policy = std::move(online);
  } else if (name == "tetris") {
    policy = MakeTetrisPolicy(model);
  } else {
    policy = MakeJsqMaxWeightPolicy(model);
  }
  TraceSimResult r;
  if (Status st = SimulateTraceList(w, cluster, seed, *policy, &r); !st.ok())
    throw std::runtime_error(st.message());
  if (synchpack) {
    stats->lp_solves = synchpack->solves();
    stats->lp_failures = synchpack->failures();
  }
  return r;
}

}  // namespace locsched
