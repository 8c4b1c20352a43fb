// HelloGate: the TCP hello's secret check, socket choice and reply.
#include "daemon/ha/hello.h"

#include <catch2/catch.hpp>
#include <fstream>

namespace locsched {
namespace {

HelloGate Gate() {
  return HelloGate("0123456789abcdef", [](JsonWriter& w) { w.Field("role", "standby"); });
}

TEST_CASE("a hello with the secret is let in, on the socket it names") {
  std::string out;
  bool control = true;
  CHECK(Gate().Greet(R"({"op":"hello","secret":"0123456789abcdef"})", &control, &out));
  CHECK_FALSE(control);
  CHECK(out == "{\"ok\":true,\"socket\":\"event\",\"role\":\"standby\"}\n");
  out.clear();
  CHECK(Gate().Greet(R"({"op":"hello","secret":"0123456789abcdef","socket":"control"})", &control,
                     &out));
  CHECK(control);
}

TEST_CASE("a wrong secret, no hello or a bad socket closes the connection") {
  std::string out;
  bool control = false;
  CHECK_FALSE(Gate().Greet(R"({"op":"hello","secret":"0123456789abcdeX"})", &control, &out));
  CHECK(out.find("\"field\":\"secret\"") != std::string::npos);
  out.clear();
  CHECK_FALSE(Gate().Greet(R"({"op":"status"})", &control, &out));
  CHECK(out.find("permission_denied") != std::string::npos);
  out.clear();
  CHECK_FALSE(
      Gate().Greet(R"({"op":"hello","secret":"0123456789abcdef","socket":"x"})", &control, &out));
  CHECK(out.find("\"field\":\"socket\"") != std::string::npos);
}

TEST_CASE("the secret file must hold at least 16 characters") {
  const std::string path = "/tmp/locsched-hello-test-secret";
  std::string secret;
  std::ofstream(path) << "short\n";
  CHECK(ReadSecretFile(path, &secret).subject() == "ha.secret_file");
  std::ofstream(path) << "  0123456789abcdef  \n";
  REQUIRE(ReadSecretFile(path, &secret).ok());
  CHECK(secret == "0123456789abcdef");
  std::remove(path.c_str());
  CHECK_FALSE(ReadSecretFile(path, &secret).ok());
}

}  // namespace
}  // namespace locsched
