#include "tools/tail/hosts.h"

#include <utility>

namespace locsched {

HostMapper::HostMapper(std::string prefix, uint32_t machines)
    : prefix_(std::move(prefix)), machines_(machines) {}

Status HostMapper::Map(TraceEvent* e) {
  // Shape: every replica of every task; a new host takes the next index.
  for (TraceTask& t : e->tasks) {
    for (std::string& host : t.replicas) {
      auto it = names_.find(host);
      if (it == names_.end()) {
        if (names_.size() >= machines_)
          return Status::InvalidArgument(
              "--map-hosts", "the trace names more than --machines = " + std::to_string(machines_) +
                                 " distinct replica hosts ('" + host +
                                 "' is one too many); raise --machines, and the emulator's, to "
                                 "the 'hosts' that --check prints");
        it = names_.emplace(host, prefix_ + std::to_string(names_.size())).first;
      }
      host = it->second;
    }
  }
  return Status::Ok();
}

}  // namespace locsched
