// Tests io/wire/client: LineClient against a socketpair and a listening Unix socket:
// buffered line splitting, partial writes of big lines, pipelined batches, and
// errors that name the path (no such socket, peer gone, timeout, overlong line);
// a tcp: address's secret missing or refused (permission_denied, naming the file).
#include "io/wire/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace locsched {
namespace {

// A connected pair: `client` is a LineClient on one end, `peer` the raw other end.
struct Pair {
  LineClient client;
  int peer = -1;
  Pair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    client.Adopt(fds[0], "pair");
    peer = fds[1];
  }
  ~Pair() {
    if (peer >= 0) ::close(peer);
  }
  void PeerWrite(const std::string& bytes) const {
    REQUIRE(::write(peer, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  // Reads exactly n bytes from the peer end.
  std::string PeerRead(size_t n) const {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::read(peer, out.data() + got, n - got);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return out;
  }
};

// Echoes every complete line the peer end receives, until end of stream. It
// writes only whole lines, so a big line is read fully before it is echoed.
void EchoUntilEof(int fd) {
  std::string pending;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) {
    pending.append(buf, static_cast<size_t>(n));
    const size_t end = pending.rfind('\n');
    if (end == std::string::npos) continue;
    for (size_t done = 0; done <= end;) {
      const ssize_t w = ::write(fd, pending.data() + done, end + 1 - done);
      if (w <= 0) return;
      done += static_cast<size_t>(w);
    }
    pending.erase(0, end + 1);
  }
}

std::string TempSocketPath() {
  char dir[] = "/tmp/locsched-client-test-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  return std::string(dir) + "/ev.sock";
}

TEST_CASE("Send appends a newline", "[client]") {
  Pair p;
  REQUIRE(p.client.Send(R"({"op":"status"})").ok());
  CHECK(p.PeerRead(16) == "{\"op\":\"status\"}\n");
}

TEST_CASE("ReadLine splits and joins chunks into lines", "[client]") {
  Pair p;
  p.PeerWrite("one\ntwo\n\nthr");
  std::string line;
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line == "one");
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line == "two");
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line.empty());
  p.PeerWrite("ee\n");
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line == "three");
}

TEST_CASE("LineBuffered says whether ReadLine would touch the socket", "[client]") {
  Pair p;
  CHECK_FALSE(p.client.LineBuffered());
  p.PeerWrite("a\nb");
  std::string line;
  REQUIRE(p.client.ReadLine(&line).ok());  // reads "a\nb" at once
  CHECK_FALSE(p.client.LineBuffered());    // "b" has no newline yet
  p.PeerWrite("\nc\n");
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line == "b");
  CHECK(p.client.LineBuffered());
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line == "c");
  CHECK_FALSE(p.client.LineBuffered());
}

TEST_CASE("ReadLine at end of stream is an error", "[client]") {
  Pair p;
  p.PeerWrite("last\npartial");
  ::shutdown(p.peer, SHUT_WR);
  std::string line;
  REQUIRE(p.client.ReadLine(&line).ok());
  CHECK(line == "last");
  const Status s = p.client.ReadLine(&line);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Status::Code::kIoError);
  CHECK(s.message() == "pair: connection closed in the middle of a line");
}

TEST_CASE("A clean end of stream says the peer closed", "[client]") {
  Pair p;
  ::close(p.peer);
  p.peer = -1;
  std::string line;
  const Status s = p.client.ReadLine(&line);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == "pair: connection closed by the peer");
}

TEST_CASE("Big lines survive partial writes and reads both ways", "[client]") {
  Pair p;
  std::thread echo(EchoUntilEof, p.peer);
  std::string big(3 << 20, 'x');  // far above the socket buffers
  big[12345] = 'y';
  std::string reply;
  REQUIRE(p.client.Call(big, &reply).ok());
  CHECK(reply == big);
  ::shutdown(p.client.fd(), SHUT_WR);
  echo.join();
}

TEST_CASE("CallBatch pipelines under a window and keeps the order", "[client]") {
  Pair p;
  std::thread echo(EchoUntilEof, p.peer);
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i)
    lines.push_back(R"({"op":"heartbeat","n":)" + std::to_string(i) + "}");
  for (size_t window : {1, 7, 64, 100000}) {
    std::vector<std::string> replies;
    REQUIRE(p.client.CallBatch(lines, &replies, window).ok());
    CHECK(replies == lines);
  }
  ::shutdown(p.client.fd(), SHUT_WR);
  echo.join();
}

TEST_CASE("Sending to a closed peer is an error, not SIGPIPE", "[client]") {
  Pair p;
  ::close(p.peer);
  p.peer = -1;
  Status s;
  for (int i = 0; i < 3 && s.ok(); ++i) s = p.client.Send(std::string(100000, 'z'));
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().rfind("pair: write failed", 0) == 0);
}

