// HelloGate: the first line of every TCP connection in high-availability mode,
// {"op":"hello","secret":"...","socket":"event"|"control"}. A wrong or missing
// secret closes the connection; a good one makes the peer an authorized client
// of the named socket and is answered with this instance's role and the active's
// address, so a client that reached a standby knows where to go. The Server
// calls it; event-loop thread only.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "io/wire/json_writer.h"

namespace locsched {

/// Checks hellos against the shared secret.
class HelloGate {
 public:
  /// Writes the reply's role fields ("role", "instance", "active").
  using Describe = std::function<void(JsonWriter&)>;

  /// Accepts hellos carrying `secret`; `describe` fills the role fields of the reply.
  HelloGate(std::string secret, Describe describe)
      : secret_(std::move(secret)), describe_(std::move(describe)) {}

  /// Answers one hello line into *out. True if the peer may go on, as a client of
  /// the control socket if *control; false: close after the error reply.
  bool Greet(std::string_view line, bool* control, std::string* out) const;

 private:
  std::string secret_;
  Describe describe_;
};

/// Reads the shared secret from `path` (its first line, whitespace trimmed); the
/// error names ha.secret_file. A secret shorter than 16 bytes is refused.
Status ReadSecretFile(const std::string& path, std::string* secret);

}  // namespace locsched
