// CommitStep: the loop's per-burst step (as redis's beforeSleep), run after the
// connections that were ready together: one journal sync for the burst (group
// commit) before their replies go out, the snapshot trigger, the burst clock.
// When the journal cannot be written (ENOSPC, EIO) the burst's replies stay
// parked and the step retries with backoff until it can. Connections open
// bursts and park on it; event-loop thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <vector>

#include "daemon/clock.h"
#include "daemon/event_log.h"

namespace locsched {

/// Opens bursts, and closes each with one commit.
class CommitStep {
 public:
  /// Writes a snapshot (the daemon's Durability); nullptr: none.
  using Snapshot = std::function<void()>;

  /// A step on `io` that holds `clock` during a burst and syncs `log`; all must outlive it.
  CommitStep(boost::asio::io_context& io, DaemonClock& clock, EventLog& log, Snapshot snapshot);

  /// A connection is about to answer lines: the first call of a burst reads the clock
  /// once for all of them and schedules the step behind the handlers already ready.
  void Enter();
  /// True if replies must wait for the step: events are appended but not yet durable.
  bool MustWait() const { return log_.unsynced() > 0; }
  /// Parks a connection's timer until the step has run (the step cancels it).
  void Park(boost::asio::steady_timer& wake);

 private:
  void Schedule();
  void Run();
  void Release();
  void HoldAndRetry(const Status& s);
  void RetryLater();

  boost::asio::io_context& io_;
  DaemonClock& clock_;
  EventLog& log_;
  Snapshot snapshot_;
  bool scheduled_ = false;
  bool held_ = false;
  std::vector<boost::asio::steady_timer*> parked_;
  boost::asio::steady_timer retry_;  // the next write of a held journal
  double retry_delay_ = 0;           // seconds, doubling up to kMaxRetryDelay
  int retries_ = 0;
  std::chrono::steady_clock::time_point held_since_{};
};

}  // namespace locsched
