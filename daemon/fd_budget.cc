#include "daemon/fd_budget.h"

#include <algorithm>

namespace locsched {

ClientLimits FitClientLimits(const LimitsConfig& limits, uint64_t fd_limit, std::string* note) {
  ClientLimits fit{limits.max_clients, limits.max_control_clients};
  note->clear();
  const uint64_t needed = fit.event + fit.control + kReservedFds;
  if (needed <= fd_limit) return fit;
  const uint64_t room = fd_limit > kReservedFds + 2 ? fd_limit - kReservedFds : 2;
  // Operators keep a quarter of the room (their socket must stay reachable).
  fit.control = std::min<uint64_t>(fit.control, std::max<uint64_t>(1, room / 4));
  fit.event = std::max<uint64_t>(1, std::min<uint64_t>(fit.event, room - fit.control));
  *note = "limits.max_clients (" + std::to_string(limits.max_clients) +
          ") and limits.max_control_clients (" + std::to_string(limits.max_control_clients) +
          ") need " + std::to_string(needed) + " file descriptors with the daemon's own " +
          std::to_string(kReservedFds) + ", but RLIMIT_NOFILE is " + std::to_string(fd_limit) +
          ": serving at most " + std::to_string(fit.event) + " event and " +
          std::to_string(fit.control) +
          " control clients (raise LimitNOFILE= or ulimit -n, or lower the limits)";
  return fit;
}

}  // namespace locsched
