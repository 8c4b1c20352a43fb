// Tests io/wire/command_table and io/wire/request: every command decodes from its table
// row, every malformed input is rejected with the offending field's path, and
// mutated lines never crash the decoder.
#include "io/wire/request.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "base/rng.h"
#include "tests/io/wire/mutate_line.h"

namespace locsched {
namespace {

using json = nlohmann::json;

json SampleValue(FieldType type) {
  switch (type) {
    case FieldType::kName:
      return "m1";
    case FieldType::kString:
      return "text";
    case FieldType::kCount:
      return 3;
    case FieldType::kPositive:
      return 2;
    case FieldType::kNumber:
      return 1.5;
    case FieldType::kBool:
      return false;
    case FieldType::kKind:
      return "reduce";
    case FieldType::kNames:
      return json::array({"m1", "m2"});
    case FieldType::kTasks:
      return json::array({{{"task", "t0"}, {"replicas", {"m1", "m2", "m3"}}},
                          {{"task", "t1"}, {"replicas", {"m2"}}, {"kind", "reduce"}}});
  }
  return nullptr;
}

json FullRequest(const CommandSpec& spec) {
  json obj = {{"op", std::string(spec.name)}};
  for (const FieldSpec& f : spec.fields) obj[std::string(f.name)] = SampleValue(f.type);
  return obj;
}

Status Decode(const json& obj, Request* r) {
  return DecodeRequest(obj.dump(), r);
}

// The message of decoding `obj`, which must fail.
std::string ErrorOf(const json& obj) {
  Request r;
  const Status s = Decode(obj, &r);
  REQUIRE_FALSE(s.ok());
  return s.message();
}

TEST_CASE("CommandTable: names are unique, rows follow Op order, every op has a socket",
          "[io][command_table]") {
  std::set<std::string_view> names;
  for (size_t i = 0; i < CommandTable().size(); ++i) {
    const CommandSpec& c = CommandTable()[i];
    CHECK(names.insert(c.name).second);
    CHECK(static_cast<size_t>(c.op) == i);
    CHECK((c.flags & (kEventSocket | kControlSocket)) != 0);
    CHECK(&SpecOf(c.op) == &c);
    CHECK(FindCommand(c.name) == &c);
    CHECK_FALSE(c.summary.empty());
  }
  CHECK(FindCommand("nope") == nullptr);
}

TEST_CASE("Request: every command decodes from its own table row", "[io][request]") {
  for (const CommandSpec& spec : CommandTable()) {
    INFO(spec.name);
    Request r;
    REQUIRE(Decode(FullRequest(spec), &r).ok());
    CHECK(r.op == spec.op);
    json minimal = {{"op", std::string(spec.name)}};
    for (const FieldSpec& f : spec.fields)
      if (f.required) minimal[std::string(f.name)] = SampleValue(f.type);
    CHECK(Decode(minimal, &r).ok());
  }
}

TEST_CASE("Request: job_submit fills tasks, replicas and kinds", "[io][request]") {
  Request r;
  REQUIRE(Decode(FullRequest(*FindCommand("job_submit")), &r).ok());
  CHECK(r.job == "m1");
  CHECK(r.weight == 1.5);
  REQUIRE(r.tasks.size() == 2);
  CHECK(r.tasks[0].replicas == std::vector<std::string>{"m1", "m2", "m3"});
  CHECK(r.tasks[0].kind == TaskKind::kMap);
  CHECK(r.tasks[1].kind == TaskKind::kReduce);
}

TEST_CASE("Request: Clear restores every field a decode may set", "[io][request]") {
  // A decoder reuses its Request: a field Clear forgot would leak into the next line.
  for (const CommandSpec& spec : CommandTable()) {
    INFO(spec.name);
    json full = FullRequest(spec);
    full["id"] = 7;
    Request r;
    REQUIRE(Decode(full, &r).ok());
    r.Clear();
    CHECK(r == Request{});
  }
  Request r;
  r.has_id = r.id_is_number = true;
  r.drain = false;
  r.finished = true;
  r.Clear();
  CHECK(r == Request{});
}

TEST_CASE("Request: a number out of 64-bit range is reported by its field", "[io][request]") {
  Request r;
  CHECK(DecodeRequest(R"({"op":"heartbeat","machine":"a","free_slots":18446744073709551616})", &r)
            .message() == "free_slots: 18446744073709551616 is out of range of a 64-bit number");
  CHECK(DecodeRequest(R"({"op":"heartbeat","machine":"a","free_slots":18446744073709551615})", &r)
            .ok());
  CHECK(DecodeRequest(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m"]},)"
                      R"({"task":"b","replicas":["m"],"size":1e999}]})",
                      &r)
            .message() == "tasks[1].size: 1e999 is out of range of a 64-bit number");
  CHECK(
      DecodeRequest(R"({"op":"job_submit","id":-99999999999999999999,"job":"j"})", &r).message() ==
      "id: -99999999999999999999 is out of range of a 64-bit number");
  CHECK(DecodeRequest(R"({"op":"status","x":[1,{"y":[2,3e400]}]})", &r).message() ==
        "x[1].y[1]: 3e400 is out of range of a 64-bit number");
  // Not a number problem: still the line as a whole.
  CHECK(DecodeRequest(R"({"op":"status",)", &r).message() == "request: is not valid JSON");
}

TEST_CASE("Request: RequestHash ignores the id and spelling, sees every field", "[io][request]") {
  Request a, b;
  REQUIRE(DecodeRequest(R"({"op":"heartbeat","id":1,"machine":"a","free_slots":2})", &a).ok());
  REQUIRE(DecodeRequest(R"({ "free_slots": 2, "machine": "a", "op": "heartbeat", "id": "z" })", &b)
              .ok());
  CHECK(RequestHash(a) == RequestHash(b));
  REQUIRE(DecodeRequest(R"({"op":"heartbeat","machine":"a","free_slots":3})", &b).ok());
  CHECK(RequestHash(a) != RequestHash(b));
  REQUIRE(
      DecodeRequest(R"({"op":"job_submit","job":"j","tasks":[{"task":"ab","replicas":["c"]}]})", &a)
          .ok());
  REQUIRE(
      DecodeRequest(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["bc"]}]})", &b)
          .ok());
  CHECK(RequestHash(a) != RequestHash(b));
}

