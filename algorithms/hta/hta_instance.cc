#include "algorithms/hta/hta_instance.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

namespace locsched {
namespace {

std::string Path(size_t t) {
  return "tasks[" + std::to_string(t) + "]";
}

Status ValidateCosts(const HtaCosts& costs) {
  if (!std::isfinite(costs.w_loc) || costs.w_loc <= 0)
    return Status::InvalidArgument("w_loc", "must be a finite number > 0");
  if (costs.w_rem.empty()) return Status::InvalidArgument("w_rem", "the table is empty");
  for (size_t r = 0; r < costs.w_rem.size(); ++r) {
    const std::string subject = "w_rem[" + std::to_string(r) + "]";
    const double w = costs.w_rem[r];
    if (!std::isfinite(w)) return Status::InvalidArgument(subject, "must be a finite number");
    if (w < costs.w_loc)
      return Status::InvalidArgument(subject, "a remote task may not cost less than w_loc");
    if (r > 0 && w < costs.w_rem[r - 1])
      return Status::InvalidArgument(subject, "w_rem(r) must be nondecreasing in r");
  }
  return Status::Ok();
}

Status ValidateReplicas(const HtaInstance& instance, size_t t) {
  const std::vector<int>& replicas = instance.tasks[t];
  if (replicas.empty())
    return Status::InvalidArgument(Path(t), "no server holds its data (the model needs one)");
  for (size_t i = 0; i < replicas.size(); ++i) {
    const std::string subject = Path(t) + "[" + std::to_string(i) + "]";
    const int s = replicas[i];
    if (s < 0 || s >= instance.servers)
      return Status::InvalidArgument(subject, "server " + std::to_string(s) + " out of range [0, " +
                                                  std::to_string(instance.servers) + ")");
    const auto end = replicas.begin() + static_cast<std::ptrdiff_t>(i);
    if (std::find(replicas.begin(), end, s) != end)
      return Status::InvalidArgument(subject, "server " + std::to_string(s) + " listed twice");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateHtaInstance(const HtaInstance& instance) {
  if (instance.servers < 1) return Status::InvalidArgument("servers", "must be >= 1");
  if (Status s = ValidateCosts(instance.costs); !s.ok()) return s;
  for (size_t t = 0; t < instance.tasks.size(); ++t)
    if (Status s = ValidateReplicas(instance, t); !s.ok()) return s;
  return Status::Ok();
}

bool IsLocal(const HtaInstance& instance, size_t t, int server) {
  const std::vector<int>& replicas = instance.tasks[t];
  return std::find(replicas.begin(), replicas.end(), server) != replicas.end();
}

HtaLoads EvaluateAssignment(const HtaInstance& instance, const std::vector<int>& assignment) {
  assert(assignment.size() == instance.tasks.size());
  const size_t n = static_cast<size_t>(instance.servers);
  std::vector<int> local(n, 0), remote(n, 0);
  HtaLoads out;
  for (size_t t = 0; t < assignment.size(); ++t) {
    const size_t s = static_cast<size_t>(assignment[t]);
    assert(s < n);
    if (IsLocal(instance, t, assignment[t])) {
      ++local[s], ++out.local_tasks;
    } else {
      ++remote[s], ++out.remote_tasks;
    }
  }
  const double w_rem = instance.costs.Remote(static_cast<size_t>(out.remote_tasks));
  out.loads.resize(n);
  for (size_t s = 0; s < n; ++s) {
    out.loads[s] = local[s] * instance.costs.w_loc + remote[s] * w_rem;
    out.max_load = std::max(out.max_load, out.loads[s]);
  }
  return out;
}

}  // namespace locsched
