// Tests io/wire/flat_request: the fast path takes the compact flat lines agents
// send, leaves every other line to the general decoder, and never decodes a
// line differently from it (checked on seeded mutations).
#include "io/wire/flat_request.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/rng.h"
#include "tests/io/wire/mutate_line.h"

namespace locsched {
namespace {

// The general decoder's verdict on line, which the fast path must match.
void RequireSameAsGeneral(const std::string& line, const Request& fast) {
  INFO(line);
  Request general;
  const Status s = DecodeRequestGeneral(line, &general);
  REQUIRE(s.ok());
  CHECK(fast == general);
}

const std::vector<std::string> kAgentLines = {
    R"({"op":"heartbeat","machine":"m17","free_slots":2})",
    R"({"op":"heartbeat","machine":"m0","free_slots":0,"id":"hb-9"})",
    R"({"op":"task_done","job":"j1","task":"t3","machine":"m4"})",
    R"({"id":12,"op":"task_started","task":"t0","job":"j 1"})",
    R"({"op":"task_failed","job":"j1","task":"t3","reason":"exit 1"})",
    R"({"op":"machine_up","machine":"m1","rack":"","slots":8})",
    R"({"op":"machine_drain","machine":"m1","drain":false})",
    R"({"op":"machine_down","machine":"m1"})",
    R"({"op":"machine_queues","top":18446744073709551})",
    R"({"op":"status"})",
    R"({"op":"help","command":"job_submit"})",
};

TEST_CASE("FlatRequest: takes the agents' compact lines, decoding them as the general decoder",
          "[io][request]") {
  for (const std::string& line : kAgentLines) {
    INFO(line);
    Request fast;
    REQUIRE(DecodeFlatRequest(line, &fast));
    RequireSameAsGeneral(line, fast);
  }
  Request r;
  REQUIRE(DecodeFlatRequest(kAgentLines[1], &r));
  CHECK((r.op == Op::kHeartbeat && r.machine == "m0" && r.free_slots == 0 && r.id == "hb-9"));
  REQUIRE(DecodeFlatRequest(kAgentLines[3], &r));
  CHECK((r.has_id && r.id_is_number && r.id == "12" && r.job == "j 1"));
}

TEST_CASE("FlatRequest: leaves every other line to the general decoder", "[io][request]") {
  const std::vector<std::string> others = {
      "",
      "{}",
      R"({"op":"heartbeat", "machine":"m1","free_slots":1})",                    // whitespace
      R"({"op":"heartbeat","machine":"m\u0031","free_slots":1})",                // escape
      "{\"op\":\"heartbeat\",\"machine\":\"m\xc3\xa9\",\"free_slots\":1}",       // non-ASCII
      R"({"op":"heartbeat","machine":"m1","free_slots":01})",                    // leading zero
      R"({"op":"heartbeat","machine":"m1","free_slots":10000000000000000000})",  // 20 digits
      R"({"op":"heartbeat","machine":"m1","free_slots":-1})",
      R"({"op":"heartbeat","machine":"m1","free_slots":1.0})",
      R"({"op":"heartbeat","machine":"m1","free_slots":1e2})",
      R"({"op":"heartbeat","machine":"m1","free_slots":null})",
      R"({"op":"heartbeat","machine":"m1","free_slots":true})",              // wrong type
      R"({"op":"heartbeat","machine":"","free_slots":1})",                   // empty name
      R"({"op":"heartbeat","machine":"m1"})",                                // missing field
      R"({"op":"heartbeat","machine":"m1","free_slots":1,"x":1})",           // unknown field
      R"({"op":"heartbeat","machine":"m1","machine":"m2","free_slots":1})",  // twice
      R"({"op":"heartbeat","machine":"m1","free_slots":1,"id":""})",
      R"({"op":"heartbeat","machine":"m1","free_slots":1,"id":false})",
      R"({"op":"heartbeat","machine":"m1","free_slots":1}x)",    // trailing bytes
      R"({"op":"heartbeat","machine":"m1","free_slots":1)",      // unclosed
      R"({"op":"heartbeat","machine":{"a":1},"free_slots":1})",  // nesting
      R"({"op":"machine_up","machine":"m1","slots":0})",         // not positive
      R"({"op":"job_submit","job":"j","tasks":[{"task":"t","replicas":["m1"]}]})",
      R"({"op":"no_such_op"})",
      R"({"op":3})",
      R"({"op":"status","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7})",  // > 8 members
  };
  for (const std::string& line : others) {
    INFO(line);
    Request r;
    CHECK_FALSE(DecodeFlatRequest(line, &r));
  }
}

TEST_CASE("FlatRequest: agrees with the general decoder on mutated lines", "[io][request]") {
  // Seeded byte mutations of the agents' lines: whenever the fast path takes
  // one, the general decoder must accept it too and decode the same Request.
  Rng rng(11);
  const std::string alphabet = "{}[]\":,0123456789-.eE truefalsnul\\abmjo_";
  size_t taken = 0;
  for (int i = 0; i < 50000; ++i) {
    const std::string line = MutateLine(
        kAgentLines[rng.Below(static_cast<uint32_t>(kAgentLines.size()))], rng, alphabet, 3);
    Request fast;
    if (!DecodeFlatRequest(line, &fast)) continue;
    ++taken;
    RequireSameAsGeneral(line, fast);
  }
  CHECK(taken > 1000);  // the mutations exercised the fast path's success side
}

}  // namespace
}  // namespace locsched
