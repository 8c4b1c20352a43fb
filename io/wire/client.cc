#include "io/wire/client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <utility>

namespace locsched {
namespace {

constexpr size_t kReadChunk = 64 * 1024;

std::string ErrnoText(int err) {
  return std::strerror(err);
}

std::string tls_ca_flag;  // UseTlsCa's file (--tls-ca), else "" for $LOCSCHED_TLS_CA

// OpenSSL's reason for its last failure (`fallback` if it left none), clearing its queue.
std::string OpenSslReason(const char* fallback) {
  const unsigned long err = ERR_peek_last_error();
  ERR_clear_error();
  const char* reason = err != 0 ? ERR_reason_error_string(err) : nullptr;
  return reason ? reason : fallback;
}

}  // namespace

bool IsClusterAddress(std::string_view address) {
  return address.starts_with("tcp:") || address.starts_with("tls:");
}

void UseTlsCa(const std::string& file) {
  tls_ca_flag = file;
}

// The CA of a tls: address, and the client context that verifies against it.
struct ClientTls {
  std::string source;  // where the CA file came from: "--tls-ca" or "LOCSCHED_TLS_CA"
  std::string ca_file;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx{nullptr, SSL_CTX_free};
};

namespace {

// A TLS 1.2+ context trusting only the CA file that --tls-ca or $LOCSCHED_TLS_CA
// names. Every failure is permission_denied naming the flag or variable: without
// the CA no instance can be trusted with the secret.
Status LoadClientTls(ClientTls* tls) {
  const char* env = std::getenv("LOCSCHED_TLS_CA");
  tls->source = tls_ca_flag.empty() ? "LOCSCHED_TLS_CA" : "--tls-ca";
  tls->ca_file = !tls_ca_flag.empty() ? tls_ca_flag : env ? env : "";
  if (tls->ca_file.empty())
    return Status::PermissionDenied(
        "LOCSCHED_TLS_CA",
        "is not set (nor --tls-ca given); a tls: address needs it to name the CA certificate "
        "that signed the daemons' ha.tls_certificate");
  if (std::ifstream in(tls->ca_file); !in)
    return Status::PermissionDenied(
        tls->source, tls->ca_file + ": cannot read the CA certificate: " + ErrnoText(errno));
  tls->ctx.reset(SSL_CTX_new(TLS_client_method()));
  SSL_CTX* ctx = tls->ctx.get();
  if (!ctx) return Status::IoError("tls", "cannot make a TLS context: " + OpenSslReason("?"));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // The daemon closes without a close_notify; lines are whole or reported cut.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_load_verify_locations(ctx, tls->ca_file.c_str(), nullptr) != 1)
    return Status::PermissionDenied(tls->source, tls->ca_file + ": not a PEM CA certificate: " +
                                                     OpenSslReason("no certificate in it"));
  return Status::Ok();
}

// A BIO over a socket that writes with MSG_NOSIGNAL, as SendRaw does: a daemon
// that went away is an error, not a SIGPIPE. The descriptor is its data.
int SocketFd(BIO* bio) {
  return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
}

int BioWrite(BIO* bio, const char* data, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t n;
  do {
    n = ::send(SocketFd(bio), data, static_cast<size_t>(size), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
  return static_cast<int>(n);
}

int BioRead(BIO* bio, char* data, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t n;
  do {
    n = ::recv(SocketFd(bio), data, static_cast<size_t>(size), 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
  return static_cast<int>(n);
}

long BioCtrl(BIO*, int cmd, long, void*) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

const BIO_METHOD* NoSignalSocket() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "locsched socket");
    BIO_meth_set_write(m, BioWrite);
    BIO_meth_set_read(m, BioRead);
    BIO_meth_set_ctrl(m, BioCtrl);
    return m;
  }();
  return method;
}

// Bounds the socket's blocking reads and writes (the TLS handshake); 0 = none.
void SetSocketTimeouts(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

LineClient::~LineClient() {
  Close();
}

LineClient::LineClient(LineClient&& other) noexcept {
  *this = std::move(other);
}

LineClient& LineClient::operator=(LineClient&& other) noexcept {
  if (this == &other) return *this;
  Close();
  fd_ = std::exchange(other.fd_, -1);
  ssl_ = std::exchange(other.ssl_, nullptr);
  name_ = std::move(other.name_);
  in_ = std::move(other.in_);
  in_begin_ = std::exchange(other.in_begin_, 0);
  in_end_ = std::exchange(other.in_end_, 0);
  timeout_ = other.timeout_;
  max_line_bytes_ = other.max_line_bytes_;
  return *this;
}

Status LineClient::Connect(const std::string& path, std::string_view socket) {
  if (IsClusterAddress(path)) return ConnectTcp(path.substr(0, 4), path.substr(4), socket);
  Close();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return Status::InvalidArgument(path, "not a usable Unix socket path (empty or too long)");
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(path, "socket() failed: " + ErrnoText(errno));
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    const int err = errno;
    ::close(fd);
    if (err == EACCES)  // the socket's mode or group: retrying will not help
      return Status::PermissionDenied(path, "cannot connect: " + ErrnoText(err));
    return Status::IoError(path, "cannot connect: " + ErrnoText(err));
  }
  Adopt(fd, path);
  return Status::Ok();
}

namespace {

// The HOST of "HOST:PORT" or "[ADDR]:PORT" (whose colon is at `colon`).
std::string HostOf(const std::string& address, size_t colon) {
  std::string host = address.substr(0, colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  return host;
}

// A TCP connection to "HOST:PORT" (IPv6 as "[ADDR]:PORT") within `timeout_ms`.
Status DialTcp(const std::string& address, int timeout_ms, int* out) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument(address, "is not HOST:PORT");
  const std::string host = HostOf(address, colon);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), address.c_str() + colon + 1, &hints, &res); rc != 0)
    return Status::InvalidArgument(address, gai_strerror(rc));
  const int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // bounds connect()
  int rc;
  do {
    rc = ::connect(fd, res->ai_addr, res->ai_addrlen);
  } while (rc < 0 && errno == EINTR);
  const int err = errno;
  freeaddrinfo(res);
  if (rc < 0) {
    ::close(fd);
    return Status::IoError(address, "cannot connect: " + ErrnoText(err));
  }
  timeval none{};
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
  const int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  *out = fd;
  return Status::Ok();
}

// The shared secret from the file $LOCSCHED_SECRET_FILE names (its first line, trimmed),
// and that file's name in *file. Every failure is permission_denied naming the
// variable and the file: without the secret no instance lets the client in.
Status ReadSecret(std::string* secret, std::string* file) {
  const char* path = std::getenv("LOCSCHED_SECRET_FILE");
  if (!path || !*path)
    return Status::PermissionDenied(
        "LOCSCHED_SECRET_FILE",
        "is not set; a tcp: address needs it to name the file holding the cluster's "
        "shared secret (the daemon's ha.secret_file)");
  *file = path;
  std::ifstream in(path);
  if (!in)
    return Status::PermissionDenied("LOCSCHED_SECRET_FILE",
                                    *file + ": cannot read the shared secret: " + ErrnoText(errno));
  std::getline(in, *secret);
  const size_t b = secret->find_first_not_of(" \t\r");
  const size_t e = secret->find_last_not_of(" \t\r");
  *secret = b == std::string::npos ? "" : secret->substr(b, e - b + 1);
  if (secret->empty())
    return Status::PermissionDenied("LOCSCHED_SECRET_FILE",
                                    *file + ": holds no shared secret (its first line is empty)");
  return Status::Ok();
}

// The value of "key":"..." in a reply line ("" if absent or null).
std::string StringField(const std::string& line, const std::string& key) {
  const std::string pattern = "\"" + key + "\":\"";
  const size_t at = line.find(pattern);
  if (at == std::string::npos) return "";
  const size_t from = at + pattern.size();
  return line.substr(from, line.find('"', from) - from);
}

}  // namespace

