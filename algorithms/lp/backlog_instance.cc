#include "algorithms/lp/backlog_instance.h"

#include <algorithm>

namespace locsched {
namespace {

double Expected(const Task& t, double alpha, double gamma, bool local) {
  if (t.duration > 0) return local ? t.duration : t.duration * alpha / gamma;
  return 1.0 / (local ? alpha : gamma);
}

// Machines fold into classes by rack when there are racks, else by id: one flat
// table per snapshot, since the daemon takes the snapshot on its event loop.
std::vector<uint32_t> MachineClasses(const Cluster& c, uint32_t classes) {
  bool racks = false;
  for (MachineId m = 0; m < c.num_machines(); ++m) racks |= c.machine(m).rack != 0;
  std::vector<uint32_t> class_of(c.num_machines());
  for (MachineId m = 0; m < c.num_machines(); ++m)
    class_of[m] = (racks ? c.machine(m).rack : m) % classes;
  return class_of;
}

// Adds 1 to local[k] for each class k holding one of the replicas (once per class).
void CountClasses(const ReplicaList& r, const std::vector<uint32_t>& class_of,
                  std::vector<uint32_t>* local) {
  for (size_t i = 0; i < r.size(); ++i) {
    size_t k = 0;  // an earlier replica in the same class already counted it
    while (k < i && class_of[r[k]] != class_of[r[i]]) ++k;
    if (k == i) ++(*local)[class_of[r[i]]];
  }
}

// Adds live job `job` to `in`: its running tasks occupy their class for their expected
// remaining time (expected duration minus time run, at least 0); its waiting ones count,
// with the classes holding one of their replicas. A job with nothing waiting is left out.
void AddJob(const Cluster& c, const BacklogClock& clock, const std::vector<uint32_t>& class_of,
            JobId j, BacklogInstance* in) {
  const auto classes = static_cast<uint32_t>(in->slots.size());
  const Job& job = c.job(j);
  BacklogJob b{.key = j, .weight = job.weight, .tasks = 0, .duration = 0, .local = {}};
  b.arrival = job.seq;
  b.local.assign(classes, 0);
  for (TaskId t : job.tasks) {
    const Task& task = c.task(t);
    if (task.state == TaskState::kRunning) {
      const double rem = Expected(task, clock.alpha, clock.gamma, task.ran_local) -
                         (clock.now - clock.started_at(t));
      in->running[class_of[task.machine]].push_back(std::max(0.0, rem));
    } else if (task.state == TaskState::kQueued || task.state == TaskState::kBlocked) {
      ++b.tasks;
      b.duration += Expected(task, clock.alpha, clock.gamma, true);
      CountClasses(task.replicas, class_of, &b.local);
    }
  }
  if (b.tasks == 0) return;
  b.duration /= b.tasks;
  in->jobs.push_back(std::move(b));
}

}  // namespace

BacklogInstance SnapshotBacklog(const Cluster& c, const BacklogClock& clock,
                                std::vector<uint64_t>* seqs) {
  const uint32_t classes = std::max(1u, std::min(clock.classes, c.num_machines()));
  const std::vector<uint32_t> class_of = MachineClasses(c, classes);
  BacklogInstance in;
  in.remote_penalty = std::max(1.0, clock.alpha / clock.gamma);
  in.slots.assign(classes, 0);
  in.running.assign(classes, {});
  for (MachineId m = 0; m < c.num_machines(); ++m)
    if (c.machine(m).up && !c.machine(m).draining) in.slots[class_of[m]] += c.machine(m).slots;
  seqs->assign(c.job_capacity(), 0);
  for (JobId j = 0; j < c.job_capacity(); ++j) {
    if (!c.job(j).alive) continue;
    (*seqs)[j] = c.job(j).seq;
    AddJob(c, clock, class_of, j, &in);
  }
  return in;
}

void OrderToRanks(const Cluster& c, std::span<const uint32_t> order,
                  std::span<const uint64_t> snapshot_seqs, std::vector<uint32_t>* ranks,
                  std::vector<uint64_t>* seqs) {
  ranks->assign(c.job_capacity(), UINT32_MAX);
  seqs->assign(c.job_capacity(), 0);
  for (uint32_t rank = 0; rank < order.size(); ++rank) {
    const JobId j = order[rank];
    if (j >= c.job_capacity() || j >= snapshot_seqs.size() || !c.job(j).alive ||
        c.job(j).seq != snapshot_seqs[j])
      continue;
    (*ranks)[j] = rank;
    (*seqs)[j] = c.job(j).seq;
  }
}

}  // namespace locsched
