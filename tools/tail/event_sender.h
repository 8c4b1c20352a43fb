// EventSender: locsched-tail's connection to locschedd's event socket. Pipelines
// requests with at most `window` unanswered (backpressure: Submit blocks reading
// replies), reports each reply in order, and on a lost connection reconnects and
// resends the unanswered requests (their ids make that safe). One thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "io/wire/client.h"

namespace locsched {

/// What the daemon said, counted.
struct SendStats {
  uint64_t sent = 0;        ///< requests answered
  uint64_t accepted = 0;    ///< answered ok (including duplicates)
  uint64_t duplicates = 0;  ///< answered ok with "duplicate":true
  uint64_t rejected = 0;    ///< answered with an error (not retried)
  uint64_t reconnects = 0;  ///< connections re-established after a loss
  uint64_t resent = 0;      ///< requests sent again after a reconnect
};

/// A pipelined, reconnecting sender of request lines.
class EventSender {
 public:
  /// Called once per answered request, in order, with its token and reply line.
  using OnReply = std::function<void(uint64_t token, const std::string& reply)>;
  /// Sends to `socket`; gives up when no connection succeeds for `retry_for`.
  EventSender(std::string socket, size_t window, std::chrono::milliseconds timeout,
              std::chrono::milliseconds retry_for, OnReply on_reply);
  /// Connects (retrying up to `retry_for`; a permission_denied refusal is not retried).
  Status Connect();
  /// Queues `line`; blocks reading replies while `window` requests are unanswered.
  Status Submit(std::string line, uint64_t token);
  /// Reads replies until none is outstanding.
  Status Drain();
  /// Reads the replies that have already arrived, without blocking.
  Status Poll();
  /// Requests sent and not yet answered.
  size_t in_flight() const { return pending_.size(); }
  /// The tallies so far.
  const SendStats& stats() const { return stats_; }

 private:
  struct Pending {
    std::string line;
    uint64_t token;
  };
  Status ReadOne();
  Status Reconnect(const Status& why);

  std::string socket_;
  size_t window_;
  std::chrono::milliseconds timeout_, retry_for_;
  OnReply on_reply_;
  LineClient client_;
  std::deque<Pending> pending_;
  SendStats stats_;
};

}  // namespace locsched