// Connects to one instance, and starts TLS with it if `tls` is given.
Status LineClient::Open(const std::string& address, const ClientTls* tls) {
  int fd = -1;
  if (Status s = DialTcp(address, 1000, &fd); !s.ok()) return s;
  Adopt(fd, address);
  if (!tls) return Status::Ok();
  Status s = StartTls(address, *tls);
  if (!s.ok()) Close();
  return s;
}

// The TLS handshake within 2 s, verifying that the instance's certificate chains
// to the CA and names the host of `address` (an IP address or a DNS name).
Status LineClient::StartTls(const std::string& address, const ClientTls& tls) {
  ssl_ = SSL_new(tls.ctx.get());
  BIO* bio = BIO_new(NoSignalSocket());
  if (!ssl_ || !bio) {
    BIO_free(bio);
    return Status::IoError(address, "cannot start TLS: " + OpenSslReason("out of memory"));
  }
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd_)));
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);
  const std::string host = HostOf(address, address.rfind(':'));
  in6_addr ip{};
  if (inet_pton(AF_INET, host.c_str(), &ip) == 1 || inet_pton(AF_INET6, host.c_str(), &ip) == 1) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
  } else {
    // SSL_set_tlsext_host_name, without its macro's C cast: the name sent for SNI.
    SSL_ctrl(ssl_, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(host.c_str()));
    SSL_set1_host(ssl_, host.c_str());
  }
  SetSocketTimeouts(fd_, 2000);
  const int rc = SSL_connect(ssl_);
  const int err = errno;
  SetSocketTimeouts(fd_, 0);
  if (rc == 1) return Status::Ok();
  if (const long verify = SSL_get_verify_result(ssl_); verify != X509_V_OK)
    return Status::PermissionDenied(address, std::string("its certificate failed verification ") +
                                                 "against the CA in " + tls.ca_file + " (" +
                                                 tls.source +
                                                 "): " + X509_verify_cert_error_string(verify));
  if (SSL_get_error(ssl_, rc) == SSL_ERROR_SYSCALL && (err == EAGAIN || err == EWOULDBLOCK))
    return Status::IoError(address,
                           "no TLS handshake within 2000 ms (does its listener have "
                           "ha.tls_certificate?)");
  return Status::IoError(address, "TLS handshake failed: " + OpenSslReason("connection closed") +
                                      " (does its listener have ha.tls_certificate?)");
}

