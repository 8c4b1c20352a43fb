// FdBudget: the client limits that fit the process's file-descriptor limit
// (RLIMIT_NOFILE), so the daemon refuses a client with a clear error instead of
// running out of descriptors for its journal and snapshots. Pure; the Server
// calls it at start and on reload.
#pragma once

#include <cstdint>
#include <string>

#include "config/config.h"

namespace locsched {

/// Descriptors the daemon keeps for itself besides its clients: stdio, the two
/// listening sockets, the journal and a snapshot being written, the log, the
/// event loop's own, the worker thread's, with room to spare.
inline constexpr uint64_t kReservedFds = 32;

/// How many clients each socket serves.
struct ClientLimits {
  uint64_t event = 0;    ///< limits.max_clients, or less
  uint64_t control = 0;  ///< limits.max_control_clients, or less
};

/// The configured limits if they fit `fd_limit` descriptors with kReservedFds;
/// otherwise smaller ones that do (at least one client each), and in *note a
/// message naming the keys and the limit ("" when nothing was clamped).
ClientLimits FitClientLimits(const LimitsConfig& limits, uint64_t fd_limit, std::string* note);

}  // namespace locsched
