// DefaultClusterSize: the cluster a replay uses when not told, from a SWIM file's first row
// (plain or gzip, blank lines before it, no final newline, a file not there).
#include "io/traces/trace_reader.h"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace locsched {
namespace {

// A temporary file holding `text`, gzipped if `gzip`; removed with the object.
struct TempTrace {
  std::string path;
  TempTrace(const std::string& text, bool gzip) {
    path = (std::filesystem::temp_directory_path() /
            ("locsched-trace-reader-" + std::to_string(::getpid()) + (gzip ? ".gz" : ".tsv")))
               .string();
    if (gzip) {
      gzFile f = gzopen(path.c_str(), "wb");
      REQUIRE(f != nullptr);
      gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
      gzclose(f);
    } else {
      std::ofstream(path) << text;
    }
  }
  ~TempTrace() { std::remove(path.c_str()); }
};

TEST_CASE("DefaultClusterSize: FB-2010's 3000 for SWIM's with-input-paths rows, else 600") {
  const std::string fb2010 = "job0\t1\t1\t2267942\t0\t1937944\tinputPath1\t\t\n";
  const std::string fb2009 = "job0\t0\t0\t35\t0\t2000\n";
  for (const bool gzip : {false, true}) {
    INFO(gzip);
    CHECK(DefaultClusterSize(TraceFormat::kSwim, TempTrace(fb2010, gzip).path) == 3000);
    CHECK(DefaultClusterSize(TraceFormat::kSwim, TempTrace("\n \n" + fb2010, gzip).path) == 3000);
    CHECK(DefaultClusterSize(TraceFormat::kSwim,
                             TempTrace(fb2010.substr(0, fb2010.size() - 1), gzip).path) == 3000);
    CHECK(DefaultClusterSize(TraceFormat::kSwim, TempTrace(fb2009 + fb2010, gzip).path) == 600);
    CHECK(DefaultClusterSize(TraceFormat::kSwim, TempTrace("", gzip).path) == 600);
    CHECK(DefaultClusterSize(TraceFormat::kGoogleJobEvents, TempTrace(fb2010, gzip).path) == 600);
  }
  CHECK(DefaultClusterSize(TraceFormat::kSwim, "/nonexistent/trace.tsv") == 600);
}

}  // namespace
}  // namespace locsched