// Asks the instance just opened its role; Ok only if it is the active one.
// *active is who it says is active ("" if it does not know).
Status LineClient::Hello(const std::string& address, std::string_view socket,
                         const std::string& secret, std::string* active) {
  std::string reply, line = "{\"op\":\"hello\",\"secret\":\"";
  for (char ch : secret) {  // a JSON string: quotes and backslashes escaped
    if (ch == '"' || ch == '\\') line.push_back('\\');
    line.push_back(ch);
  }
  line.append("\",\"socket\":\"").append(socket).append("\"}");
  const auto saved = timeout_;
  timeout_ = std::chrono::milliseconds(2000);
  Status s = Call(line, &reply);
  timeout_ = saved;
  if (s.ok() && reply.rfind("{\"ok\":true", 0) != 0) {
    // The daemon's error, without its JSON: a refused secret is permission_denied.
    const std::string said = StringField(reply, "message");
    s = StringField(reply, "code") == "permission_denied"
            ? Status::PermissionDenied(address, said)
            : Status::IoError(address, "refused the hello: " + said);
  }
  *active = StringField(reply, "active");
  if (s.ok() && StringField(reply, "role") != "active")
    s = Status::FailedPrecondition(
        address,
        "is a standby (the active is " + (active->empty() ? "not known yet" : *active) + ")");
  if (!s.ok()) Close();
  return s;
}

// Tries the listed instances, and the active a standby names, once each, all
// with the scheme given ("tcp:" or "tls:").
Status LineClient::ConnectTcp(const std::string& scheme, const std::string& list,
                              std::string_view socket) {
  Close();
  std::string secret, file;
  if (Status s = ReadSecret(&secret, &file); !s.ok()) return s;
  std::unique_ptr<ClientTls> tls;
  if (scheme == "tls:") {
    tls = std::make_unique<ClientTls>();
    if (Status s = LoadClientTls(tls.get()); !s.ok()) return s;
  }
  std::deque<std::string> queue;
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    if (comma > at) queue.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  std::vector<std::string> tried;
  std::string reasons;
  while (!queue.empty()) {
    const std::string address = queue.front();
    queue.pop_front();
    if (std::find(tried.begin(), tried.end(), address) != tried.end()) continue;
    tried.push_back(address);
    std::string active;
    Status s = Open(address, tls.get());
    if (s.code() == Status::Code::kPermissionDenied) return s;  // the CA refused it: no retry
    if (s.ok()) s = Hello(address, socket, secret, &active);
    if (s.ok()) return s;
    if (s.code() == Status::Code::kPermissionDenied)  // a wrong secret stays wrong: no retry
      return Status::PermissionDenied(address, "refused the shared secret in " + file +
                                                   " ($LOCSCHED_SECRET_FILE); it must "
                                                   "match the daemon's ha.secret_file");
    reasons += (reasons.empty() ? "" : "; ") + s.message();
    if (!active.empty()) queue.push_front(active);
  }
  return Status::IoError(scheme + list, "no active instance: " + reasons);
}

void LineClient::Adopt(int fd, std::string name) {
  Close();
  fd_ = fd;
  name_ = std::move(name);
}

