// RequestLines and SplitRequest: a job too big for one line goes as a job_submit with
// tasks_total and task_add parts, each within the limit, together holding every task
// once, with ids a resend repeats; jobs reading one SWIM input are sent with its
// blocks' holders.
#include "tools/tail/requests.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/traces/swim_parser.h"

namespace locsched {
namespace {

TraceEvent BigJob(size_t tasks) {
  TraceEvent e;
  e.kind = TraceEventKind::kJobSubmit;
  e.job = "big";
  for (size_t i = 0; i < tasks; ++i)
    e.tasks.push_back(TraceTask{"m" + std::to_string(i), TaskKind::kMap, {}, 0, 0});
  return e;
}

// Checks lines are the parts of job `job` with `tasks` tasks, each within max_bytes.
void CheckParts(const std::vector<std::string>& lines, size_t tasks, size_t max_bytes,
                const std::string& id) {
  REQUIRE(lines.size() > 1);
  std::set<std::string> names;
  for (size_t k = 0; k < lines.size(); ++k) {
    INFO(k);
    CHECK(lines[k].size() <= max_bytes);
    const auto j = nlohmann::json::parse(lines[k]);
    CHECK(j["op"] == (k == 0 ? "job_submit" : "task_add"));
    CHECK(j["id"] == (k == 0 ? id : id + "#" + std::to_string(k)));
    CHECK(j.contains("tasks_total") == (k == 0));
    for (const auto& t : j["tasks"]) CHECK(names.insert(t["task"].get<std::string>()).second);
  }
  CHECK(nlohmann::json::parse(lines[0])["tasks_total"] == tasks);
  CHECK(names.size() == tasks);
}

TEST_CASE("tail requests: a job past the line limit goes in parts, every task once") {
  const TraceEvent e = BigJob(5000);
  const std::vector<std::string> whole = RequestLines(e, "x", SynthesisOptions{}, SIZE_MAX);
  REQUIRE(whole.size() == 1);
  CHECK(whole[0] == RequestLine(e, "x", SynthesisOptions{}));
  CHECK(nlohmann::json::parse(whole[0])["tasks"].size() == 5000);
  CheckParts(RequestLines(e, "x", SynthesisOptions{}, 20000), 5000, 20000, "x");
  // The same parts again: a resend repeats the ids.
  CHECK(RequestLines(e, "x", SynthesisOptions{}, 20000) ==
        RequestLines(e, "x", SynthesisOptions{}, 20000));
}

TEST_CASE("tail requests: a forwarded job_submit line is split the same way") {
  const std::string line = RequestLine(BigJob(3000), "j-1", SynthesisOptions{});
  CheckParts(SplitRequest(line, 16384), 3000, 16384, "j-1");
  CHECK(SplitRequest(line, line.size()) == std::vector<std::string>{line});
  const std::string other = R"({"op":"task_done","job":"j","task":"t"})";
  CHECK(SplitRequest(other, 10) == std::vector<std::string>{other});  // the daemon says why
}

TEST_CASE("tail requests: a run names its jobs JOB@RUN and qualifies every id") {
  TraceEvent e = BigJob(2);
  const std::string plain = RequestLine(e, "r1:x", SynthesisOptions{});
  const auto j = nlohmann::json::parse(RequestLine(e, "r1:x", SynthesisOptions{}, "r1"));
  CHECK(j["job"] == "big@r1");
  CHECK(j["id"] == "r1:x");
  // Replicas are placed by the trace's job name: a run places them as any other.
  CHECK(j["tasks"] == nlohmann::json::parse(plain)["tasks"]);
  for (const std::string& part :
       RequestLines(BigJob(3000), "r1:x", SynthesisOptions{}, 16384, "r1"))
    CHECK(nlohmann::json::parse(part)["job"] == "big@r1");
  e.kind = TraceEventKind::kRequest;
  e.request = R"({"op":"task_done","id":7,"job":"j","task":"t"})";
  const auto fwd = nlohmann::json::parse(RequestLine(e, "r1:x", SynthesisOptions{}, "r1"));
  CHECK(fwd["id"] == "r1:7");
  CHECK(fwd["job"] == "j@r1");
  e.request = R"({"op":"machine_up","machine":"h"})";
  CHECK(nlohmann::json::parse(RequestLine(e, "r1:x", SynthesisOptions{}, "r1")) ==
        nlohmann::json{{"op", "machine_up"}, {"id", "r1:x"}, {"machine", "h"}});
}

TEST_CASE("tail requests: run ids are fresh, and only safe characters name one") {
  CHECK(NewRunId().size() == 8);
  CHECK(NewRunId() != NewRunId());  // 32 random bits: equal once in 4 billion
  CHECK(RunIdProblem("20261127-a.b_c").empty());
  CHECK_FALSE(RunIdProblem("").empty());
  CHECK_FALSE(RunIdProblem(std::string(65, 'a')).empty());
  CHECK_FALSE(RunIdProblem("a:b").empty());
  CHECK_FALSE(RunIdProblem("a@b").empty());
  CHECK(RunJobName("g1", "") == "g1");
  CHECK(RunJobName("g1", "r") == "g1@r");
}

}  // namespace
}  // namespace locsched

