#include "io/traces/swim_parser.h"

#include <cmath>
#include <set>

#include "io/traces/trace_reader.h"
#include "tests/io/traces/trace_test_util.h"

namespace locsched {
namespace {

using testing::ParseText;

TEST_CASE("swim: one job per row, maps = ceil(input / 64 MiB), on the real FB-2009 files",
          "[traces]") {
  for (const char* name : {"swim-fb/FB-2009_samples_24_times_1hr_0.tsv",
                           "swim-fb/FB-2009_samples_24_times_1hr_1.tsv"}) {
    INFO(name);
    // Independent count with the rule of SOURCES.md: a 64 MiB block, at least one map.
    uint64_t rows = 0, tasks = 0;
    for (const std::string& line : testing::Lines(testing::ReadWhole(testing::TracePath(name)))) {
      if (line.empty()) continue;
      ++rows;
      std::istringstream f(line);
      std::string id;
      double submit = 0, gap = 0, input = 0, shuffle = 0;
      f >> id >> submit >> gap >> input >> shuffle;
      tasks += static_cast<uint64_t>(std::max(1.0, std::ceil(input / (64.0 * 1024 * 1024))));
      tasks += static_cast<uint64_t>(std::ceil(shuffle / (1024.0 * 1024 * 1024)));
    }
    SwimParser parser{SynthesisOptions{}};
    TraceCounts got;
    REQUIRE(ParseTraceFile(testing::TracePath(name), &parser, &got, [](ParseSink* s) {
              s->events.clear();
              s->malformed.clear();
            }).ok());
    CHECK(got.malformed == 0);
    CHECK(rows > 5000);
    CHECK(got.jobs == rows);
    CHECK(got.tasks == tasks);
    CHECK(got.attempts == 0);
  }
}

TEST_CASE("swim: replicas are distinct, on the cluster, and do not depend on the row's place") {
  SynthesisOptions o;
  o.machines = 10;
  o.replication = 3;
  o.seed = 7;
  const std::string row = "job5\t10\t2\t200000000\t0\t0\n";
  SwimParser alone(o), after(o);
  const ParseSink a = ParseText(&alone, row);
  const ParseSink b = ParseText(&after, "job1\t1\t1\t1\t1\t1\n" + row);
  REQUIRE(a.events.size() == 1);
  REQUIRE(b.events.size() == 2);
  REQUIRE(a.events[0].tasks.size() == 3);  // 200 MB -> ceil(2.98) maps, no reduces
  for (size_t i = 0; i < 3; ++i) {
    const auto& r = a.events[0].tasks[i].replicas;
    CHECK(std::set<std::string>(r.begin(), r.end()).size() == 3);
    for (const std::string& m : r) CHECK(std::stoi(m.substr(1)) < 10);
    CHECK(r == b.events[1].tasks[i].replicas);
  }
  o.seed = 8;
  SwimParser reseeded(o);
  const ParseSink c = ParseText(&reseeded, row);
  bool differs = false;
  for (size_t i = 0; i < 3; ++i)
    differs |= c.events[0].tasks[i].replicas != a.events[0].tasks[i].replicas;
  CHECK(differs);
}

TEST_CASE("swim: short, non-numeric and truncated rows are malformed and skipped") {
  SwimParser parser{SynthesisOptions{}};
  const ParseSink sink = ParseText(&parser,
                                   "job0\t1\t1\t100\t0\t0\n"   // 1 good
                                   "job1\t1\t1\n"              // 2 short
                                   "job2\t1\t1\tmany\t0\t0\n"  // 3 not a number
                                   "job3\t-4\t1\t1\t0\t0\n"    // 4 negative
                                   "\n"                        // 5 blank: skipped
                                   "job4\t5\t1\t100\t0");      // 6 truncated last line
  std::vector<uint64_t> bad_lines;
  for (const Malformed& m : sink.malformed) bad_lines.push_back(m.pos.line);
  CHECK(bad_lines == std::vector<uint64_t>{2, 3, 4, 6});
  CHECK(sink.events.size() == 1);
}

}  // namespace
}  // namespace locsched
