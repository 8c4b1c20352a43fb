// The parsers through their common interface: the same events whatever the
// chunking of the input (follow mode reads arbitrary pieces), and mutated real
// lines are reported or parsed, never a crash; PlaceReplicas with and without racks;
// PlaceInputBlock, an input's blocks placed once for every job that reads them.
#include "io/traces/trace_parser.h"

#include <map>
#include <set>

#include "base/rng.h"
#include "tests/io/traces/trace_test_util.h"

namespace locsched {
namespace {

struct Sample {
  TraceFormat format;
  const char* file;
};

const Sample kSamples[] = {
    {TraceFormat::kJobHistory, "hadoop-rumen/sample-job-tracker-logs.gz"},
    {TraceFormat::kRumen, "hadoop-rumen/2jobs2min-rumen-jh.json"},
    {TraceFormat::kSwim, "swim-fb/FB-2009_samples_24_times_1hr_0.tsv"},
    {TraceFormat::kGoogleJobEvents,
     "google-clusterdata-2011-2/job_events/part-00000-of-00500.csv.gz"},
};

// Feeds `text` in chunks of random size (1..max_chunk bytes) through a LineSplitter.
ParseSink ParseChunked(TraceParser* parser, const std::string& text, Rng* rng, uint32_t max_chunk) {
  LineSplitter lines;
  ParseSink sink;
  std::string_view line;
  SourcePos pos;
  for (size_t at = 0; at < text.size();) {
    const size_t n = std::min<size_t>(1 + rng->Below(max_chunk), text.size() - at);
    lines.Append(std::string_view(text).substr(at, n));
    at += n;
    while (lines.Next(&line, &pos)) parser->Feed(line, pos, &sink);
  }
  if (lines.TakePartial(&line, &pos)) parser->Feed(line, pos, &sink);
  parser->Finish(&sink);
  return sink;
}

TEST_CASE("trace parsers: chunk boundaries do not change the events or their positions",
          "[traces]") {
  Rng rng(7);
  for (const Sample& s : kSamples) {
    INFO(s.file);
    const std::string text = testing::ReadWhole(testing::TracePath(s.file));
    auto whole = MakeTraceParser(s.format, SynthesisOptions{});
    auto chunked = MakeTraceParser(s.format, SynthesisOptions{});
    const ParseSink a = testing::ParseText(whole.get(), text);
    const ParseSink b = ParseChunked(chunked.get(), text, &rng, 4096);
    const auto key = [](const ParseSink& sink) {
      std::vector<std::tuple<uint64_t, uint64_t, uint32_t, std::string>> out;
      for (const TraceEvent& e : sink.events)
        out.emplace_back(e.pos.offset, e.pos.line, e.index, e.job);
      return out;
    };
    CHECK(a.malformed.size() == b.malformed.size());
    CHECK(a.events.size() == b.events.size());
    CHECK(key(a) == key(b));
  }
}

TEST_CASE("trace parsers: mutated real lines are skipped or parsed, never a crash", "[traces]") {
  Rng rng(11);
  for (const Sample& s : kSamples) {
    INFO(s.file);
    const std::vector<std::string> lines =
        testing::Lines(testing::ReadWhole(testing::TracePath(s.file)));
    std::string text;
    // The first 400 lines, each with a few random bytes replaced, dropped or cut short.
    for (size_t i = 0; i < std::min<size_t>(lines.size(), 400); ++i) {
      std::string line = lines[i];
      for (int k = 0; k < 3 && !line.empty(); ++k) {
        const size_t at = rng.Below(static_cast<uint32_t>(line.size()));
        switch (rng.Below(3)) {
          case 0:
            line[at] = static_cast<char>(rng.Below(256));
            break;
          case 1:
            line.erase(at, 1);
            break;
          default:
            line.resize(at);
            break;
        }
      }
      text += line + "\n";
    }
    auto parser = MakeTraceParser(s.format, SynthesisOptions{});
    const ParseSink sink = ParseChunked(parser.get(), text, &rng, 512);
    for (const Malformed& m : sink.malformed) {
      CHECK_FALSE(m.error.ok());
      CHECK(m.pos.line >= 1);
    }
    CHECK(sink.events.size() + sink.malformed.size() > 0);
  }
}

// Machine number of a placed replica name "m<i>".
uint32_t MachineOf(const std::string& name) {
  return static_cast<uint32_t>(std::stoul(name.substr(1)));
}

TEST_CASE("PlaceReplicas over racks: one replica on a rack, the other two together on another") {
  SynthesisOptions o;
  o.machines = 40;
  o.racks = 5;  // 8 machines a rack
  for (uint64_t i = 0; i < 2000; ++i) {
    const std::vector<std::string> r = PlaceReplicas(o, "job" + std::to_string(i % 7), i);
    REQUIRE(r.size() == 3);
    uint32_t m[3], rack[3];
    for (int k = 0; k < 3; ++k) {
      m[k] = MachineOf(r[k]);
      REQUIRE(m[k] < o.machines);
      rack[k] = m[k] * o.racks / o.machines;
    }
    CHECK(m[0] != m[1]);
    CHECK(m[1] != m[2]);
    CHECK(m[0] != m[2]);
    CHECK(rack[0] != rack[1]);
    CHECK(rack[1] == rack[2]);
    CHECK(r == PlaceReplicas(o, "job" + std::to_string(i % 7), i));  // deterministic
  }
  // One rack, or none, is today's uniform placement: the same draws.
  SynthesisOptions flat = o;
  flat.racks = 0;
  SynthesisOptions one = o;
  one.racks = 1;
  for (uint64_t i = 0; i < 100; ++i)
    CHECK(PlaceReplicas(flat, "j", i) == PlaceReplicas(one, "j", i));
  // Racks of one machine: the third replica goes anywhere else.
  o.racks = 40;
  for (uint64_t i = 0; i < 200; ++i) {
    const std::vector<std::string> r = PlaceReplicas(o, "j", i);
    REQUIRE(r.size() == 3);
    CHECK(r[0] != r[1]);
    CHECK(r[1] != r[2]);
    CHECK(r[0] != r[2]);
  }
}

TEST_CASE("PlaceInputBlock: one placement per block of an input, whoever reads it") {
  SynthesisOptions o;
  o.machines = 3000;
  o.seed = 5;
  std::set<std::vector<std::string>> distinct;
  for (uint64_t b = 0; b < 200; ++b) {
    const std::vector<std::string> r = PlaceInputBlock(o, "inputPath21", b);
    REQUIRE(r.size() == 3);
    CHECK(std::set<std::string>(r.begin(), r.end()).size() == 3);
    for (const std::string& m : r) CHECK(MachineOf(m) < o.machines);
    CHECK(r == PlaceInputBlock(o, "inputPath21", b));  // deterministic: no state, no order
    distinct.insert(r);
  }
  CHECK(distinct.size() == 200);  // blocks of one input spread over the cluster
  CHECK(PlaceInputBlock(o, "inputPath21", 0) != PlaceInputBlock(o, "inputPath22", 0));
  // An input's draws are its own: not those of a job that happens to bear its name.
  CHECK(PlaceInputBlock(o, "inputPath21", 0) != PlaceReplicas(o, "inputPath21", 0));
  SynthesisOptions reseeded = o;
  reseeded.seed = 6;
  CHECK(PlaceInputBlock(reseeded, "inputPath21", 0) != PlaceInputBlock(o, "inputPath21", 0));
  // With racks, HDFS's rule: the second and third replica together on another rack.
  o.racks = 100;
  for (uint64_t b = 0; b < 300; ++b) {
    const std::vector<std::string> r = PlaceInputBlock(o, "inputPath7", b);
    REQUIRE(r.size() == 3);
    const auto rack = [&](const std::string& m) { return MachineOf(m) * o.racks / o.machines; };
    CHECK(rack(r[0]) != rack(r[1]));
    CHECK(rack(r[1]) == rack(r[2]));
    CHECK(r[1] != r[2]);
  }
}

TEST_CASE("ParseTenants: NAME:SHARE lists; errors name the part at fault") {
  std::vector<TenantShare> t;
  REQUIRE(ParseTenants("etl:0.6,adhoc:0.3", &t).ok());
  CHECK(t == std::vector<TenantShare>{{"etl", 0.6}, {"adhoc", 0.3}});
  for (const char* bad : {"", "etl", "etl:", ":0.5", "etl:0", "etl:1.5", "etl:x", "a:0.6,b:0.6"}) {
    INFO(bad);
    const Status s = ParseTenants(bad, &t);
    CHECK_FALSE(s.ok());
    CHECK(s.message().rfind("--tenants: ", 0) == 0);
  }
}

TEST_CASE("DrawTenant: seeded by the job's name, shares hold over many jobs") {
  SynthesisOptions o;
  REQUIRE(ParseTenants("etl:0.6,adhoc:0.3", &o.tenants).ok());
  std::map<std::string, int> n;
  for (int i = 0; i < 20000; ++i) ++n[std::string(DrawTenant(o, "job" + std::to_string(i)))];
  CHECK(n["etl"] == Approx(12000).margin(400));
  CHECK(n["adhoc"] == Approx(6000).margin(400));
  CHECK(n[""] == Approx(2000).margin(300));
  CHECK(DrawTenant(o, "job7") == DrawTenant(o, "job7"));
  o.seed = 2;
  int same = 0;
  SynthesisOptions first;
  first.tenants = o.tenants;
  for (int i = 0; i < 1000; ++i)
    same += DrawTenant(o, std::to_string(i)) == DrawTenant(first, std::to_string(i));
  CHECK(same < 1000);  // another seed, another draw
  CHECK(DrawTenant(SynthesisOptions{}, "job7").empty());
}

}  // namespace
}  // namespace locsched
