// LineClient: a blocking client of locschedd's newline-delimited JSON sockets, in
// plain POSIX (no Asio; OpenSSL for tls: addresses). Shared by locschedctl, the
// log tailer, the cluster emulator and the load generator. One thread may Send
// while another ReadLines (they touch disjoint state), except over TLS, where
// one OpenSSL connection serves both; any other sharing needs the caller's lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

struct ssl_st;  // OpenSSL's SSL

namespace locsched {

struct ClientTls;  // client.cc: the CA a tls: address is verified against

/// True for "tcp:..." and "tls:..." (the instances of a high-availability cluster).
bool IsClusterAddress(std::string_view address);

/// The CA file that verifies tls: addresses, as --tls-ca gives it: it overrides
/// $LOCSCHED_TLS_CA for the rest of the process. Call before connecting.
void UseTlsCa(const std::string& file);

/// A connection to a Unix stream socket that speaks one line per message.
class LineClient {
 public:
  /// An unconnected client.
  LineClient() = default;
  /// Closes the socket.
  ~LineClient();
  /// Not copyable: one owner per socket.
  LineClient(const LineClient&) = delete;
  /// Not copyable: one owner per socket.
  LineClient& operator=(const LineClient&) = delete;
  /// Takes over the other client's socket and buffered input.
  LineClient(LineClient&& other) noexcept;
  /// Closes this socket and takes over the other's.
  LineClient& operator=(LineClient&& other) noexcept;

  /// Connects to the Unix socket at `path`; the error names the path. An address
  /// "tcp:HOST:PORT[,HOST:PORT...]" names the instances of a high-availability
  /// cluster instead: each is tried in turn with a hello (the shared secret read
  /// from the file in $LOCSCHED_SECRET_FILE) for the given `socket` ("event" or
  /// "control") until the active one answers; a standby's reply names the active,
  /// which is tried next. `permission_denied` means retrying cannot help: the Unix
  /// socket refused this user (EACCES), or the secret is missing, unreadable or
  /// refused (the message names the file and $LOCSCHED_SECRET_FILE).
  /// "tls:HOST:PORT[,...]" is the same over TLS: each instance's certificate must
  /// chain to the CA in $LOCSCHED_TLS_CA (or UseTlsCa's file) and name HOST (a DNS
  /// name or IP address in its subjectAltName) before the secret is sent. A CA
  /// that is missing or unreadable, or a certificate it does not verify, is
  /// `permission_denied` (the message names the CA file and the reason); a listener
  /// that does not speak TLS fails the handshake (io_error, naming the address).
  Status Connect(const std::string& path, std::string_view socket = "event");
  /// Adopts an already connected stream socket (tests use a socketpair); takes ownership.
  void Adopt(int fd, std::string name);
  /// Closes the socket (safe to call twice).
  void Close();
  /// True while a socket is open.
  bool connected() const { return fd_ >= 0; }
  /// The socket descriptor, or -1.
  int fd() const { return fd_; }

  /// Gives up a ReadLine that waits longer than `timeout` for data; zero (default) waits forever.
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  /// Refuses reply lines longer than `bytes` (default 64 MiB) instead of buffering them.
  void set_max_line_bytes(size_t bytes) { max_line_bytes_ = bytes; }

  /// Sends `line` plus a newline; retries partial writes and EINTR.
  Status Send(std::string_view line);
  /// Sends `bytes` exactly as given (several lines already ending in '\n').
  Status SendRaw(std::string_view bytes);
  /// Reads the next line, without its newline, into *out; end of stream is an error.
  Status ReadLine(std::string* out);
  /// True if a whole line is buffered, so the next ReadLine will not touch the socket.
  bool LineBuffered() const;
  /// Sends one request line and reads its reply line.
  Status Call(std::string_view line, std::string* reply);
  /// Pipelines `lines`, at most `window` unanswered at a time; replies come back in order.
  Status CallBatch(const std::vector<std::string>& lines, std::vector<std::string>* replies,
                   size_t window = 1024);

 private:
  Status WaitReadable();
  Status ConnectTcp(const std::string& scheme, const std::string& list, std::string_view socket);
  Status Open(const std::string& address, const ClientTls* tls);
  Status StartTls(const std::string& address, const ClientTls& tls);
  Status Hello(const std::string& address, std::string_view socket, const std::string& secret,
               std::string* active);
  Status Fill();
  long Receive(char* data, size_t size);  // recv(2), or SSL_read under TLS; -1 sets errno

  int fd_ = -1;
  ssl_st* ssl_ = nullptr;  // the TLS connection over fd_ (a tls: address), else null
  std::string name_;
  std::vector<char> in_;  // in_[in_begin_, in_end_) was read but not yet returned
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
  std::chrono::milliseconds timeout_{0};
  size_t max_line_bytes_ = size_t{64} << 20;
};

}  // namespace locsched
