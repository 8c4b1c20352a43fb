// Server: the event and control Unix sockets (and, in high-availability mode, a
// TCP listener whose clients present a shared secret, inside TLS if configured)
// and their connections on the daemon's io_context. A connection only splits
// lines, hands each to the Dispatcher and writes the replies, parked on the CommitStep while the
// journal owes them a sync; it never touches scheduling state. Event-loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "base/status.h"
#include "config/config.h"

namespace boost::asio {
class io_context;
namespace ssl {
class context;
}
}  // namespace boost::asio

namespace locsched {

class CommitStep;
class Dispatcher;
class HelloGate;

/// Listens on both sockets and serves newline-delimited JSON.
class Server {
 public:
  /// A server on `io` handing lines to `dispatcher`, whose replies wait for `commit`
  /// while it has events to make durable; all must outlive it. With a `hello` gate
  /// (high-availability mode) it also listens on TCP at ha.instance, where every
  /// connection must first pass the gate; with a `tls` context (ha.tls_certificate,
  /// which must outlive it too) the TCP listener speaks TLS only, handshaking first.
  Server(boost::asio::io_context& io, Dispatcher& dispatcher, CommitStep& commit, const Config& cfg,
         const HelloGate* hello = nullptr, boost::asio::ssl::context* tls = nullptr);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Creates, binds and secures both sockets and starts accepting, with each
  /// socket's client limit fitted to RLIMIT_NOFILE (a clamp is logged). The error
  /// names the config key of the socket that failed.
  Status Listen();
  /// Applies reloadable limits (line length, clients per socket, buffer, idle
  /// timeout) to new and open connections.
  void ApplyLimits(const LimitsConfig& limits);
  /// Stops accepting, answers what clients already sent, closes them, then
  /// calls `done` (at the latest after `grace_seconds`) and removes the socket files.
  void Stop(double grace_seconds, std::function<void()> done);
  /// Clients connected now.
  uint64_t clients() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace locsched