TEST_CASE("Request: defaults apply when optional fields are absent", "[io][request]") {
  Request r;
  REQUIRE(Decode({{"op", "machine_up"}, {"machine", "a"}}, &r).ok());
  CHECK(r.slots == 1);
  CHECK_FALSE(r.has_id);
  REQUIRE(Decode({{"op", "machine_drain"}, {"machine", "a"}}, &r).ok());
  CHECK(r.drain);
}

TEST_CASE("Request: ids are strings or non-negative integers", "[io][request]") {
  Request r;
  REQUIRE(Decode({{"op", "status"}, {"id", "abc"}}, &r).ok());
  CHECK((r.has_id && r.id == "abc"));
  REQUIRE(Decode({{"op", "status"}, {"id", 42}}, &r).ok());
  CHECK(r.id == "42");
  CHECK(ErrorOf({{"op", "status"}, {"id", -1}}).rfind("id:", 0) == 0);
  CHECK(ErrorOf({{"op", "status"}, {"id", ""}}).rfind("id:", 0) == 0);
  CHECK(ErrorOf({{"op", "status"}, {"id", {1}}}).rfind("id:", 0) == 0);
}

TEST_CASE("Request: malformed lines are rejected with a reason", "[io][request]") {
  Request r;
  CHECK(DecodeRequest("{not json", &r).message() == "request: is not valid JSON");
  CHECK(DecodeRequest("", &r).message() == "request: is not valid JSON");
  CHECK(DecodeRequest("[1,2]", &r).message() == "request: must be a JSON object");
  CHECK(DecodeRequest("{}", &r).message() == "op: is required");
  CHECK(DecodeRequest(R"({"op": 3})", &r).message() == "op: must be a string");
}

