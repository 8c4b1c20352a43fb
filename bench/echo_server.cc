// locsched-echo: a newline echo server on a Unix socket, built the way locschedd
// serves its sockets (one thread, one io_context, a coroutine per client that
// reads a chunk, splits it into lines, appends one reply per line, writes them
// back). It does no work per line, so it is the ceiling bench/loadgen.cc measures.
#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <boost/asio.hpp>
#include <cstdio>
#include <string>
#include <string_view>

namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using Stream = asio::local::stream_protocol;

// Appends every complete line of `data` (joined to the carried `partial`) to `out`.
void EchoLines(std::string_view data, std::string* partial, std::string* out) {
  for (size_t nl; (nl = data.find('\n')) != std::string_view::npos;) {
    if (partial->empty()) {
      out->append(data.substr(0, nl + 1));
    } else {
      out->append(*partial).append(data.substr(0, nl + 1));
      partial->clear();
    }
    data.remove_prefix(nl + 1);
  }
  partial->append(data);
}

// One client: read a chunk, answer its lines, write, repeat until end of stream.
awaitable<void> Serve(Stream::socket socket) {
  std::array<char, 65536> buf;
  std::string partial, out;
  for (;;) {
    boost::system::error_code ec;
    const size_t n =
        co_await socket.async_read_some(asio::buffer(buf), asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    EchoLines(std::string_view(buf.data(), n), &partial, &out);
    if (out.empty()) continue;
    co_await asio::async_write(socket, asio::buffer(out), asio::redirect_error(use_awaitable, ec));
    out.clear();
    if (ec) break;
  }
}

awaitable<void> Accept(Stream::acceptor& acceptor) {
  for (;;) {
    boost::system::error_code ec;
    Stream::socket s = co_await acceptor.async_accept(asio::redirect_error(use_awaitable, ec));
    if (ec == asio::error::operation_aborted) co_return;
    if (!ec) asio::co_spawn(acceptor.get_executor(), Serve(std::move(s)), asio::detached);
  }
}

// Removes a socket file left by an earlier run; anything else at `path` is left alone.
void RemoveStaleSocket(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "locsched-echo: echoes every line sent to a Unix socket, with locschedd's I/O loop and\n"
      "no scheduling work: the throughput ceiling for locsched-loadgen --echo. Stops on\n"
      "SIGINT or SIGTERM and removes the socket file."};
  std::string path;
  app.add_option("--socket", path, "Path of the Unix socket to create (required)")->required();
  CLI11_PARSE(app, argc, argv);
  asio::io_context io(1);
  Stream::acceptor acceptor(io);
  boost::system::error_code ec;
  RemoveStaleSocket(path);
  acceptor.open(Stream(), ec);
  if (!ec) acceptor.bind(Stream::endpoint(path), ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "locsched-echo: --socket %s: %s\n", path.c_str(), ec.message().c_str());
    return 1;
  }
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  asio::co_spawn(io, Accept(acceptor), asio::detached);
  io.run();
  RemoveStaleSocket(path);
  return 0;
}
