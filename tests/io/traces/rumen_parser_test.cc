#include "io/traces/rumen_parser.h"

#include <nlohmann/json.hpp>

#include "io/traces/trace_reader.h"
#include "tests/io/traces/trace_test_util.h"

namespace locsched {
namespace {

using testing::ParseText;

// Independent count: nlohmann reads the concatenated objects one after another.
TraceCounts CountWithNlohmann(const std::string& text) {
  TraceCounts c;
  std::istringstream in(text);
  for (;;) {
    in >> std::ws;
    if (in.peek() == EOF) break;
    nlohmann::json job;
    in >> job;
    ++c.jobs;
    for (const char* list : {"mapTasks", "reduceTasks"})
      for (const auto& task : job[list]) {
        ++c.tasks;
        c.attempts += task["attempts"].size();
      }
  }
  return c;
}

TEST_CASE("rumen: counts on the real traces match an independent JSON reader", "[traces]") {
  for (const char* name :
       {"hadoop-rumen/input-trace.json", "hadoop-rumen/2jobs2min-rumen-jh.json"}) {
    INFO(name);
    const TraceCounts want = CountWithNlohmann(testing::ReadWhole(testing::TracePath(name)));
    RumenParser parser;
    TraceCounts got;
    REQUIRE(ParseTraceFile(testing::TracePath(name), &parser, &got, [](ParseSink* s) {
              s->events.clear();
              s->malformed.clear();
            }).ok());
    CHECK(got.malformed == 0);
    CHECK(want.jobs > 0);
    CHECK(got.jobs == want.jobs);
    CHECK(got.tasks == want.tasks);
    CHECK(got.attempts == want.attempts);
  }
}

TEST_CASE("rumen: preferred locations become replicas; attempts carry their host") {
  const std::string job = R"({
  "jobID" : "job_1_0001", "submitTime" : 1000,
  "mapTasks" : [ { "taskID" : "task_1_0001_m_000000", "inputBytes" : 42, "startTime" : 2000,
    "finishTime" : 5000,
    "preferredLocations" : [ { "layers" : [ "r1", "h1" ] }, { "layers" : [ "r2", "h2" ] } ],
    "attempts" : [ { "attemptID" : "a0", "hostName" : "/r1/h1", "result" : "SUCCESS",
                     "startTime" : 2000, "finishTime" : 5000 } ] } ],
  "reduceTasks" : [ ], "otherTasks" : [ { "taskID" : "setup", "attempts" : [ ] } ]
}
)";
  RumenParser parser;
  const ParseSink sink = ParseText(&parser, job);
  REQUIRE(sink.malformed.empty());
  REQUIRE(sink.events.size() == 3);
  const TraceEvent& submit = sink.events[0];
  CHECK(submit.time == Approx(1.0));
  REQUIRE(submit.tasks.size() == 1);
  CHECK(submit.tasks[0].replicas == std::vector<std::string>{"h1", "h2"});
  CHECK(submit.tasks[0].size == 42);
  CHECK(submit.tasks[0].duration == Approx(3.0));
  CHECK(sink.events[1].kind == TraceEventKind::kAttemptStart);
  CHECK(sink.events[1].machine == "h1");
  CHECK(sink.events[2].success);
  CHECK(sink.events[2].index == 2);
}

TEST_CASE("rumen: braces inside strings do not end an object; bad objects are skipped") {
  const std::string text =
      "{ \"jobID\" : \"job_}{_1\", \"mapTasks\" : [ ] }\n"  // 1 good, braces in a string
      "{ \"jobID\" : 7 }\n"                                 // 2 jobID not a string
      "stray text\n"                                        // 3 outside any object
      "{ \"jobID\" : \"job_2\", \"mapTasks\" : 5 } {\"jobID\":\"job_4\"}\n"  // 4 bad, then a good
                                                                             // one
      "{ \"jobID\" : \"job_3\",\n"  // 5 truncated at the end
      "  \"mapTasks\" : [\n";
  RumenParser parser;
  const ParseSink sink = ParseText(&parser, text);
  std::vector<uint64_t> bad_lines;
  for (const Malformed& m : sink.malformed) bad_lines.push_back(m.pos.line);
  CHECK(bad_lines == std::vector<uint64_t>{2, 3, 4, 5});
  REQUIRE(sink.events.size() == 2);
  CHECK(sink.events[0].job == "job_}{_1");
  CHECK(sink.events[1].job == "job_4");
  CHECK(sink.events[1].pos.line == 4);
}

TEST_CASE("rumen: fields of unexpected types never crash the parser") {
  const std::string text =
      R"({"jobID":"j1","mapTasks":[{"taskID":"t","inputBytes":"x","attempts":[{"attemptID":5,)"
      R"("result":7,"hostName":9}]}]})"
      "\n"
      R"({"jobID":"j2","mapTasks":[{"taskID":"t","preferredLocations":[{"layers":"r"},3],)"
      R"("attempts":[3,null]}]})"
      "\n"
      R"({"jobID":"j3","mapTasks":[{"taskID":"t","attempts":{"a":1},"startTime":"soon"}]})"
      "\n";
  RumenParser parser;
  const ParseSink sink = ParseText(&parser, text);
  CHECK(sink.malformed.size() + testing::Tally(sink).jobs == 3);
  for (const TraceEvent& e : sink.events)
    if (e.kind == TraceEventKind::kJobSubmit) CHECK(e.tasks.size() == 1);
}

TEST_CASE("rumen: the job's user and queue, where the log names them") {
  RumenParser parser;
  const ParseSink sink = ParseText(
      &parser, R"({"jobID":"job_1_0001","user":"jenkins","queue":"sls_queue_1","mapTasks":[]}
{"jobID":"job_1_0002","user":7,"mapTasks":[]}
)");
  REQUIRE(sink.malformed.empty());
  REQUIRE(sink.events.size() == 2);
  CHECK(sink.events[0].user == "jenkins");
  CHECK(sink.events[0].queue == "sls_queue_1");
  CHECK(sink.events[1].user.empty());  // not a string: none
  CHECK(sink.events[1].queue.empty());
}

TEST_CASE("rumen: the real 2jobs2min sample names its jobs' user and queue", "[traces]") {
  RumenParser parser;
  const ParseSink sink = ParseText(
      &parser, testing::ReadWhole(testing::TracePath("hadoop-rumen/2jobs2min-rumen-jh.json")));
  size_t jobs = 0;
  for (const TraceEvent& e : sink.events) {
    if (e.kind != TraceEventKind::kJobSubmit) continue;
    ++jobs;
    CHECK(e.user == "jenkins");
    CHECK(e.queue == "sls_queue_1");
  }
  CHECK(jobs == 2);
}

}  // namespace
}  // namespace locsched
