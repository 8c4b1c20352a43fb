#include "io/traces/swim_parser.h"

#include <cmath>
#include <filesystem>
#include <map>
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

// SWIM's with-input-paths row (9 fields: ..., input path, empty output path, trailing tab).
std::string Row9(const std::string& job, uint64_t bytes, const std::string& input,
                 uint64_t shuffle = 0) {
  return job + "\t1\t1\t" + std::to_string(bytes) + "\t" + std::to_string(shuffle) + "\t0\t" +
         input + "\t\t\n";
}

constexpr uint64_t kBlock = 64ull * 1024 * 1024;

TEST_CASE("swim: jobs reading one input share its blocks' holders; map i reads block i") {
  SynthesisOptions o;
  o.machines = 50;
  o.seed = 3;
  SwimParser parser(o);
  // big reads 5 blocks of inputPath7, small 2 of them (and has a reduce), other reads
  // inputPath8, none names an input (SWIM writes an empty field), seven has 7 fields.
  const ParseSink sink = ParseText(
      &parser, Row9("big", 5 * kBlock, "inputPath7") + Row9("small", kBlock + 1, "inputPath7", 1) +
                   Row9("other", 2 * kBlock, "inputPath8") + Row9("none", 2 * kBlock, "") +
                   "seven\t1\t1\t100\t0\t0\tinputPath7\n");
  REQUIRE(sink.malformed.empty());
  REQUIRE(sink.events.size() == 5);
  const auto& big = sink.events[0].tasks;
  const auto& small = sink.events[1].tasks;
  REQUIRE(big.size() == 5);
  REQUIRE(small.size() == 3);  // two maps and a reduce
  for (uint64_t i = 0; i < 5; ++i) CHECK(big[i].replicas == PlaceInputBlock(o, "inputPath7", i));
  CHECK(small[0].replicas == big[0].replicas);  // the first k blocks: a prefix of big's
  CHECK(small[1].replicas == big[1].replicas);
  CHECK(small[2].kind == TaskKind::kReduce);
  CHECK(small[2].replicas == PlaceReplicas(o, "small", 2));    // a reduce is the job's own
  CHECK(sink.events[4].tasks[0].replicas == big[0].replicas);  // 7 fields: the same input
  const auto& other = sink.events[2].tasks;
  CHECK(other[0].replicas == PlaceInputBlock(o, "inputPath8", 0));
  CHECK((other[0].replicas != big[0].replicas || other[1].replicas != big[1].replicas));
  const auto& none = sink.events[3].tasks;  // no input named: placed per job, as before
  CHECK(none[0].replicas == PlaceReplicas(o, "none", 0));
  CHECK(none[1].replicas == PlaceReplicas(o, "none", 1));
}

TEST_CASE("swim: a malformed 9-field row names the field, and its line") {
  SwimParser parser{SynthesisOptions{}};
  const ParseSink sink =
      ParseText(&parser, Row9("job0", 100, "inputPath1") +                  // 1 good
                             "job1\t1\t1\t100\t0\t0\tinputPath1\t\tx\n" +   // 2 field 9 not empty
                             Row9("job2", 100, "input Path1") +             // 3 a space
                             "job3\t1\t1\t100\t0\t0\tinputPath1\t\n" +      // 4 eight fields
                             "job4\t1\t1\tlots\t0\t0\tinputPath1\t\t\n" +   // 5 bad bytes
                             "job5\t1\t1\t100\t0\t0\tinputPath1\t\t\t\n" +  // 6 ten fields
                             Row9("job6", 100, "inputPath\x01"));           // 7 a control byte
  REQUIRE(sink.events.size() == 1);
  std::map<uint64_t, std::string> bad;
  for (const Malformed& m : sink.malformed) bad[m.pos.line] = m.error.message();
  REQUIRE(bad.size() == 6);
  CHECK_THAT(bad[2], Catch::Contains("field 9") && Catch::Contains("'x'"));
  CHECK_THAT(bad[3], Catch::Contains("input_path") && Catch::Contains("input Path1"));
  CHECK_THAT(bad[4], Catch::Contains("8 tab-separated fields"));
  CHECK_THAT(bad[5], Catch::Contains("map_input_bytes") && Catch::Contains("lots"));
  CHECK_THAT(bad[6], Catch::Contains("10 tab-separated fields"));
  CHECK_THAT(bad[7], Catch::Contains("input_path"));
}

TEST_CASE("swim: SWIM's with-input-paths format is FB-2010's 3000 machines, others 600") {
  CHECK(SwimClusterSize(Row9("job0", 1, "inputPath1")) == 3000);
  CHECK(SwimClusterSize(Row9("job0", 1, "")) == 600);  // no input named: not that format
  CHECK(SwimClusterSize("job0\t1\t1\t1\t0\t0") == 600);
  CHECK(SwimClusterSize("job0\t1\t1\t1\t0\t0\tinputPath1") == 600);
}

TEST_CASE("swim: the FB-2010 file with input paths, its inputs' blocks on shared holders",
          "[traces]") {
  const std::string path = testing::TracePath("swim-fb/FB-2010_withInputPaths_0_hours00-11.tsv");
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " + path + " is absent");
    return;
  }
  const std::vector<std::string> rows = testing::Lines(testing::ReadWhole(path));
  SynthesisOptions o;
  o.machines = SwimClusterSize(rows.front());
  CHECK(o.machines == 3000);
  SwimParser parser(o);
  TraceCounts got;
  size_t row = 0;
  uint64_t mismatches = 0, readers_of_21 = 0;
  std::map<std::string, std::vector<std::string>> block0;  // input -> holders of its block 0
  REQUIRE(ParseTraceFile(path, &parser, &got, [&](ParseSink* s) {
            for (const TraceEvent& e : s->events) {
              // The row's input path, read here independently of the parser (column 7).
              std::istringstream fields(rows.at(row++));
              std::string input;
              for (int k = 0; k < 7; ++k) std::getline(fields, input, '\t');
              const auto [it, first] = block0.emplace(input, e.tasks[0].replicas);
              mismatches += !first && it->second != e.tasks[0].replicas;
              readers_of_21 += input == "inputPath21";
            }
            s->events.clear();
            s->malformed.clear();
          }).ok());
  CHECK(got.malformed == 0);
  CHECK(got.jobs == rows.size());
  CHECK(block0.size() == 9056);  // SOURCES.md: 9,056 distinct inputs
  CHECK(readers_of_21 == 361);   // the most popular input, every reader on the same holders
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace locsched
