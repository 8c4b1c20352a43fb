// FollowedFile, the checkpoint file and the request lines of locsched-tail,
// on temporary files (no daemon).
#include "tools/tail/follow.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/tail/checkpoint.h"
#include "tools/tail/hosts.h"
#include "tools/tail/requests.h"

namespace locsched {
namespace {

// A scratch directory removed at the end of the test.
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/locsched-tail-unit-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string path;
};

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

std::string Rows(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i)
    out += "job" + std::to_string(i) + "\t" + std::to_string(i) + "\t1\t1000\t0\t0\n";
  return out;
}

// Polls until nothing new arrives; returns the job names seen.
std::vector<std::string> Drain(FollowedFile* f) {
  std::vector<std::string> jobs;
  for (bool progressed = true; progressed;) {
    ParseSink sink;
    REQUIRE(f->Poll(&sink, &progressed).ok());
    CHECK(sink.malformed.empty());
    for (const TraceEvent& e : sink.events) jobs.push_back(e.job);
  }
  return jobs;
}

FollowedFile Follow(const std::string& path, const FileCursor* resume = nullptr) {
  return FollowedFile(path, TraceFormat::kSwim, SynthesisOptions{}, resume ? *resume : FileCursor{},
                      resume != nullptr);
}

TEST_CASE("tail follow: a file that appears later, partial lines, rename and truncate") {
  TempDir dir;
  const std::string log = dir.path + "/jobs.tsv";
  FollowedFile f = Follow(log);
  CHECK(Drain(&f).empty());  // not there yet
  const std::string rows = Rows(0, 3);
  Append(log, rows.substr(0, rows.size() - 4));
  CHECK(Drain(&f) == std::vector<std::string>{"job0", "job1"});
  Append(log, rows.substr(rows.size() - 4));
  CHECK(Drain(&f) == std::vector<std::string>{"job2"});
  CHECK(f.generation() == 0);

  REQUIRE(std::rename(log.c_str(), (log + ".1").c_str()) == 0);
  Append(log + ".1", "job3\t3\t1\t1\t0\t0");  // the writer's last words, no newline
  Append(log, Rows(4, 1));
  CHECK(Drain(&f) == std::vector<std::string>{"job3", "job4"});
  CHECK(f.generation() == 1);

  REQUIRE(::truncate(log.c_str(), 0) == 0);
  Append(log, Rows(5, 1));  // shorter than before: seen as a truncation
  CHECK(Drain(&f) == std::vector<std::string>{"job5"});
  CHECK(f.generation() == 2);
  CHECK(f.rotations() == 2);
}

TEST_CASE("tail follow: a cursor resumes at its offset, or starts over on another file") {
  TempDir dir;
  const std::string log = dir.path + "/jobs.tsv";
  Append(log, Rows(0, 4));
  FileCursor at;
  {
    FollowedFile f = Follow(log);
    CHECK(Drain(&f).size() == 4);
    at = f.Cursor();
  }
  struct stat st {};
  REQUIRE(::stat(log.c_str(), &st) == 0);
  CHECK(at.offset == static_cast<uint64_t>(st.st_size));
  CHECK(at.line == 5);
  CHECK(at.ino == static_cast<uint64_t>(st.st_ino));
  Append(log, Rows(4, 2));
  {
    FollowedFile f = Follow(log, &at);
    CHECK(Drain(&f) == std::vector<std::string>{"job4", "job5"});
    CHECK(f.generation() == at.generation);
  }
  // The path now names another file: everything in it is new, under a new generation.
  REQUIRE(std::rename(log.c_str(), (log + ".old").c_str()) == 0);
  Append(log, Rows(6, 1));
  FollowedFile f = Follow(log, &at);
  CHECK(Drain(&f) == std::vector<std::string>{"job6"});
  CHECK(f.generation() == at.generation + 1);
}

TEST_CASE("tail follow: the cursor stays before a multi-line record that is still open") {
  TempDir dir;
  const std::string log = dir.path + "/history.log";
  const std::string first = "Job JOBID=\"job_1_0001\" SUBMIT_TIME=\"1000\" .\n";
  Append(log,
         first + "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ERROR=\"boom\n");
  FollowedFile f(log, TraceFormat::kJobHistory, SynthesisOptions{}, FileCursor{}, false);
  ParseSink sink;
  bool progressed = false;
  REQUIRE(f.Poll(&sink, &progressed).ok());
  CHECK(sink.events.size() == 1);
  CHECK(f.Cursor().offset == first.size());
  CHECK(f.Cursor().line == 2);
}

