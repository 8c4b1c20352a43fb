#include "algorithms/core/remote_permits.h"

namespace locsched {

TaskId RemotePermits::Take(const Cluster& c) {
  while (!list_.empty()) {
    const Entry e = list_.front();
    list_.pop_front();
    if (e.task >= c.task_capacity()) continue;
    const Task& task = c.task(e.task);
    if (task.job != kNoId && task.state == TaskState::kQueued && task.generation == e.generation) {
      ++taken_;
      return e.task;
    }
  }
  return kNoId;
}

}  // namespace locsched
