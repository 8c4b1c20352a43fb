#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/commit_step.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>

namespace locsched {

CommitStep::CommitStep(boost::asio::io_context& io, DaemonClock& clock, EventLog& log,
                       Snapshot snapshot)
    : io_(io), clock_(clock), log_(log), snapshot_(std::move(snapshot)), retry_(io) {}

namespace {
constexpr double kFirstRetryDelay = 0.05;  // seconds
constexpr double kMaxRetryDelay = 2.0;
}  // namespace

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

// If the journal cannot be written, nothing of this burst is acknowledged: its
// replies stay parked and its records buffered (the Engine has applied them, so
// they must reach the journal before anything else does), every later mutating
// event is refused (EventLog::Admit), and the write is retried with backoff.
void CommitStep::Run() {
  scheduled_ = false;
  if (log_.held()) {  // a retry is pending; replies parked meanwhile wait for it
    if (held_) clock_.Unhold();
    held_ = false;
    return;
  }
  if (Status s = log_.Sync(); !s.ok()) {
    HoldAndRetry(s);
  } else {
    Release();
    if (snapshot_ && log_.SnapshotDue()) snapshot_();  // a failure is logged, not fatal
  }
  if (held_) clock_.Unhold();
  held_ = false;
}

void CommitStep::Release() {
  for (boost::asio::steady_timer* wake : parked_) wake->cancel();
  parked_.clear();
}

void CommitStep::HoldAndRetry(const Status& s) {
  spdlog::error(
      "journal write failed: {}; holding {} unacknowledged events and refusing new ones with "
      "journal_unavailable until the journal can be written (retrying)",
      s.message(), log_.held_events());
  held_since_ = std::chrono::steady_clock::now();
  retries_ = 0;
  retry_delay_ = kFirstRetryDelay;
  RetryLater();
}

void CommitStep::RetryLater() {
  retry_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(retry_delay_)));
  retry_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    ++retries_;
    const Status before = log_.unavailable();
    if (Status s = log_.Retry(); !s.ok()) {
      if (s.message() != before.message()) spdlog::error("journal write failed: {}", s.message());
      retry_delay_ = std::min(kMaxRetryDelay, retry_delay_ * 2);
      RetryLater();
      return;
    }
    const double held_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - held_since_).count();
    spdlog::warn("journal writable again after {:.1f} s and {} retries; acknowledging again",
                 held_s, retries_);
    Release();
  });
}

}  // namespace locsched
