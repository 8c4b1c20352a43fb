// RequestCounters: what the daemon counts about request lines: every line, the
// calls and errors of each op (one slot per row of the command table) and the
// recent request rate, plus their Prometheus text. The Dispatcher counts live
// lines and replayed ones the same way. Event-loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "daemon/rate_meter.h"
#include "io/wire/command_table.h"

namespace locsched {

/// Per-command counters.
struct CommandCounters {
  uint64_t calls = 0;   ///< requests that named this command
  uint64_t errors = 0;  ///< of those, the ones answered with ok:false
};

/// Lines, per-op calls and errors, and the request rate.
class RequestCounters {
 public:
  /// Counts one request line at time `now`, decodable or not.
  void CountLine(double now) {
    ++lines_;
    rate_.Add(now);
  }
  /// The counters of op (to count a call or an error).
  CommandCounters& of(Op op) { return ops_[static_cast<size_t>(op)]; }
  /// The counters of op.
  const CommandCounters& of(Op op) const { return ops_[static_cast<size_t>(op)]; }
  /// Every request line counted.
  uint64_t lines() const { return lines_; }
  /// Requests per second over the ten seconds before `now`.
  double PerSecond(double now) const { return rate_.PerSecond(now); }
  /// Appends locsched_requests_total and locsched_request_errors_total per op.
  void AppendMetrics(std::string* text) const;

 private:
  std::array<CommandCounters, kOpCount> ops_{};
  uint64_t lines_ = 0;
  RateMeter rate_;
};

}  // namespace locsched
