#include "io/traces/jsonl_parser.h"

#include "tests/io/traces/trace_test_util.h"

namespace locsched {
namespace {

using testing::ParseText;

TEST_CASE("jsonl: docs/protocol.md's example requests parse; counts match the text") {
  // Independent count: the event-socket lines ("→ ") of the transcript and their ops.
  std::string log;
  uint64_t lines = 0, submits = 0, starts = 0;
  for (const std::string& line :
       testing::Lines(testing::ReadWhole(std::string(LOCSCHED_SOURCE_DIR) + "/docs/protocol.md"))) {
    const std::string arrow = "    \xe2\x86\x92 ";
    if (!line.starts_with(arrow)) continue;
    const std::string request = line.substr(arrow.size());
    log += request + "\n";
    ++lines;
    submits += request.find("\"op\":\"job_submit\"") != std::string::npos;
    starts += request.find("\"op\":\"task_started\"") != std::string::npos;
  }
  JsonlParser parser;
  const ParseSink sink = ParseText(&parser, log);
  const TraceCounts c = testing::Tally(sink);
  // The transcript also shows requests the daemon refuses on purpose; the decoder
  // rejects only the syntactically bad ones (the unknown op and the numeric replica).
  CHECK(c.events + c.malformed == lines);
  CHECK(c.malformed == 2);
  CHECK(c.jobs == submits - 1);  // one job_submit has the numeric replica
  CHECK(c.attempts == starts);
}

TEST_CASE("jsonl: bad lines name the field and their line; the rest is forwarded verbatim") {
  JsonlParser parser;
  const std::string good = R"({"op":"task_done","job":"j","task":"t"})";
  const ParseSink sink = ParseText(&parser, "{not json\n\n" + good + "\n{\"op\":\"job_submit\"");
  REQUIRE(sink.malformed.size() == 2);
  CHECK(sink.malformed[0].pos.line == 1);
  CHECK(sink.malformed[1].pos.line == 4);
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].request == good);
  CHECK(sink.events[0].op == "task_done");
}

}  // namespace
}  // namespace locsched
