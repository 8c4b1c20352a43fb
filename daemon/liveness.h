// Liveness: finds the machines silent past machines.expiry_s and the tasks running past
// scheduler.task_timeout_s, and sends the events that say so (machine_lost; task_failed
// with a "timed out" reason) through the Dispatcher as the daemon's own, so they are
// journaled like any event and a replay reproduces them from the journal instead of
// recomputing them from the clock. The daemon's one-second timer calls Check on the
// event-loop thread. It expires only while this instance may write (single node, or the
// HA active); each time it gains that right every machine first gets a full expiry (no
// last-heard time is trusted across a restart or a takeover).
#pragma once

#include <cstddef>
#include <string>

#include "config/config.h"
#include "daemon/dispatcher.h"

namespace locsched {

/// Turns silence and overlong runs into journaled events.
class Liveness {
 public:
  /// Checks the engine behind `dispatcher` with cfg's [machines] and task timeout; the
  /// dispatcher must outlive it.
  Liveness(Dispatcher& dispatcher, const Config& cfg);

  /// Applies the reloadable settings (expiry, task timeout, workload speed).
  void ApplyConfig(const Config& cfg);
  /// One check at the engine's clock. `may_write`: this instance may append events (false
  /// on an HA standby: nothing is checked, and the next check that may write grants every
  /// machine a full expiry first). Returns the events sent.
  size_t Check(bool may_write);

  /// Seconds of silence that make a machine lost (0: never).
  double expiry_s() const { return expiry_s_; }
  /// Wall seconds a task may run before it fails (task_timeout_s / workload_speed; 0: off).
  double task_timeout_wall_s() const { return task_timeout_s_; }

 private:
  size_t Send(const std::string& line);

  Dispatcher& dispatcher_;
  double expiry_s_ = 0;
  double task_timeout_s_ = 0;
  bool armed_ = false;  // the last check could write; false: grant a grace first
};

}  // namespace locsched
