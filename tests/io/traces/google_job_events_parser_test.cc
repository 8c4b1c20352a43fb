#include "io/traces/google_job_events_parser.h"

#include "io/traces/trace_reader.h"
#include "tests/io/traces/trace_test_util.h"

namespace locsched {
namespace {

using testing::ParseText;

TEST_CASE("google: SUBMIT rows of the real job_events parts are the job arrivals", "[traces]") {
  for (int part = 0; part < 10; ++part) {
    char name[96];
    std::snprintf(name, sizeof name,
                  "google-clusterdata-2011-2/job_events/part-%05d-of-00500.csv.gz", part);
    INFO(name);
    // Independent count: rows whose fourth comma-separated field is 0.
    uint64_t submits = 0;
    for (const std::string& line : testing::Lines(testing::ReadWhole(testing::TracePath(name)))) {
      size_t c1 = line.find(','), c2 = line.find(',', c1 + 1), c3 = line.find(',', c2 + 1);
      const size_t c4 = line.find(',', c3 + 1);
      if (line.substr(c3 + 1, c4 - c3 - 1) == "0") ++submits;
    }
    GoogleJobEventsParser parser{SynthesisOptions{}};
    TraceCounts got;
    REQUIRE(ParseTraceFile(testing::TracePath(name), &parser, &got, [](ParseSink* s) {
              s->events.clear();
              s->malformed.clear();
            }).ok());
    CHECK(got.malformed == 0);
    CHECK(submits > 0);
    CHECK(got.jobs == submits);
    CHECK(got.tasks == submits * GoogleJobEventsParser::kTasksPerJob);
  }
}

TEST_CASE("google: bad rows are reported by line, other event types skipped") {
  GoogleJobEventsParser parser{SynthesisOptions{}};
  const ParseSink sink = ParseText(&parser,
                                   "600000000,,42,0,u,1,n,l\n"  // 1 submit
                                   "600000001,,42,1,u,1,n,l\n"  // 2 schedule: skipped
                                   "600000002,,43,0,u,1\n"      // 3 too few fields
                                   "x,,44,0,u,1,n,l\n"          // 4 bad timestamp
                                   "600000003,,45,9,u,1,n,l\n"  // 5 unknown event type
                                   "600000004,,46,0,u,1,n");    // 6 truncated
  std::vector<uint64_t> bad_lines;
  for (const Malformed& m : sink.malformed) bad_lines.push_back(m.pos.line);
  CHECK(bad_lines == std::vector<uint64_t>{3, 4, 5, 6});
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].job == "g42");
  CHECK(sink.events[0].user == "u");  // the hashed user column
  CHECK(sink.events[0].time == Approx(600.0));
}

}  // namespace
}  // namespace locsched
