#include "algorithms/hta/permit_rebalancer.h"

#include <algorithm>

#include "algorithms/core/late_binding.h"

namespace locsched {

const char* PermitRebalancer::Due(double now) const {
  if (big_job_) return "big_job";
  if (waiting_ && now >= next_) return "timer";
  return nullptr;
}

PermitRun PermitRebalancer::Run(Scheduler& sched, double now, double alpha, double gamma) {
  const RemotePermits& permits = static_cast<LateBinding&>(sched.policy()).permits();
  const bool used = (permits.taken() - taken_at_last_) * 2 >= last_granted_;
  const bool burst = big_job_;
  const PermitRun run =
      GrantRemotePermits(sched, s_.big_job_tasks, HtaCosts{1 / alpha, {1 / gamma}});
  big_job_ = false;
  waiting_ = run.jobs > 0;
  last_granted_ = run.granted;
  taken_at_last_ = permits.taken();
  interval_ = burst || (used && run.granted > 0) ? s_.base_interval_s
                                                 : std::min(2 * interval_, s_.max_interval_s);
  next_ = now + interval_;
  ++runs_;
  granted_ += run.granted;
  return run;
}

}  // namespace locsched