namespace locsched {
namespace {

// The replicas of every task of the request lines of SWIM `rows`, per job, task by task.
std::vector<std::vector<nlohmann::json>> SentReplicas(const std::string& rows,
                                                      const SynthesisOptions& o) {
  SwimParser parser(o);
  ParseSink sink;
  SourcePos pos;
  std::istringstream in(rows);
  for (std::string line; std::getline(in, line); ++pos.line) parser.Feed(line, pos, &sink);
  REQUIRE(sink.malformed.empty());
  std::vector<std::vector<nlohmann::json>> out;
  for (const TraceEvent& e : sink.events) {
    out.emplace_back();
    for (const std::string& line : RequestLines(e, "id", o, 1 << 20)) {
      const nlohmann::json request = nlohmann::json::parse(line);
      for (const auto& t : request["tasks"]) out.back().push_back(t["replicas"]);
    }
  }
  return out;
}

TEST_CASE("tail requests: jobs reading one input are sent with its blocks' holders") {
  SynthesisOptions o;
  o.machines = 40;
  const std::string block = std::to_string(64ull << 20);
  const auto sent = SentReplicas("a\t1\t1\t" + std::to_string(3 * (64ull << 20)) +
                                     "\t0\t0\tinputPath3\t\t\n"
                                     "b\t2\t1\t" +
                                     block +
                                     "\t0\t0\tinputPath3\t\t\n"
                                     "c\t3\t1\t" +
                                     block + "\t0\t0\t\t\t\n",
                                 o);
  REQUIRE(sent.size() == 3);
  REQUIRE(sent[0].size() == 3);
  REQUIRE(sent[1].size() == 1);
  CHECK(sent[1][0] == sent[0][0]);  // b's one map reads block 0 of inputPath3, as a's first
  for (size_t i = 0; i < 3; ++i)
    CHECK(sent[0][i] == nlohmann::json(PlaceInputBlock(o, "inputPath3", i)));
  CHECK(sent[2][0] == nlohmann::json(PlaceReplicas(o, "c", 0)));  // no input: its own
}

TEST_CASE("tail requests: a job's queue and user go on its job_submit, not on its parts") {
  TraceEvent e = BigJob(3);
  e.user = "alice";
  e.queue = "etl";
  const std::vector<std::string> one = RequestLines(e, "s:1", SynthesisOptions{}, 1 << 20, "");
  REQUIRE(one.size() == 1);
  const auto j = nlohmann::json::parse(one[0]);
  CHECK(j["user"] == "alice");
  CHECK(j["queue"] == "etl");
  e = BigJob(2000);
  e.user = "alice";
  const std::vector<std::string> parts = RequestLines(e, "s:2", SynthesisOptions{}, 4096, "");
  REQUIRE(parts.size() > 1);
  CHECK(nlohmann::json::parse(parts[0])["user"] == "alice");
  CHECK_FALSE(nlohmann::json::parse(parts[1]).contains("user"));
  CHECK_FALSE(nlohmann::json::parse(parts[0]).contains("queue"));
}

}  // namespace
}  // namespace locsched
