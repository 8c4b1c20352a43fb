// HttpServer: the optional HTTP listener (Boost.Beast) on the daemon's
// io_context; HttpRoutes decides the answers. Bounded so a client can neither
// block nor starve the loop: request header and body limits, a connection
// cap, a timeout on every read and write, a request cap per keep-alive
// connection. Event-loop thread only; Beast stays inside http_server.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "config/config.h"

namespace boost::asio {
class io_context;
}

namespace locsched {

class Dispatcher;

/// Serves HTTP on cfg.listen, or nothing when it is "".
class HttpServer {
 public:
  /// A listener on `io` answering from `dispatcher`; both must outlive it.
  HttpServer(boost::asio::io_context& io, Dispatcher& dispatcher, const HttpConfig& cfg);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Binds and starts accepting (nothing when http.listen is ""); the error names
  /// http.listen.
  Status Listen();
  /// Stops accepting and closes every connection.
  void Stop();
  /// "IP:PORT" it listens on, or "" when off.
  std::string endpoint() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace locsched