TEST_CASE("Request: an unknown op suggests the closest one", "[io][request]") {
  CHECK(ErrorOf({{"op", "hearbeat"}}) ==
        "op: unknown operation 'hearbeat'; did you mean 'heartbeat'?");
  CHECK(ErrorOf({{"op", "jobsubmit"}}).find("did you mean 'job_submit'") != std::string::npos);
  CHECK(ErrorOf({{"op", "xyzzyplugh"}}).find("try \"help\"") != std::string::npos);
}

TEST_CASE("Request: field errors name the field path", "[io][request]") {
  json base = FullRequest(*FindCommand("job_submit"));
  auto with = [&](const std::string& pointer, json value) {
    json copy = base;
    copy[json::json_pointer(pointer)] = std::move(value);
    return copy;
  };
  CHECK(ErrorOf(with("/weight", -1)) == "weight: must be a number >= 0");
  CHECK(ErrorOf(with("/job", "")) == "job: must be a non-empty string");
  CHECK(ErrorOf(with("/tasks", json::array())) == "tasks: must hold at least one task");
  CHECK(ErrorOf(with("/tasks", 5)) == "tasks: must be an array");
  CHECK(ErrorOf(with("/tasks/1", 7)) == "tasks[1]: must be an object");
  CHECK(ErrorOf(with("/tasks/1/replicas/0", 9)) ==
        "tasks[1].replicas[0]: must be a non-empty string");
  CHECK(ErrorOf(with("/tasks/0/replicas", json::array())) ==
        "tasks[0].replicas: must name at least one machine");
  CHECK(ErrorOf(with("/tasks/0/kind", "shuffle")) ==
        "tasks[0].kind: must be \"map\" or \"reduce\"");
  CHECK(ErrorOf(with("/tasks/0/colour", "red")) == "tasks[0].colour: unknown field");
  json no_task = base;
  no_task["tasks"][0].erase("task");
  CHECK(ErrorOf(no_task) == "tasks[0].task: is required");
  CHECK(ErrorOf({{"op", "heartbeat"}, {"machine", "a"}}) == "free_slots: is required");
  CHECK(ErrorOf({{"op", "heartbeat"}, {"machine", "a"}, {"free_slots", 1.5}}) ==
        "free_slots: must be an integer >= 0");
  CHECK(ErrorOf({{"op", "machine_up"}, {"machine", "a"}, {"slots", 0}}) ==
        "slots: must be an integer >= 1");
  CHECK(ErrorOf({{"op", "status"}, {"verbose", true}}) == "verbose: unknown field");
}

TEST_CASE("Request: an empty field name still gets a subject (fuzz: it gave no subject)",
          "[io][request]") {
  Request r;
  CHECK(DecodeRequest(R"({"op":"task_started","":"mp","machine":"node3"})", &r).message() ==
        R"("": unknown field)");
  CHECK(DecodeRequest(R"({"op":"job_submit","job":"j","tasks":[{"":1}]})", &r).message() ==
        R"(tasks[0]."": unknown field)");
}

TEST_CASE("Request: a NUL byte is an error, not the end of the line (it hid trailing bytes)",
          "[io][request]") {
  Request r;
  using namespace std::string_view_literals;
  CHECK(DecodeRequest("{\"op\":\"status\"}\0garbage"sv, &r).message() ==
        "request: contains a NUL byte");
}

