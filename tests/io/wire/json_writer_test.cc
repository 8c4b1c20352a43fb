// JsonWriter: output parses back to what was written, commas and escapes right.
#include "io/wire/json_writer.h"

#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>

namespace locsched {
namespace {

TEST_CASE("the json writer nests, separates and escapes") {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Field("s", "a\"b\\c\n\x01").Field("n", uint64_t{18446744073709551615u});
  w.Key("arr").BeginArray().Int(-3).Double(0.1).Bool(false).Null().EndArray();
  w.Key("o").BeginObject().EndObject().EndObject();
  const auto j = nlohmann::json::parse(out);
  CHECK(j["s"] == "a\"b\\c\n\x01");
  CHECK(j["n"] == 18446744073709551615u);
  CHECK(j["arr"] == nlohmann::json::parse("[-3,0.1,false,null]"));
  CHECK(j["o"].empty());
}

TEST_CASE("every byte below 0x80, alone and between plain runs, round-trips") {
  for (int c = 1; c < 0x80; ++c) {
    const std::string text = "ab" + std::string(1, static_cast<char>(c)) + "cd";
    std::string out;
    AppendJsonString(text, &out);
    INFO(c);
    CHECK(nlohmann::json::parse(out) == text);
  }
}

TEST_CASE("keys and strings are escaped or copied whole alike") {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Field("plain", "").Field("", "x").Field("a\"b\n", "c\\d").EndObject();
  const auto j = nlohmann::json::parse(out);
  CHECK(j == nlohmann::json{{"plain", ""}, {"", "x"}, {"a\"b\n", "c\\d"}});
}

TEST_CASE("non-finite numbers become null") {
  std::string out;
  JsonWriter(&out).Double(std::numeric_limits<double>::infinity());
  CHECK(out == "null");
}

TEST_CASE("resuming an open object adds the comma") {
  std::string out = "{\"ok\":true";
  JsonWriter w(&out);
  w.ResumeObject(true);
  w.Field("x", uint64_t{1});
  out += "}";
  CHECK(out == "{\"ok\":true,\"x\":1}");
}

// The first 64 levels keep their comma state in a word, deeper ones on the heap:
// nesting across that boundary, with values before and after each inner array.
TEST_CASE("commas stay right at every depth, past 64 levels") {
  for (const int depth : {1, 63, 64, 65, 130}) {
    std::string out;
    JsonWriter w(&out);
    for (int d = 0; d < depth; ++d) w.BeginArray().Uint(static_cast<uint64_t>(d));
    for (int d = depth - 1; d >= 0; --d) w.Uint(static_cast<uint64_t>(d + 1000)).EndArray();
    nlohmann::json expected = nlohmann::json::array({depth - 1, depth - 1 + 1000});
    for (int d = depth - 2; d >= 0; --d) expected = nlohmann::json::array({d, expected, d + 1000});
    INFO(depth);
    CHECK(nlohmann::json::parse(out) == expected);
  }
}

}  // namespace
}  // namespace locsched
