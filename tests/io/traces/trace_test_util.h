// Helpers shared by the parser tests: where the real traces are, reading a
// (gzip) file with zlib directly, and running a parser over a string.
// Test-only; single-threaded.
#pragma once

#include <zlib.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/traces/line_splitter.h"
#include "io/traces/trace_parser.h"

namespace locsched::testing {

/// The shared traces folder (../shared/data/traces next to the source tree).
inline std::string TracePath(const std::string& name) {
  return std::string(LOCSCHED_TRACES_DIR) + "/" + name;
}

/// The whole (decompressed) content of `path`; fails the test if it cannot be read.
inline std::string ReadWhole(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  INFO(path);
  REQUIRE(f != nullptr);
  std::string out;
  char buf[1 << 15];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  REQUIRE(n == 0);
  return out;
}

/// The lines of `text` (a final line without '\n' included).
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// Feeds `text` to `parser` line by line, then Finish.
inline ParseSink ParseText(TraceParser* parser, const std::string& text) {
  LineSplitter lines;
  lines.Append(text);
  ParseSink sink;
  std::string_view line;
  SourcePos pos;
  while (lines.Next(&line, &pos)) parser->Feed(line, pos, &sink);
  if (lines.TakePartial(&line, &pos)) parser->Feed(line, pos, &sink);
  parser->Finish(&sink);
  return sink;
}

/// Tallies the events of a sink.
inline TraceCounts Tally(const ParseSink& sink) {
  TraceCounts c;
  for (const TraceEvent& e : sink.events) c.Add(e);
  c.malformed = sink.malformed.size();
  return c;
}

}  // namespace locsched::testing
