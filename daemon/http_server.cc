#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/http_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <set>

#include "daemon/http_routes.h"

namespace locsched {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

namespace {

// Boost 1.74's beast::string_view is not std::string_view.
beast::string_view Bsv(std::string_view s) {
  return {s.data(), s.size()};
}
std::string_view Ssv(beast::string_view s) {
  return {s.data(), s.size()};
}

constexpr uint32_t kHeaderLimit = 8192;       // request line and headers, bytes
constexpr uint32_t kBodyLimit = 1024;         // GET has no body; a bigger one is refused
constexpr int kRequestsPerConnection = 1000;  // then "Connection: close"

http::response<http::string_body> MakeResponse(HttpReply reply, unsigned version, bool keep) {
  http::response<http::string_body> res{static_cast<http::status>(reply.status), version};
  res.set(http::field::server, "locschedd");
  res.set(http::field::content_type, Bsv(reply.content_type));
  res.set(http::field::cache_control, reply.cacheable ? "max-age=60" : "no-store");
  if (reply.status == 405) res.set(http::field::allow, "GET");
  res.keep_alive(keep);
  res.body() = std::move(reply.body);
  res.prepare_payload();
  return res;
}

http::response<http::string_body> ErrorResponse(http::status status, std::string text) {
  http::response<http::string_body> res{status, 11};
  res.set(http::field::server, "locschedd");
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  res.keep_alive(false);
  res.body() = std::move(text);
  res.prepare_payload();
  return res;
}

}  // namespace

struct HttpServer::Impl {
  Impl(asio::io_context& io_, Dispatcher& d, const HttpConfig& c)
      : io(io_), dispatcher(d), cfg(c) {}

  awaitable<void> Accept();
  awaitable<void> Serve(std::shared_ptr<beast::tcp_stream> stream);
  awaitable<bool> ServeOne(beast::tcp_stream& stream, beast::flat_buffer& buffer, int served);

  asio::io_context& io;
  Dispatcher& dispatcher;
  HttpConfig cfg;
  tcp::acceptor acceptor{io};
  tcp::endpoint bound;
  std::set<std::shared_ptr<beast::tcp_stream>> streams;  // open connections, closed by Stop
  bool stopping = false;
};

HttpServer::HttpServer(asio::io_context& io, Dispatcher& dispatcher, const HttpConfig& cfg)
    : impl_(std::make_unique<Impl>(io, dispatcher, cfg)) {}

HttpServer::~HttpServer() = default;

Status HttpServer::Listen() {
  Impl& s = *impl_;
  if (s.cfg.listen.empty()) return Status::Ok();
  ListenAddress address;
  if (Status st = ParseListenAddress(s.cfg.listen, &address); !st.ok()) return st;
  boost::system::error_code ec;
  const tcp::endpoint at(asio::ip::make_address(address.host, ec), address.port);
  if (!ec) s.acceptor.open(at.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(at, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IoError("http.listen", s.cfg.listen + ": " + ec.message());
  s.bound = s.acceptor.local_endpoint(ec);
  asio::co_spawn(s.io, s.Accept(), asio::detached);
  return Status::Ok();
}

std::string HttpServer::endpoint() const {
  if (!impl_->acceptor.is_open()) return "";
  const tcp::endpoint& e = impl_->bound;
  const std::string host = e.address().to_string();
  return (e.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(e.port());
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  s.stopping = true;
  boost::system::error_code ec;
  s.acceptor.close(ec);
  for (const auto& stream : s.streams) stream->socket().close(ec);
}

// Accepts until Stop; a connection past http.max_connections is closed at once.
awaitable<void> HttpServer::Impl::Accept() {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(use_awaitable, ec));
    if (ec == asio::error::operation_aborted || stopping) co_return;
    if (ec) continue;  // EMFILE and friends: this client is lost, the listener is not
    if (streams.size() >= cfg.max_connections) {
      socket.close(ec);
      continue;
    }
    auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
    streams.insert(stream);  // counted at once, so a burst of connects cannot pass the cap
    asio::co_spawn(io, Serve(std::move(stream)), asio::detached);
  }
}

// One connection: requests one after another (keep-alive), each read and each
// write within http.timeout_ms, at most kRequestsPerConnection of them.
awaitable<void> HttpServer::Impl::Serve(std::shared_ptr<beast::tcp_stream> stream) {
  beast::flat_buffer buffer(kHeaderLimit + kBodyLimit);
  for (int served = 1; !stopping; ++served)
    if (!co_await ServeOne(*stream, buffer, served)) break;
  streams.erase(stream);
  boost::system::error_code ec;
  stream->socket().shutdown(tcp::socket::shutdown_send, ec);
  stream->close();
}

// Reads one request and writes its answer; false when the connection is done.
awaitable<bool> HttpServer::Impl::ServeOne(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                           int served) {
  const auto timeout = std::chrono::milliseconds(cfg.timeout_ms);
  http::request_parser<http::string_body> parser;
  parser.header_limit(kHeaderLimit);
  parser.body_limit(kBodyLimit);
  boost::system::error_code ec;
  stream.expires_after(timeout);
  co_await http::async_read(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
  if (ec == http::error::end_of_stream || ec == beast::error::timeout || stopping) co_return false;
  if (ec) {
    // Too big or not HTTP: say so (best effort, bounded by the timeout) and close.
    const bool big = ec == http::error::header_limit || ec == http::error::body_limit ||
                     ec == http::error::buffer_overflow;
    auto res = ErrorResponse(big ? http::status::payload_too_large : http::status::bad_request,
                             ec.message() + "\n");
    stream.expires_after(timeout);
    co_await http::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
    co_return false;
  }
  const http::request<http::string_body>& req = parser.get();
  const bool keep = req.keep_alive() && served < kRequestsPerConnection;
  auto res = MakeResponse(RouteHttp(Ssv(req.method_string()), Ssv(req.target()), dispatcher),
                          req.version(), keep);
  stream.expires_after(timeout);
  co_await http::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
  co_return !ec && keep && !stopping;
}

}  // namespace locsched
