// The TLS context of high-availability mode's TCP listener: RunDaemon loads it
// once at start from ha.tls_certificate and ha.tls_key (a bad file stops the
// start), and the Server handshakes every TCP connection with it before the
// hello. Read-only after loading; event-loop thread only.
#pragma once

#include <memory>

#include "base/status.h"
#include "config/config.h"

namespace boost::asio::ssl {
class context;
}

namespace locsched {

/// A TLS 1.2+ server context holding the certificate chain and key that `ha`
/// names, checked against each other. The error names the key and the file.
Status LoadServerTls(const HaConfig& ha, std::unique_ptr<boost::asio::ssl::context>* out);

}  // namespace locsched
