#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/server.h"

#include <fcntl.h>
#include <grp.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "daemon/commit_step.h"
#include "daemon/dispatcher.h"
#include "daemon/fd_budget.h"
#include "daemon/ha/hello.h"
#include "daemon/peer_access.h"

namespace locsched {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using Stream = asio::local::stream_protocol;
using Generic = asio::generic::stream_protocol;  // a connection: Unix or TCP
using Tcp = asio::ip::tcp;

namespace {

// One client. Reads and writes alternate, so a client that stops reading only
// stalls itself: the daemon stops reading its requests until it drains. A read
// or a write that waits longer than limits.idle_timeout_s ends the connection.
// A TLS client's bytes go through `tls`, layered on `socket` (which cancel and
// close still act on).
struct Connection : std::enable_shared_from_this<Connection> {
  Connection(Generic::socket s, bool on_control, bool on_tcp, asio::ssl::context* tls_context)
      : socket(std::move(s)),
        wake(socket.get_executor()),
        idle(socket.get_executor()),
        control(on_control),
        tcp(on_tcp) {
    if (tls_context) tls.emplace(socket, *tls_context);
  }
  Generic::socket socket;
  std::optional<asio::ssl::stream<Generic::socket&>> tls;  // ha.tls_certificate's TCP clients
  asio::steady_timer wake;  // parked on the commit step while replies wait for the journal
  asio::steady_timer idle;  // limits.idle_timeout_s on the read or write under way
  bool control;             // accepted on the control socket (its own client count)
  bool tcp;                 // accepted on TCP: the first line must be a good hello
  bool greeted = false;     // a TCP client passed the hello
  bool timed_out = false;   // the idle timer closed it
  Caller caller;
  std::string partial;      // an incomplete line carried between reads
  std::string out;          // replies not yet written
  bool discarding = false;  // inside a line that broke max_line_bytes
  bool reading = false;     // a read is pending (Stop cancels it)
  bool stopping = false;    // finish the current write, then close
};

// The peer may run admin commands, on either socket, if it is root, the daemon's
// own user, or a member of the control socket's group (supplementary groups count).
Caller CallerOf(int fd, bool control, const AdminRule& rule) {
  Caller c;
  c.control = control;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return c;
  c.uid = cred.uid;
  c.pid = cred.pid;
  c.authorized = MayAdmin(PeerCred{cred.uid, cred.gid}, rule, SystemGroups());
  return c;
}

// Accept errors that mean "out of descriptors or memory": the pending client stays
// queued, so retrying at once would spin.
bool OutOfResources(const boost::system::error_code& ec) {
  namespace errc = boost::system::errc;
  return ec == errc::too_many_files_open || ec == errc::too_many_files_open_in_system ||
         ec == errc::no_buffer_space || ec == errc::not_enough_memory;
}

// How long a TCP client may take to start TLS (its first byte, then the handshake).
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);

// The first byte of a TLS client's hello: a handshake record.
constexpr unsigned char kTlsHandshakeRecord = 0x16;

// How long accepting pauses after running out of descriptors, and how often that is logged.
constexpr auto kAcceptPause = std::chrono::milliseconds(50);
constexpr auto kExhaustionLogInterval = std::chrono::seconds(10);

// A socket is bound at its path plus this suffix, then renamed into place.
constexpr std::string_view kBindSuffix = ".tmp";
constexpr size_t kMaxSocketPath = sizeof(sockaddr_un::sun_path) - 1 - kBindSuffix.size();

uint64_t FdLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return rl.rlim_cur;
}

// Raises the soft descriptor limit towards the hard one when the client limits
// need more (a refused raise, as under the unit's system-call filter, is fine).
void RaiseFdLimit(uint64_t wanted) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= wanted) return;
  rl.rlim_cur = std::min<rlim_t>(wanted, rl.rlim_max);
  (void)setrlimit(RLIMIT_NOFILE, &rl);
}