TEST_CASE("Request: mutated lines never crash the decoder", "[io][request][robustness]") {
  // Seeded byte mutations of valid lines: each must decode or fail cleanly
  // (the sanitizer build turns any memory error into a failure).
  std::vector<std::string> seeds;
  for (const CommandSpec& spec : CommandTable()) seeds.push_back(FullRequest(spec).dump());
  Rng rng(7);
  const std::string alphabet = "{}[]\":,0123456789-.eE truefalsnul\\abcxyz";
  size_t accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string line =
        MutateLine(seeds[rng.Below(static_cast<uint32_t>(seeds.size()))], rng, alphabet, 4);
    Request r;
    const Status s = DecodeRequest(line, &r);
    if (s.ok())
      ++accepted;
    else
      CHECK_FALSE(s.message().empty());
    // Differential check against an independent parser (nlohmann): the line is
    // "not valid JSON" exactly when nlohmann rejects it too. (Integers beyond
    // 64 bits are the documented exception; the alphabet cannot make them long.)
    INFO(line);
    CHECK((s.message() == "request: is not valid JSON") == !json::accept(line));
  }
  CHECK(accepted > 0);  // some mutations stay valid: the loop exercised the success path too
}

TEST_CASE("Request: a key containing ': ' is the whole subject (fuzz: the reply named 'a')",
          "[io][request]") {
  Request r;
  const Status s = DecodeRequest(R"({"op":"status","a: b":1})", &r);
  CHECK(s.subject() == "a: b");
  CHECK(s.message() == "a: b: unknown field");
  CHECK(DecodeRequest(R"({"op":"heartbeat",": id":184467744})", &r).subject() == ": id");
}

TEST_CASE("Request: a field given twice is an error naming it", "[io][request]") {
  Request r;
  CHECK(DecodeRequest(R"({"op":"heartbeat","machine":"a","machine":"b","free_slots":1})", &r)
            .message() == "machine: appears twice");
  CHECK(DecodeRequest(R"({"op":"status","op":"status"})", &r).message() == "op: appears twice");
  CHECK(
      DecodeRequest(
          R"({"op":"job_submit","job":"j","tasks":[{"task":"a","task":"b","replicas":["m"]}]})", &r)
          .message() == "tasks[0].task: appears twice");
}

TEST_CASE("Request: strings are unescaped and checked as UTF-8", "[io][request]") {
  Request r;
  REQUIRE(DecodeRequest(R"({"op":"job","job":"a\"b\u00e9\n"})", &r).ok());
  CHECK(r.job == "a\"b\xc3\xa9\n");
  CHECK(DecodeRequest("{\"op\":\"job\",\"job\":\"\xff\"}", &r).message() ==
        "request: is not valid JSON");
}

TEST_CASE("docs/protocol.md documents every command and field of the table", "[io][docs]") {
  std::ifstream in(std::string(LOCSCHED_SOURCE_DIR) + "/docs/protocol.md");
  REQUIRE(in.good());
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const CommandSpec& spec : CommandTable()) {
    INFO(spec.name);
    CHECK(doc.find("| `" + std::string(spec.name) + "` |") != std::string::npos);
    for (const FieldSpec& f : spec.fields) {
      INFO(f.name);
      const std::string name(f.name);
      CHECK(doc.find(f.required ? "**" + name + "**" : " " + name + ":") != std::string::npos);
    }
  }
}

TEST_CASE("docs/protocol.md error examples are what the decoder says", "[io][docs]") {
  // Every row "| `INPUT` | `MESSAGE` |" of the Errors table, read from the doc.
  std::ifstream in(std::string(LOCSCHED_SOURCE_DIR) + "/docs/protocol.md");
  std::string line;
  bool in_errors = false;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_errors = line == "## Errors";
    if (!in_errors || line.rfind("| `", 0) != 0) continue;
    const size_t input_end = line.find("` | `");
    if (input_end == std::string::npos) continue;  // a row that describes its input in words
    const std::string input = line.substr(3, input_end - 3);
    const size_t msg_begin = input_end + 5;
    const std::string message = line.substr(msg_begin, line.rfind("` |") - msg_begin);
    Request r;
    INFO(input);
    CHECK(DecodeRequest(input, &r).message() == message);
    ++checked;
  }
  CHECK(checked >= 5);
}

}  // namespace
}  // namespace locsched
