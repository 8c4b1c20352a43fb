#include "tools/tail/event_sender.h"

#include <poll.h>

#include <cstdio>
#include <thread>

namespace locsched {

EventSender::EventSender(std::string socket, size_t window, std::chrono::milliseconds timeout,
                         std::chrono::milliseconds retry_for, OnReply on_reply)
    : socket_(std::move(socket)),
      window_(window),
      timeout_(timeout),
      retry_for_(retry_for),
      on_reply_(std::move(on_reply)) {}

Status EventSender::Connect() {
  const auto deadline = std::chrono::steady_clock::now() + retry_for_;
  // Shape: try, sleep 100 ms, try again until the deadline; the last error is returned.
  // A refusal (permission_denied: the socket's mode, a missing or wrong secret) is
  // returned at once: waiting will not change it.
  for (;;) {
    Status s = client_.Connect(socket_);
    if (s.ok()) {
      client_.set_timeout(timeout_);
      return s;
    }
    if (s.code() == Status::Code::kPermissionDenied) return s;
    if (std::chrono::steady_clock::now() >= deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Status EventSender::Reconnect(const Status& why) {
  Status cause = why;
  // Shape: reconnect, resend everything unanswered (it may or may not have been applied;
  // the ids make a second copy harmless); a send that fails starts over.
  for (;;) {
    std::fprintf(stderr, "locsched-tail: %s; reconnecting\n", cause.message().c_str());
    client_.Close();
    if (Status s = Connect(); !s.ok()) return s;
    ++stats_.reconnects;
    Status sent = Status::Ok();
    for (const Pending& p : pending_) {
      if (sent = client_.Send(p.line); !sent.ok()) break;
      ++stats_.resent;
    }
    if (sent.ok()) return sent;
    cause = sent;
  }
}

Status EventSender::ReadOne() {
  std::string reply;
  Status s = client_.ReadLine(&reply);
  if (!s.ok()) return Reconnect(s);
  const Pending p = std::move(pending_.front());
  pending_.pop_front();
  ++stats_.sent;
  if (reply.starts_with("{\"ok\":true")) {
    ++stats_.accepted;
    if (reply.find("\"duplicate\":true") != std::string::npos) ++stats_.duplicates;
  } else {
    ++stats_.rejected;
  }
  if (on_reply_) on_reply_(p.token, reply);
  return Status::Ok();
}

Status EventSender::Submit(std::string line, uint64_t token) {
  while (pending_.size() >= window_) {
    if (Status s = ReadOne(); !s.ok()) return s;
  }
  pending_.push_back({std::move(line), token});
  if (Status s = client_.Send(pending_.back().line); !s.ok()) return Reconnect(s);
  return Status::Ok();
}

Status EventSender::Drain() {
  while (!pending_.empty()) {
    if (Status s = ReadOne(); !s.ok()) return s;
  }
  return Status::Ok();
}

Status EventSender::Poll() {
  // A reply is ready if one is buffered or the socket is readable right now.
  while (!pending_.empty()) {
    pollfd p{client_.fd(), POLLIN, 0};
    if (!client_.LineBuffered() && ::poll(&p, 1, 0) <= 0) return Status::Ok();
    if (Status s = ReadOne(); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace locsched