std::string Errno(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

struct Server::Impl {
  Impl(asio::io_context& io_, Dispatcher& d, CommitStep& commit_, const Config& cfg,
       const HelloGate* hello_, asio::ssl::context* tls_)
      : io(io_),
        dispatcher(d),
        commit(commit_),
        hello(hello_),
        tls(tls_),
        instance(cfg.ha.instance),
        sockets(cfg.sockets),
        limits(cfg.limits),
        grace(io_) {}

  Status Bind(Stream::acceptor& a, std::string_view key, const std::string& path, uint32_t mode,
              const std::string& group, gid_t* gid);
  Status SetOwnership(std::string_view key, const std::string& path, uint32_t mode,
                      const std::string& group, gid_t* gid);
  Status ClearStale(std::string_view key, const std::string& path);
  awaitable<void> Accept(Stream::acceptor& a, bool control);
  Status ListenTcp();
  awaitable<void> AcceptTcp();
  // `address`: a TCP client's address:port, for the audit trail (empty on Unix sockets).
  void Admit(Generic::socket socket, bool control, bool tcp, const AdminRule& rule,
             std::string address = {});
  awaitable<void> OutOfFds(Stream::acceptor& a, bool control, const boost::system::error_code& ec);
  void RefuseWithSpare(Stream::acceptor& a);
  void FitLimits();
  void ArmIdle(Connection& c);
  void ArmTimeout(Connection& c, std::chrono::steady_clock::duration after);
  awaitable<bool> StartTls(Connection& c);
  awaitable<size_t> ReadSome(Connection& c, asio::mutable_buffer buf,
                             boost::system::error_code& ec);
  awaitable<void> Serve(std::shared_ptr<Connection> c);
  awaitable<void> Answer(Connection& c, std::string_view data);
  awaitable<void> Flush(Connection& c);
  size_t Consume(Connection& c, std::string_view data);
  size_t WriteThreshold() const;
  void HandleLine(Connection& c, std::string_view line);
  void Refuse(Generic::socket& s, bool control);
  void Finish(std::shared_ptr<Connection> c);
  void MaybeDone();

  asio::io_context& io;
  Dispatcher& dispatcher;
  CommitStep& commit;
  const HelloGate* hello;   // high-availability mode's TCP listener, else null
  asio::ssl::context* tls;  // ha.tls_certificate: the TCP listener speaks TLS, else null
  std::string instance;     // ha.instance: where the TCP listener binds
  SocketsConfig sockets;
  LimitsConfig limits;
  Stream::acceptor event{io}, control{io};
  Tcp::acceptor tcp{io};
  gid_t control_gid = static_cast<gid_t>(-1), event_gid = static_cast<gid_t>(-1);
  std::set<std::shared_ptr<Connection>> conns;
  uint64_t open_event = 0, open_control = 0;  // connections per socket
  ClientLimits fit;                           // the client limits after FitLimits
  int spare_fd = -1;       // held to accept-and-refuse one client when out of descriptors
  uint64_t exhausted = 0;  // accepts that failed for want of descriptors since the last log
  std::chrono::steady_clock::time_point last_exhaustion_log{};
  bool stopping = false;
  std::function<void()> done;
  asio::steady_timer grace;
};

Server::Server(asio::io_context& io, Dispatcher& dispatcher, CommitStep& commit, const Config& cfg,
               const HelloGate* hello, asio::ssl::context* tls)
    : impl_(std::make_unique<Impl>(io, dispatcher, commit, cfg, hello, tls)) {}

Server::~Server() = default;

uint64_t Server::clients() const {
  return impl_->conns.size();
}

void Server::ApplyLimits(const LimitsConfig& limits) {
  impl_->limits = limits;
  impl_->FitLimits();
}

// The client limits against RLIMIT_NOFILE: raised towards the hard limit if
// need be, else clamped, with a warning naming the keys.
void Server::Impl::FitLimits() {
  RaiseFdLimit(limits.max_clients + limits.max_control_clients + kReservedFds);
  std::string note;
  fit = FitClientLimits(limits, FdLimit(), &note);
  if (!note.empty()) spdlog::warn("{}", note);
}

// A socket file left by a daemon that died is removed; a live daemon's socket,
// or a path that is not a socket, is an error.
Status Server::Impl::ClearStale(std::string_view key, const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Status::Ok();
  if (!S_ISSOCK(st.st_mode))
    return Status::FailedPrecondition(std::string(key), path + " exists and is not a socket");
  Stream::socket probe(io);
  boost::system::error_code ec;
  probe.connect(Stream::endpoint(path), ec);
  if (!ec)
    return Status::FailedPrecondition(std::string(key),
                                      path + " is in use by another running daemon");
  if (unlink(path.c_str()) != 0) return Status::IoError(std::string(key), Errno(path));
  return Status::Ok();
}

// The socket is bound, listening, and given its mode and group at PATH.tmp,
// then renamed to PATH: a client that finds the path can connect at once, and
// never meets a socket that refuses it or still has the umask's mode.
Status Server::Impl::Bind(Stream::acceptor& a, std::string_view key, const std::string& path,
                          uint32_t mode, const std::string& group, gid_t* gid) {
  if (path.size() > kMaxSocketPath)
    return Status::InvalidArgument(
        std::string(key), "path is longer than " + std::to_string(kMaxSocketPath) +
                              " bytes (a socket path holds 107, and the daemon binds at PATH" +
                              std::string(kBindSuffix) + " first)");
  const std::string temp = path + std::string(kBindSuffix);
  if (Status s = ClearStale(key, path); !s.ok()) return s;
  if (Status s = ClearStale(key, temp); !s.ok()) return s;
  boost::system::error_code ec;
  a.open(Stream(), ec);
  if (!ec) a.bind(Stream::endpoint(temp), ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IoError(std::string(key), temp + ": " + ec.message());
  Status st = SetOwnership(key, temp, mode, group, gid);
  if (st.ok() && rename(temp.c_str(), path.c_str()) != 0)
    st = Status::IoError(std::string(key), Errno("rename " + temp + " to " + path));
  if (!st.ok()) unlink(temp.c_str());
  return st;
}

// The bound socket's mode, and its group if one is configured.
Status Server::Impl::SetOwnership(std::string_view key, const std::string& path, uint32_t mode,
                                  const std::string& group, gid_t* gid) {
  if (chmod(path.c_str(), mode) != 0) return Status::IoError(std::string(key), Errno(path));
  if (group.empty()) return Status::Ok();
  const struct group* g = getgrnam(group.c_str());
  const std::string group_key = std::string(key.substr(0, key.rfind('_'))) + "_group";
  if (!g) return Status::NotFound(group_key, "unknown group '" + group + "'");
  if (chown(path.c_str(), static_cast<uid_t>(-1), g->gr_gid) != 0)
    return Status::IoError(group_key, Errno("chown " + path));
  *gid = g->gr_gid;
  return Status::Ok();
}

Status Server::Listen() {
  Impl& s = *impl_;
  const SocketsConfig& c = s.sockets;
  s.FitLimits();
  s.spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (Status st = s.Bind(s.event, "sockets.event_path", c.event_path, c.event_mode, c.event_group,
                         &s.event_gid);
      !st.ok())
    return st;
  Status st = s.Bind(s.control, "sockets.control_path", c.control_path, c.control_mode,
                     c.control_group, &s.control_gid);
  const bool control_made = st.ok();
  if (st.ok() && s.hello) st = s.ListenTcp();
  if (!st.ok()) {  // the sockets made so far go too: a failed start leaves no file
    unlink(c.event_path.c_str());
    if (control_made) unlink(c.control_path.c_str());
    return st;
  }
  asio::co_spawn(s.io, s.Accept(s.event, false), asio::detached);
  asio::co_spawn(s.io, s.Accept(s.control, true), asio::detached);
  if (s.hello) asio::co_spawn(s.io, s.AcceptTcp(), asio::detached);
  return Status::Ok();
}

// ha.instance is "IP:PORT" (ValidateConfig checked it).
Status Server::Impl::ListenTcp() {
  const size_t colon = instance.rfind(':');
  std::string host = instance.substr(0, colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  const Tcp::endpoint at(asio::ip::make_address(host, ec),
                         static_cast<uint16_t>(std::stoul(instance.substr(colon + 1))));
  if (!ec) tcp.open(at.protocol(), ec);
  if (!ec) tcp.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) tcp.bind(at, ec);
  if (!ec) tcp.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IoError("ha.instance", instance + ": " + ec.message());
  return Status::Ok();
}

// TCP clients count against the event socket's limit whichever socket their
// hello names; they are authorized only once the hello passed.
awaitable<void> Server::Impl::AcceptTcp() {
  for (;;) {
    boost::system::error_code ec;
    Tcp::socket socket = co_await tcp.async_accept(asio::redirect_error(use_awaitable, ec));
    if (ec == asio::error::operation_aborted || stopping) co_return;
    if (OutOfResources(ec)) {
      asio::steady_timer pause(io);
      pause.expires_after(kAcceptPause);
      co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    if (ec) continue;
    socket.set_option(Tcp::no_delay(true), ec);
    const Tcp::endpoint peer = socket.remote_endpoint(ec);
    std::ostringstream address;  // a.b.c.d:port, or [v6]:port
    if (!ec) address << peer;
    Admit(Generic::socket(std::move(socket)), false, true, AdminRule{}, address.str());
  }
}

// Starts serving an accepted client, or refuses it past its socket's limit.
void Server::Impl::Admit(Generic::socket socket, bool is_control, bool is_tcp,
                         const AdminRule& rule, std::string address) {
  uint64_t& open = is_control ? open_control : open_event;
  if (open >= (is_control ? fit.control : fit.event)) {
    Refuse(socket, is_control);
    return;
  }
  auto c =
      std::make_shared<Connection>(std::move(socket), is_control, is_tcp, is_tcp ? tls : nullptr);
  if (!is_tcp) c->caller = CallerOf(c->socket.native_handle(), is_control, rule);
  c->caller.address = std::move(address);
  conns.insert(c);
  ++open;
  asio::co_spawn(io, Serve(c), asio::detached);
}

// Accept loop of one socket; ends when the acceptor is closed by Stop. Each
// socket counts its own clients against its own limit.
awaitable<void> Server::Impl::Accept(Stream::acceptor& a, bool is_control) {
  AdminRule rule{static_cast<uint32_t>(geteuid()), std::nullopt};
  if (control_gid != static_cast<gid_t>(-1)) rule.admin_group = control_gid;
  for (;;) {
    boost::system::error_code ec;
    Stream::socket socket = co_await a.async_accept(asio::redirect_error(use_awaitable, ec));
    if (ec == asio::error::operation_aborted || stopping) co_return;
    if (OutOfResources(ec)) {
      co_await OutOfFds(a, is_control, ec);
      continue;
    }
    if (ec) continue;  // the client gave up before it was accepted
    Admit(Generic::socket(std::move(socket)), is_control, false, rule);
  }
}

// Out of descriptors: the client at the head of the queue is accepted on the
// spare descriptor and refused with an error line (so it is not left hanging),
// accepting pauses for kAcceptPause instead of spinning on the queued clients,
// and the log says so at most once per kExhaustionLogInterval.
awaitable<void> Server::Impl::OutOfFds(Stream::acceptor& a, bool is_control,
                                       const boost::system::error_code& ec) {
  ++exhausted;
  const auto now = std::chrono::steady_clock::now();
  if (last_exhaustion_log == std::chrono::steady_clock::time_point{} ||
      now - last_exhaustion_log >= kExhaustionLogInterval) {
    spdlog::warn(
        "cannot accept clients on the {} socket: {} ({} failed accepts since the last "
        "report; RLIMIT_NOFILE is {}); refusing them and pausing accepts {} ms at a time",
        is_control ? "control" : "event", ec.message(), exhausted, FdLimit(),
        std::chrono::duration_cast<std::chrono::milliseconds>(kAcceptPause).count());
    last_exhaustion_log = now;
    exhausted = 0;
  }
  RefuseWithSpare(a);
  asio::steady_timer pause(io);
  pause.expires_after(kAcceptPause);
  boost::system::error_code wait_ec;
  co_await pause.async_wait(asio::redirect_error(use_awaitable, wait_ec));
}

void Server::Impl::RefuseWithSpare(Stream::acceptor& a) {
  if (spare_fd < 0) return;
  ::close(spare_fd);
  const int fd = ::accept4(a.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd >= 0) {
    std::string line;
    Dispatcher::AppendError(
        Status::ResourceExhausted("RLIMIT_NOFILE",
                                  "the daemon is out of file descriptors; try again later"),
        &line);
    (void)::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
  }
  spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

void Server::Impl::Refuse(Generic::socket& s, bool is_control) {
  std::string line;
  const char* key = is_control ? "limits.max_control_clients" : "limits.max_clients";
  const uint64_t limit = is_control ? fit.control : fit.event;
  Dispatcher::AppendError(
      Status::ResourceExhausted(key, std::to_string(limit) + " clients are connected to the " +
                                         (is_control ? "control" : "event") + " socket already"),
      &line);
  boost::system::error_code ec;
  s.non_blocking(true, ec);
  asio::write(s, asio::buffer(line), ec);  // best effort; never blocks the loop
  s.close(ec);
}

// The connection's life: wait for a chunk, then also take whatever else has
// already arrived (so a busy client's requests share one write), answer every
// complete line, write the replies, repeat until EOF. Replies are written
// early if they pass limits.client_buffer_bytes.
awaitable<void> Server::Impl::Serve(std::shared_ptr<Connection> c) {
  std::array<char, 65536> buf;
  boost::system::error_code ec;
  c->socket.non_blocking(true, ec);
  bool eof = c->tls && !co_await StartTls(*c);
  while (!eof && !c->stopping) {
    c->reading = true;
    ArmIdle(*c);
    size_t n = co_await ReadSome(*c, asio::buffer(buf), ec);
    c->idle.cancel();
    c->reading = false;
    if (ec) break;
    for (;;) {
      co_await Answer(*c, std::string_view(buf.data(), n));
      // TLS: the stream's synchronous reads cannot take a non-blocking socket's would_block.
      if (c->stopping || c->tls || c->out.size() >= limits.client_buffer_bytes) break;
      n = c->socket.read_some(asio::buffer(buf), ec);  // non-blocking: only what is there
      if (ec) {
        eof = ec != asio::error::would_block;
        break;
      }
    }
    co_await Flush(*c);
  }
  // A last request without its newline (the client closed its side) still gets its answer.
  if (!c->partial.empty() && !c->discarding && !c->stopping) {
    std::string line = std::move(c->partial);
    HandleLine(*c, line);
    co_await Flush(*c);
  }
  Finish(c);
}

// A chunk of the client's bytes, through TLS if it speaks it.
awaitable<size_t> Server::Impl::ReadSome(Connection& c, asio::mutable_buffer buf,
                                         boost::system::error_code& ec) {
  if (c.tls)
    co_return co_await c.tls->async_read_some(buf, asio::redirect_error(use_awaitable, ec));
  co_return co_await c.socket.async_read_some(buf, asio::redirect_error(use_awaitable, ec));
}

// A TCP client's TLS handshake, within kHandshakeTimeout. A client whose first
// byte is not a TLS record (a tcp: address sending its hello in the clear) gets
// one plain error line saying the listener speaks TLS only, after what it sent
// is drained (so the close is not a reset that loses the line). Either failure
// is logged with the peer's address. False: close the connection.
awaitable<bool> Server::Impl::StartTls(Connection& c) {
  boost::system::error_code ec;
  c.reading = true;
  ArmTimeout(c, kHandshakeTimeout);
  co_await c.socket.async_wait(Generic::socket::wait_read, asio::redirect_error(use_awaitable, ec));
  unsigned char first = 0;
  const ssize_t peeked = ec ? -1 : ::recv(c.socket.native_handle(), &first, 1, MSG_PEEK);
  if (peeked < 0 && !ec) ec.assign(errno, boost::system::system_category());
  if (peeked == 1 && first == kTlsHandshakeRecord)
    co_await c.tls->async_handshake(asio::ssl::stream_base::server,
                                    asio::redirect_error(use_awaitable, ec));
  c.idle.cancel();
  c.reading = false;
  if (peeked == 1 && first != kTlsHandshakeRecord) {
    spdlog::warn("refused a plaintext client at {} on the TLS listener (ha.tls_certificate)",
                 c.caller.address);
    std::array<char, 4096> drain;
    while (c.socket.read_some(asio::buffer(drain), ec) > 0) {
    }
    std::string line;
    Dispatcher::AppendError(
        Status::FailedPrecondition("ha.tls_certificate",
                                   "this listener speaks TLS only: connect with tls:" + instance +
                                       " and the CA in $LOCSCHED_TLS_CA or --tls-ca"),
        &line);
    asio::write(c.socket, asio::buffer(line), ec);  // best effort; never blocks the loop
    co_return false;
  }
  if (peeked != 1 || ec) {
    if (!c.stopping)
      spdlog::warn("TLS handshake with {} failed: {}", c.caller.address,
                   peeked == 0 ? "closed before it began" : ec.message());
    co_return false;
  }
  co_return true;
}

// Answers every complete line of data, writing early whenever the replies
// pass WriteThreshold.
awaitable<void> Server::Impl::Answer(Connection& c, std::string_view data) {
  while (!data.empty() && !c.stopping) {
    data.remove_prefix(Consume(c, data));
    if (c.out.size() >= WriteThreshold()) co_await Flush(c);
  }
}

// Reply bytes gathered before they are written. While they wait for the
// journal, a whole burst (group commit: one sync per commit step, up to
// limits.client_buffer_bytes). Otherwise a small chunk, so a pipelining client
// reads replies and sends more requests while the daemon answers the rest of
// its burst, instead of both sides taking turns (docs/benchmarks.md §6).
// Measured under locsched-loadgen (128 in flight): 2 KiB kept the daemon busy
// 100% of the time; 512 B spent it on wakeups, 16 KiB and whole bursts left it
// waiting 30% of the time.
size_t Server::Impl::WriteThreshold() const {
  constexpr size_t kChunkBytes = 2048;
  if (commit.MustWait()) return limits.client_buffer_bytes;
  return std::min(kChunkBytes, limits.client_buffer_bytes);
}

// Replies go out only after the events they acknowledge are in the journal: while
// any event waits for it, the connection parks until the loop's commit step has
// synced (one sync for every connection of the burst).
awaitable<void> Server::Impl::Flush(Connection& c) {
  if (c.out.empty()) co_return;
  boost::system::error_code ec;
  if (commit.MustWait()) {
    commit.Park(c.wake);
    co_await c.wake.async_wait(asio::redirect_error(use_awaitable, ec));
    ec = {};
  }
  // Most writes fit the socket's buffer at once: try without a trip through the
  // event loop (the socket is non-blocking), and wait only for the rest. (Not
  // under TLS: a record half written to a non-blocking socket would be lost.)
  if (c.tls) {
    ArmIdle(c);
    co_await asio::async_write(*c.tls, asio::buffer(c.out),
                               asio::redirect_error(use_awaitable, ec));
    c.idle.cancel();
    c.out.clear();
    if (ec) c.stopping = true;
    co_return;
  }
  const size_t sent = c.socket.write_some(asio::buffer(c.out), ec);
  if (!ec && sent == c.out.size()) {
    c.out.clear();
    co_return;
  }
  if (ec && ec != asio::error::would_block) {
    c.out.clear();
    c.stopping = true;
    co_return;
  }
  ec = {};
  ArmIdle(c);
  co_await asio::async_write(c.socket, asio::buffer(c.out.data() + sent, c.out.size() - sent),
                             asio::redirect_error(use_awaitable, ec));
  c.idle.cancel();
  c.out.clear();
  if (ec) c.stopping = true;
}

// A read or write still waiting after limits.idle_timeout_s is cancelled, which
// ends the connection (an idle client, or one that does not read its replies).
void Server::Impl::ArmIdle(Connection& c) {
  if (limits.idle_timeout_s <= 0) return;
  ArmTimeout(c, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(limits.idle_timeout_s)));
}

// Cancels the connection's pending read or write `after` from now, which ends it.
void Server::Impl::ArmTimeout(Connection& c, std::chrono::steady_clock::duration after) {
  c.idle.expires_after(after);
  c.idle.async_wait([conn = c.shared_from_this()](boost::system::error_code ec) {
    if (ec) return;
    conn->timed_out = true;
    conn->stopping = true;
    boost::system::error_code cancel_ec;
    conn->socket.cancel(cancel_ec);
  });
}

// Answers the complete lines at the front of data; returns how much it used.
// It stops early once the replies pass WriteThreshold, so one client's
// pipelined burst is written out in bounded pieces.
size_t Server::Impl::Consume(Connection& c, std::string_view data) {
  // The lines of one burst share one clock reading, until the commit step.
  // (A slow synchronous command, a snapshot, leaves the lines after it in the
  // same burst with the time read before it.)
  commit.Enter();
  size_t used = 0;
  while (used < data.size() && c.out.size() < WriteThreshold()) {
    const size_t nl = data.find('\n', used);
    const std::string_view piece =
        data.substr(used, nl == std::string_view::npos ? data.npos : nl - used);
    used = nl == std::string_view::npos ? data.size() : nl + 1;
    if (c.discarding) {
      c.discarding = nl == std::string_view::npos;
      continue;
    }
    if (c.partial.size() + piece.size() > limits.max_line_bytes) {
      Dispatcher::AppendError(
          Status::ResourceExhausted(
              "limits.max_line_bytes",
              "request line is longer than " + std::to_string(limits.max_line_bytes) + " bytes"),
          &c.out);
      c.partial.clear();
      c.discarding = nl == std::string_view::npos;
      continue;
    }
    if (nl == std::string_view::npos) {
      c.partial.append(piece);
    } else if (c.partial.empty()) {
      HandleLine(c, piece);
    } else {
      c.partial.append(piece);
      HandleLine(c, c.partial);
      c.partial.clear();
    }
  }
  return used;
}

// Blank lines are skipped (handy for humans typing at socat); a CR before the
// newline is dropped.
void Server::Impl::HandleLine(Connection& c, std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  if (c.tcp && !c.greeted) {
    bool to_control = false;
    if (!hello->Greet(line, &to_control, &c.out)) {
      c.stopping = true;
      return;
    }
    c.greeted = true;
    c.caller.control = to_control;
    c.caller.authorized = true;  // the shared secret is the admin credential on TCP
    return;
  }
  dispatcher.HandleLine(line, c.caller, &c.out);
}

void Server::Impl::Finish(std::shared_ptr<Connection> c) {
  boost::system::error_code ec;
  c->idle.cancel();
  c->socket.close(ec);
  if (conns.erase(c) != 0) --(c->control ? open_control : open_event);
  if (c->timed_out)
    spdlog::debug("closed a {} socket client (uid {}) idle for limits.idle_timeout_s = {} s",
                  c->control ? "control" : "event", c->caller.uid, limits.idle_timeout_s);
  MaybeDone();
}

void Server::Impl::MaybeDone() {
  if (!stopping || !conns.empty() || !done) return;
  grace.cancel();
  unlink(sockets.event_path.c_str());
  unlink(sockets.control_path.c_str());
  auto callback = std::move(done);
  done = nullptr;
  callback();
}

void Server::Stop(double grace_seconds, std::function<void()> done) {
  Impl& s = *impl_;
  s.stopping = true;
  s.done = std::move(done);
  boost::system::error_code ec;
  s.event.close(ec);
  s.control.close(ec);
  s.tcp.close(ec);
  if (s.spare_fd >= 0) ::close(s.spare_fd);
  s.spare_fd = -1;
  // Connections waiting for input end now; one busy writing ends after that write.
  for (const auto& c : s.conns) {
    c->stopping = true;
    if (c->reading) c->socket.cancel(ec);
  }
  s.grace.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(grace_seconds)));
  s.grace.async_wait([&s](boost::system::error_code wait_ec) {
    if (wait_ec) return;
    boost::system::error_code close_ec;
    for (const auto& c : s.conns) c->socket.close(close_ec);  // stuck writers give up
  });
  asio::post(s.io, [&s] { s.MaybeDone(); });
}

}  // namespace locsched
