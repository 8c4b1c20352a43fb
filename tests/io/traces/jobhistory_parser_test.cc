#include "io/traces/jobhistory_parser.h"

#include <set>

#include "io/traces/trace_reader.h"
#include "tests/io/traces/trace_test_util.h"

namespace locsched {
namespace {

using testing::ParseText;
using testing::Tally;

const char* const kLog = "hadoop-rumen/sample-job-tracker-logs.gz";

// The value of KEY="..." on `line` (escapes left in), or "". (Not std::regex: GCC 12
// warns inside <regex> under the sanitizer build.)
std::string Field(const std::string& line, const std::string& key) {
  const size_t at = line.find(" " + key + "=\"");
  if (at == std::string::npos) return "";
  const size_t start = at + key.size() + 3;
  size_t end = start;
  while (end < line.size() && line[end] != '"') end += line[end] == '\\' ? 2 : 1;
  return line.substr(start, end - start);
}

bool MapOrReduce(const std::string& line) {
  const std::string t = Field(line, "TASK_TYPE");
  return t == "MAP" || t == "REDUCE";
}

TEST_CASE("jobhistory: counts on the real sample log match a grep of its records", "[traces]") {
  // Independent count: distinct ids of the record lines, found by a plain text search.
  std::set<std::string> jobs, tasks, attempts;
  for (const std::string& line : testing::Lines(testing::ReadWhole(testing::TracePath(kLog)))) {
    if (line.starts_with("Job ") && !Field(line, "SUBMIT_TIME").empty())
      jobs.insert(Field(line, "JOBID"));
    if (line.starts_with("Task ") && MapOrReduce(line) && !Field(line, "START_TIME").empty())
      tasks.insert(Field(line, "TASKID"));
    if ((line.starts_with("MapAttempt ") || line.starts_with("ReduceAttempt ")) &&
        MapOrReduce(line) && !Field(line, "START_TIME").empty())
      attempts.insert(Field(line, "TASK_ATTEMPT_ID"));
  }
  JobHistoryParser parser;
  TraceCounts counts;
  std::vector<Malformed> bad;
  REQUIRE(ParseTraceFile(testing::TracePath(kLog), &parser, &counts, [&](ParseSink* s) {
            for (Malformed& m : s->malformed) bad.push_back(std::move(m));
            s->events.clear();
            s->malformed.clear();
          }).ok());
  for (const Malformed& m : bad) UNSCOPED_INFO(m.pos.line << ": " << m.error.message());
  CHECK(bad.empty());
  CHECK(jobs.size() == 4);
  CHECK(counts.jobs == jobs.size());
  CHECK(counts.tasks == tasks.size());
  CHECK(counts.attempts == attempts.size());
}

TEST_CASE("jobhistory: a map's SPLITS become its replica hosts, unescaped") {
  const std::string line =
      R"(Task TASKID="task_1_0002_m_000010" TASK_TYPE="MAP" START_TIME="1240336753705" )"
      R"(SPLITS="/192\.30\.126\.128/cluster1369\.example\.com,/194\.6\.129\.128/c2\.example\.com" .)";
  JobHistoryParser parser;
  const ParseSink sink = ParseText(&parser, line + "\n");
  REQUIRE(sink.malformed.empty());
  REQUIRE(sink.events.size() == 1);
  const TraceEvent& e = sink.events[0];
  CHECK(e.kind == TraceEventKind::kTaskSubmit);
  CHECK(e.job == "job_1_0002");
  CHECK(e.time == Approx(1240336753.705));
  REQUIRE(e.tasks.size() == 1);
  CHECK(e.tasks[0].replicas ==
        std::vector<std::string>{"cluster1369.example.com", "c2.example.com"});
}

TEST_CASE("jobhistory: a record spanning lines (a stack trace) is one record") {
  const std::string text =
      "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0002_m_000002\" "
      "TASK_ATTEMPT_ID=\"attempt_1_0002_m_000002_0\" TASK_STATUS=\"FAILED\" FINISH_TIME=\"5000\" "
      "HOSTNAME=\"h1\" ERROR=\"java\\.io\\.IOException: boom\n\tat Foo\\.run(Foo\\.java:1)\n\" .\n"
      "Job JOBID=\"job_1_0003\" SUBMIT_TIME=\"7000\" .\n";
  JobHistoryParser parser;
  const ParseSink sink = ParseText(&parser, text);
  REQUIRE(sink.malformed.empty());
  REQUIRE(sink.events.size() == 2);
  CHECK(sink.events[0].kind == TraceEventKind::kAttemptFinish);
  CHECK_FALSE(sink.events[0].success);
  CHECK(sink.events[0].machine == "h1");
  CHECK(sink.events[1].pos.line == 4);
  CHECK(sink.events[1].job == "job_1_0003");
}

TEST_CASE("jobhistory: malformed and truncated records are reported by line and skipped") {
  const std::string text =
      "Job JOBID=\"job_1_0001\" SUBMIT_TIME=\"1000\" .\n"                        // 1 good
      "Job JOBID=\"job_1_0002\" SUBMIT_TIME=\"soon\" .\n"                        // 2 bad time
      "garbage without structure\n"                                              // 3 no record type
      "Task TASKID=\"task_1_0001_m_000000\" TASK_TYPE=\"MAP\" START_TIME=\"1\n"  // 4 cut short
      "Task TASKID=\"nonsense\" TASK_TYPE=\"MAP\" START_TIME=\"2\" .\n"          // 5 bad task id
      "Job JOBID=\"job_1_0003\" SUBMIT_TIME=\"3000\" .\n"                        // 6 good
      "Job JOBID=\"job_1_0004\" SUBMIT_TIME=\"4000\"";  // 7 truncated at the end
  JobHistoryParser parser;
  const ParseSink sink = ParseText(&parser, text);
  std::vector<uint64_t> bad_lines;
  for (const Malformed& m : sink.malformed) bad_lines.push_back(m.pos.line);
  CHECK(bad_lines == std::vector<uint64_t>{2, 3, 4, 5, 7});
  REQUIRE(sink.events.size() == 2);
  CHECK(sink.events[1].job == "job_1_0003");
  CHECK(Tally(sink).jobs == 2);
}

TEST_CASE("jobhistory: a runaway quote is cut off instead of buffering the whole log") {
  JobHistoryParser parser;
  std::string text = "Job JOBID=\"job_1_0001\" NOTE=\"open\n";
  const std::string filler(1000, 'x');
  for (int i = 0; i < 1200; ++i) text += filler + "\n";
  const ParseSink sink = ParseText(&parser, text);
  REQUIRE_FALSE(sink.malformed.empty());
  CHECK(sink.malformed[0].pos.line == 1);
  CHECK(sink.events.empty());
}

TEST_CASE("jobhistory: the Job record's USER and JOB_QUEUE go with each of its tasks") {
  JobHistoryParser parser;
  const ParseSink sink = ParseText(
      &parser,
      R"(Job JOBID="job_1_0002" JOBNAME="wc" USER="hadoopqa" SUBMIT_TIME="1240335962848" )"
      R"(JOB_QUEUE="etl" .)"
      "\n"
      R"(Task TASKID="task_1_0002_m_000010" TASK_TYPE="MAP" START_TIME="1240336753705" SPLITS="" .)"
      "\n"
      R"(Task TASKID="task_1_0003_m_000001" TASK_TYPE="MAP" START_TIME="1240336753705" SPLITS="" .)"
      "\n");
  REQUIRE(sink.malformed.empty());
  REQUIRE(sink.events.size() == 3);
  CHECK(sink.events[0].kind == TraceEventKind::kJobSubmit);
  CHECK(sink.events[0].user == "hadoopqa");
  CHECK(sink.events[0].queue == "etl");
  CHECK(sink.events[1].user == "hadoopqa");
  CHECK(sink.events[1].queue == "etl");
  CHECK(sink.events[2].user.empty());  // a job whose Job record was not seen
}

}  // namespace
}  // namespace locsched