void LineClient::Close() {
  if (ssl_) {
    if (SSL_is_init_finished(ssl_)) (void)SSL_shutdown(ssl_);  // a close_notify, not awaited
    SSL_free(ssl_);
    ssl_ = nullptr;
    ERR_clear_error();
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  in_begin_ = in_end_ = 0;
}

Status LineClient::Send(std::string_view line) {
  // One write for the line and its newline: a copy is cheaper than a second syscall.
  std::string buf;
  buf.reserve(line.size() + 1);
  buf.append(line);
  buf.push_back('\n');
  return SendRaw(buf);
}

Status LineClient::SendRaw(std::string_view bytes) {
  if (fd_ < 0) return Status::FailedPrecondition(name_.empty() ? "client" : name_, "not connected");
  while (ssl_ && !bytes.empty()) {
    size_t n = 0;
    if (SSL_write_ex(ssl_, bytes.data(), bytes.size(), &n) != 1)
      return Status::IoError(name_, "write failed: " + OpenSslReason(ErrnoText(errno).c_str()));
    bytes.remove_prefix(n);
  }
  while (!bytes.empty()) {
    // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE.
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(name_, "write failed: " + ErrnoText(errno));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status LineClient::WaitReadable() {
  if (timeout_.count() <= 0 || (ssl_ && SSL_pending(ssl_) > 0)) return Status::Ok();
  pollfd p{fd_, POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout_.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return Status::IoError(name_, "poll failed: " + ErrnoText(errno));
  if (rc == 0)
    return Status::IoError(name_, "no reply within " + std::to_string(timeout_.count()) + " ms");
  return Status::Ok();
}

// Reads at least one more byte into in_, first moving the unreturned bytes to the front.
Status LineClient::Fill() {
  if (in_begin_ > 0) {
    std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  if (in_.size() - in_end_ < kReadChunk) in_.resize(std::max(in_.size() * 2, in_end_ + kReadChunk));
  if (Status s = WaitReadable(); !s.ok()) return s;
  const long n = Receive(in_.data() + in_end_, in_.size() - in_end_);
  if (n < 0) return Status::IoError(name_, "read failed: " + ErrnoText(errno));
  if (n == 0)
    return Status::IoError(name_, in_end_ == 0 ? "connection closed by the peer"
                                               : "connection closed in the middle of a line");
  in_end_ += static_cast<size_t>(n);
  return Status::Ok();
}

long LineClient::Receive(char* data, size_t size) {
  if (!ssl_) {
    ssize_t n;
    do {
      n = ::recv(fd_, data, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  size_t got = 0;
  const int rc = SSL_read_ex(ssl_, data, size, &got);
  if (rc == 1) return static_cast<long>(got);
  const int err = SSL_get_error(ssl_, rc);
  ERR_clear_error();
  if (err == SSL_ERROR_ZERO_RETURN) return 0;  // the daemon closed (with or without close_notify)
  if (err != SSL_ERROR_SYSCALL || errno == 0) errno = EPROTO;
  return -1;
}

Status LineClient::ReadLine(std::string* out) {
  if (fd_ < 0) return Status::FailedPrecondition(name_.empty() ? "client" : name_, "not connected");
  size_t scanned = 0;  // unreturned bytes already known to hold no newline
  for (;;) {
    const char* begin = in_.data() + in_begin_;
    const size_t avail = in_end_ - in_begin_;
    const void* nl =
        avail > scanned ? std::memchr(begin + scanned, '\n', avail - scanned) : nullptr;
    if (nl != nullptr) {
      const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - begin);
      out->assign(begin, len);
      in_begin_ += len + 1;
      return Status::Ok();
    }
    if (avail > max_line_bytes_)
      return Status::ResourceExhausted(
          name_, "reply line longer than " + std::to_string(max_line_bytes_) + " bytes");
    scanned = avail;
    if (Status s = Fill(); !s.ok()) return s;
  }
}

bool LineClient::LineBuffered() const {
  return in_end_ > in_begin_ &&
         std::memchr(in_.data() + in_begin_, '\n', in_end_ - in_begin_) != nullptr;
}

Status LineClient::Call(std::string_view line, std::string* reply) {
  if (Status s = Send(line); !s.ok()) return s;
  return ReadLine(reply);
}

Status LineClient::CallBatch(const std::vector<std::string>& lines,
                             std::vector<std::string>* replies, size_t window) {
  window = std::max<size_t>(window, 1);
  replies->resize(lines.size());
  size_t sent = 0;
  std::string buf;
  // Sends lines up to index `limit` (exclusive) in one write.
  auto send_upto = [&](size_t limit) {
    buf.clear();
    for (; sent < limit; ++sent) buf.append(lines[sent]).push_back('\n');
    return SendRaw(buf);
  };
  if (Status s = send_upto(std::min(lines.size(), window)); !s.ok()) return s;
  const size_t refill = std::max<size_t>(window / 2, 1);  // top up when half are answered
  for (size_t got = 0; got < lines.size(); ++got) {
    if (Status s = ReadLine(&(*replies)[got]); !s.ok()) return s;
    const size_t answered = got + 1;
    if (sent < lines.size() && sent - answered <= window - refill) {
      if (Status s = send_upto(std::min(lines.size(), answered + window)); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

}  // namespace locsched
