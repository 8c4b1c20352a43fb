#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/commit_step.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <cstdlib>

namespace locsched {

CommitStep::CommitStep(boost::asio::io_context& io, DaemonClock& clock, EventLog& log,
                       Snapshot snapshot)
    : io_(io), clock_(clock), log_(log), snapshot_(std::move(snapshot)) {}

// The events of one burst share one clock reading (one read, not one per event
// and several per heartbeat: 2-3% of the daemon's time at 400k events/s).
void CommitStep::Enter() {
  if (held_) return;
  clock_.Hold();
  held_ = true;
  Schedule();
}

void CommitStep::Park(boost::asio::steady_timer& wake) {
  wake.expires_at(boost::asio::steady_timer::time_point::max());
  parked_.push_back(&wake);
  Schedule();
}

// Posted, the step runs after the handlers the loop has already queued: the other
// connections that were ready in the same poll.
void CommitStep::Schedule() {
  if (scheduled_) return;
  scheduled_ = true;
  boost::asio::post(io_, [this] { Run(); });
}

// If the journal cannot be written the daemon stops at once, unacknowledged:
// systemd restarts it and it recovers what was acknowledged.
void CommitStep::Run() {
  scheduled_ = false;
  if (Status s = log_.Sync(); !s.ok()) {
    spdlog::critical("journal write failed: {}; exiting without acknowledging", s.message());
    spdlog::default_logger()->flush();
    std::_Exit(75);  // EX_TEMPFAIL
  }
  for (boost::asio::steady_timer* wake : parked_) wake->cancel();
  parked_.clear();
  if (snapshot_ && log_.SnapshotDue()) snapshot_();  // a failure is logged, not fatal
  if (held_) clock_.Unhold();
  held_ = false;
}

}  // namespace locsched