TEST_CASE("tail checkpoint: saved atomically and read back; a corrupt one is an error") {
  TempDir dir;
  const std::string path = dir.path + "/tail.ckpt";
  Checkpoint cp;
  CHECK(LoadCheckpoint(path, &cp).ok());  // missing: empty
  CHECK(cp.empty());
  cp["/var/log/a"] = FileCursor{1, 2, 300, 4, 5};
  cp["b"] = FileCursor{6, 7, 8, 9, 10};
  REQUIRE(SaveCheckpoint(path, cp).ok());
  CHECK(::access((path + ".tmp").c_str(), F_OK) != 0);
  Checkpoint back;
  REQUIRE(LoadCheckpoint(path, &back).ok());
  REQUIRE(back.size() == 2);
  CHECK(back["/var/log/a"].offset == 300);
  CHECK(back["/var/log/a"].generation == 5);
  CHECK(back["b"].ino == 7);
  for (const char* bad : {"{\"version\":1,\"files\":[", "{\"version\":\"1\"}",
                          "{\"version\":1,\"files\":{\"a\":{\"offset\":\"x\"}}}"}) {
    std::ofstream(path) << bad;
    const Status s = LoadCheckpoint(path, &back);
    CHECK_FALSE(s.ok());
    CHECK(s.message().find(path) != std::string::npos);
  }
}

TEST_CASE("tail requests: ids come from the source position; JobHistory tasks are jobs") {
  TraceEvent e;
  e.kind = TraceEventKind::kTaskSubmit;
  e.job = "job_1_0001";
  e.pos.offset = 1234;
  e.tasks.push_back(TraceTask{"task_1_0001_r_000000", TaskKind::kReduce, {}, 0, 0});
  CHECK(EventId("logs/a.log", 2, e) == "logs/a.log:2:1234");
  e.index = 3;
  CHECK(EventId("logs/a.log", 2, e) == "logs/a.log:2:1234.3");
  const auto j = nlohmann::json::parse(RequestLine(e, "x", SynthesisOptions{}));
  CHECK(j["op"] == "job_submit");
  CHECK(j["id"] == "x");
  CHECK(j["job"] == "job_1_0001/task_1_0001_r_000000");
  CHECK(j["tasks"][0]["kind"] == "reduce");
  CHECK(j["tasks"][0]["replicas"].size() == 3);  // unknown locations: placed
  e.kind = TraceEventKind::kAttemptStart;
  CHECK(RequestLine(e, "x", SynthesisOptions{}).empty());
  e.kind = TraceEventKind::kRequest;
  e.request = R"({"op":"task_done","job":"j","task":"t"})";
  CHECK(nlohmann::json::parse(RequestLine(e, "x", SynthesisOptions{}))["id"] == "x");
  e.request = R"({"op":"task_done","id":7,"job":"j","task":"t"})";
  CHECK(nlohmann::json::parse(RequestLine(e, "x", SynthesisOptions{}))["id"] == 7);
}

TEST_CASE("tail requests: --announce-machines names each replica host once") {
  MachineAnnouncer a;
  std::vector<std::string> out;
  a.Lines(R"({"op":"job_submit","job":"j","tasks":[{"task":"t","replicas":["h1","h2"]}]})", &out);
  a.Lines(R"({"op":"job_submit","job":"k","tasks":[{"task":"t","replicas":["h2","h3"]}]})", &out);
  REQUIRE(out.size() == 3);
  CHECK(nlohmann::json::parse(out[2]) ==
        nlohmann::json{{"op", "machine_up"}, {"id", "up:h3"}, {"machine", "h3"}});
}

}  // namespace

TEST_CASE("tail hosts: --map-hosts numbers hosts as first seen and stops past --machines") {
  const auto task = [](std::string name, std::vector<std::string> hosts) {
    TraceTask t;
    t.task = std::move(name);
    t.replicas = std::move(hosts);
    return t;
  };
  HostMapper mapper("m", 3);
  TraceEvent e;
  e.tasks = {task("a", {"h1", "h2"}), task("b", {"h2", "h3"})};
  REQUIRE(mapper.Map(&e).ok());
  CHECK(e.tasks[0].replicas == std::vector<std::string>{"m0", "m1"});
  CHECK(e.tasks[1].replicas == std::vector<std::string>{"m1", "m2"});
  TraceEvent again;
  again.tasks = {task("c", {"h3", "h1"}), task("d", {})};
  REQUIRE(mapper.Map(&again).ok());
  CHECK(again.tasks[0].replicas == std::vector<std::string>{"m2", "m0"});
  CHECK(again.tasks[1].replicas.empty());  // no hosts: left for the seeded placement
  TraceEvent one_more;
  one_more.tasks = {task("e", {"h4"})};
  const Status s = mapper.Map(&one_more);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find("--map-hosts") == 0);
  CHECK(s.message().find("'h4'") != std::string::npos);
  CHECK(mapper.hosts() == 3);
}

}  // namespace locsched
