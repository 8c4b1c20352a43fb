#include "daemon/ha/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace locsched {
namespace {

namespace ssl = boost::asio::ssl;

// OpenSSL's reason for the last failure ("" if it left none), clearing its queue.
std::string OpenSslReason() {
  const unsigned long err = ERR_peek_last_error();
  ERR_clear_error();
  if (err == 0) return "not PEM of the expected kind";
  const char* reason = ERR_reason_error_string(err);
  return reason ? reason : "error " + std::to_string(err);
}

// The file must be readable before OpenSSL sees it: errno says why better than OpenSSL.
Status CheckReadable(const char* key, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(key, path + ": cannot read: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

Status LoadServerTls(const HaConfig& ha, std::unique_ptr<ssl::context>* out) {
  if (Status s = CheckReadable("ha.tls_certificate", ha.tls_certificate); !s.ok()) return s;
  if (Status s = CheckReadable("ha.tls_key", ha.tls_key); !s.ok()) return s;
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  if (SSL_CTX_use_certificate_chain_file(native, ha.tls_certificate.c_str()) != 1)
    return Status::InvalidArgument(
        "ha.tls_certificate",
        ha.tls_certificate + ": not a usable PEM certificate chain: " + OpenSslReason());
  const std::string mismatch =
      ha.tls_key + ": does not match the certificate in " + ha.tls_certificate;
  if (SSL_CTX_use_PrivateKey_file(native, ha.tls_key.c_str(), SSL_FILETYPE_PEM) != 1) {
    const std::string reason = OpenSslReason();
    if (reason == "key values mismatch")  // a good key, but another certificate's
      return Status::InvalidArgument("ha.tls_key", mismatch);
    return Status::InvalidArgument("ha.tls_key",
                                   ha.tls_key + ": not a usable PEM private key: " + reason);
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    ERR_clear_error();
    return Status::InvalidArgument("ha.tls_key", mismatch);
  }
  *out = std::move(ctx);
  return Status::Ok();
}

}  // namespace locsched
