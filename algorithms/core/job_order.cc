#include "algorithms/core/job_order.h"

namespace locsched {

JobHeap::Less MakeJobLess(JobOrder order, const Cluster& cluster, const JobRanks* ranks) {
  switch (order) {
    case JobOrder::kLp:
      if (ranks == nullptr) return MakeJobLess(JobOrder::kSmith, cluster);
      return [ranks, smith = MakeJobLess(JobOrder::kSmith, cluster)](JobId a, JobId b) {
        const uint64_t ka = ranks->Key(a), kb = ranks->Key(b);
        return ka != kb ? ka < kb : smith(a, b);
      };
    case JobOrder::kSrpt:
      return [&cluster](JobId a, JobId b) {
        const Job& x = cluster.job(a);
        const Job& y = cluster.job(b);
        const uint32_t rx = RemainingTasks(x), ry = RemainingTasks(y);
        return rx != ry ? rx < ry : x.seq < y.seq;
      };
    case JobOrder::kSmith:
      return [&cluster](JobId a, JobId b) {
        const Job& x = cluster.job(a);
        const Job& y = cluster.job(b);
        // x first when w_x / r_x > w_y / r_y, compared without division.
        const double lx = x.weight * RemainingTasks(y), ly = y.weight * RemainingTasks(x);
        return lx != ly ? lx > ly : x.seq < y.seq;
      };
    case JobOrder::kFifo:
      return [&cluster](JobId a, JobId b) { return cluster.job(a).seq < cluster.job(b).seq; };
    case JobOrder::kFair:
      break;
  }
  return [&cluster](JobId a, JobId b) {
    const Job& x = cluster.job(a);
    const Job& y = cluster.job(b);
    return x.running != y.running ? x.running < y.running : x.seq < y.seq;
  };
}

}  // namespace locsched