TEST_CASE("Timeout and line limit give errors naming the socket", "[client]") {
  Pair p;
  p.client.set_timeout(std::chrono::milliseconds(20));
  std::string line;
  Status s = p.client.ReadLine(&line);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == "pair: no reply within 20 ms");
  p.client.set_max_line_bytes(1000);
  p.PeerWrite(std::string(5000, 'a'));
  s = p.client.ReadLine(&line);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Status::Code::kResourceExhausted);
}

TEST_CASE("Connect names the path it could not reach", "[client]") {
  LineClient c;
  const std::string path = "/nonexistent/locsched/ev.sock";
  const Status s = c.Connect(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Status::Code::kIoError);
  CHECK(s.message().rfind(path + ": cannot connect", 0) == 0);
  CHECK_FALSE(c.connected());
  CHECK_FALSE(c.Connect(std::string(200, 'p')).ok());
  std::string line;
  CHECK(c.ReadLine(&line).code() == Status::Code::kFailedPrecondition);
}

// Sets $LOCSCHED_SECRET_FILE for one scope (unset with nullptr), and restores it.
struct SecretEnv {
  std::string saved;
  bool had;
  explicit SecretEnv(const char* value) {
    const char* old = std::getenv("LOCSCHED_SECRET_FILE");
    had = old != nullptr;
    if (had) saved = old;
    if (value)
      ::setenv("LOCSCHED_SECRET_FILE", value, 1);
    else
      ::unsetenv("LOCSCHED_SECRET_FILE");
  }
  ~SecretEnv() {
    if (had)
      ::setenv("LOCSCHED_SECRET_FILE", saved.c_str(), 1);
    else
      ::unsetenv("LOCSCHED_SECRET_FILE");
  }
};

TEST_CASE("A tcp: address without its secret is permission_denied naming the variable and file",
          "[client]") {
  LineClient c;
  {
    SecretEnv env(nullptr);
    const Status s = c.Connect("tcp:127.0.0.1:1");
    CHECK(s.code() == Status::Code::kPermissionDenied);
    CHECK(s.message().rfind("LOCSCHED_SECRET_FILE: is not set", 0) == 0);
  }
  SecretEnv env("/nonexistent/locsched.secret");
  const Status s = c.Connect("tcp:127.0.0.1:1");
  CHECK(s.code() == Status::Code::kPermissionDenied);
  CHECK(s.message() ==
        "LOCSCHED_SECRET_FILE: /nonexistent/locsched.secret: cannot read the shared secret: No "
        "such file or directory");
}

TEST_CASE("A refused hello is permission_denied naming the instance and the file, without JSON",
          "[client]") {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  REQUIRE(::listen(listener, 4) == 0);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  std::thread server([&] {  // answers one hello as the daemon does a wrong secret
    const int conn = ::accept(listener, nullptr, nullptr);
    char buf[512];
    (void)::read(conn, buf, sizeof buf);
    const std::string refusal =
        R"({"ok":false,"error":{"code":"permission_denied","field":"secret",)"
        R"("message":"secret: wrong or missing shared secret"}})"
        "\n";
    (void)::write(conn, refusal.data(), refusal.size());
    ::close(conn);
  });
  const std::string file = TempSocketPath() + ".secret";
  FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f);
  std::fputs("not-the-secret-0123456789\n", f);
  std::fclose(f);
  SecretEnv env(file.c_str());
  LineClient c;
  const Status s = c.Connect("tcp:" + address);
  server.join();
  ::close(listener);
  std::remove(file.c_str());
  CHECK(s.code() == Status::Code::kPermissionDenied);
  CHECK(s.message() == address + ": refused the shared secret in " + file +
                           " ($LOCSCHED_SECRET_FILE); it must match the daemon's ha.secret_file");
  CHECK_FALSE(c.connected());
}

TEST_CASE("Connect reaches a listening Unix socket", "[client]") {
  const std::string path = TempSocketPath();
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof addr.sun_path - 1);
  REQUIRE(::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 4) == 0);
  std::thread server([&] {
    const int conn = ::accept(listener, nullptr, nullptr);
    EchoUntilEof(conn);
    ::close(conn);
  });
  LineClient c;
  REQUIRE(c.Connect(path).ok());
  std::string reply;
  REQUIRE(c.Call(R"({"op":"status"})", &reply).ok());
  CHECK(reply == R"({"op":"status"})");
  LineClient moved = std::move(c);
  CHECK_FALSE(c.connected());
  REQUIRE(moved.Call("again", &reply).ok());
  CHECK(reply == "again");
  moved.Close();
  server.join();
  ::close(listener);
  ::unlink(path.c_str());
  ::rmdir(path.substr(0, path.rfind('/')).c_str());
}

}  // namespace
}  // namespace locsched
