#include "daemon/ha/hello.h"

#include <simdjson.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace locsched {

namespace {

// Compares without stopping at the first difference, so the reply time says
// nothing about how much of a guess was right.
bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

void Refuse(const Status& s, std::string* out) {
  JsonWriter w(out);
  w.BeginObject().Field("ok", false).Key("error").BeginObject();
  w.Field("code", s.code_name()).Field("field", s.subject()).Field("message", s.message());
  w.EndObject().EndObject();
  out->push_back('\n');
}

}  // namespace

bool HelloGate::Greet(std::string_view line, bool* control, std::string* out) const {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  std::string_view op, secret, socket = "event";
  if (parser.parse(line.data(), line.size()).get(obj) != simdjson::SUCCESS ||
      obj["op"].get(op) != simdjson::SUCCESS || op != "hello") {
    Refuse(Status::PermissionDenied("op",
                                    "a TCP connection must open with "
                                    "{\"op\":\"hello\",\"secret\":...}"),
           out);
    return false;
  }
  if (obj["secret"].get(secret) != simdjson::SUCCESS || !SameSecret(secret, secret_)) {
    Refuse(Status::PermissionDenied("secret", "wrong or missing shared secret"), out);
    return false;
  }
  if (obj["socket"].error() == simdjson::SUCCESS &&
      (obj["socket"].get(socket) != simdjson::SUCCESS ||
       (socket != "event" && socket != "control"))) {
    Refuse(Status::InvalidArgument("socket", "must be \"event\" or \"control\""), out);
    return false;
  }
  *control = socket == "control";
  JsonWriter w(out);
  w.BeginObject().Field("ok", true).Field("socket", socket);
  describe_(w);
  w.EndObject();
  out->push_back('\n');
  return true;
}

Status ReadSecretFile(const std::string& path, std::string* secret) {
  std::ifstream in(path);
  std::string line;
  if (!in)
    return Status::InvalidArgument(
        "ha.secret_file", path + ": cannot read the shared secret: " + std::strerror(errno));
  std::getline(in, line);
  const size_t b = line.find_first_not_of(" \t\r");
  const size_t e = line.find_last_not_of(" \t\r");
  *secret = b == std::string::npos ? "" : line.substr(b, e - b + 1);
  if (secret->size() < 16)
    return Status::InvalidArgument("ha.secret_file",
                                   path + ": the shared secret must be at least 16 characters");
  return Status::Ok();
}

}  // namespace locsched
