#include "io/traces/trace_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "io/traces/line_splitter.h"
#include "io/traces/swim_parser.h"

namespace locsched {

TraceInput::~TraceInput() {
  Close();
}

Status TraceInput::Open(const std::string& path) {
  Close();
  path_ = path;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr)
    return Status::IoError(path, errno ? std::strerror(errno) : "cannot open (out of memory)");
  gzbuffer(f, 1 << 16);
  gz_ = f;
  return Status::Ok();
}

Status TraceInput::Read(char* buf, size_t size, size_t* got) {
  *got = 0;
  if (gz_ == nullptr) return Status::FailedPrecondition(path_, "is not open");
  const int n = gzread(static_cast<gzFile>(gz_), buf, static_cast<unsigned>(size));
  if (n < 0) {
    int code = 0;
    std::string_view what = gzerror(static_cast<gzFile>(gz_), &code);
    if (what.starts_with(path_ + ": ")) what.remove_prefix(path_.size() + 2);  // zlib names it too
    return Status::IoError(
        path_, code == Z_ERRNO ? std::strerror(errno) : "corrupt gzip data: " + std::string(what));
  }
  *got = static_cast<size_t>(n);
  return Status::Ok();
}

void TraceInput::Close() {
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
  gz_ = nullptr;
}

Status ParseTraceFile(const std::string& path, TraceParser* parser, TraceCounts* counts,
                      const std::function<void(ParseSink*)>& drain) {
  TraceInput in;
  if (Status s = in.Open(path); !s.ok()) return s;
  LineSplitter lines;
  ParseSink sink;
  std::string chunk(1 << 16, '\0');
  std::string_view line;
  SourcePos pos;
  const auto flush = [&] {
    for (const TraceEvent& e : sink.events) counts->Add(e);
    counts->malformed += sink.malformed.size();
    drain(&sink);
  };
  // Shape: read a chunk, feed its whole lines, drain; at the end the partial line and Finish.
  for (;;) {
    size_t got = 0;
    if (Status s = in.Read(chunk.data(), chunk.size(), &got); !s.ok()) return s;
    if (got == 0) break;
    lines.Append(std::string_view(chunk).substr(0, got));
    while (lines.Next(&line, &pos)) {
      ++counts->lines;
      parser->Feed(line, pos, &sink);
    }
    flush();
  }
  if (lines.TakePartial(&line, &pos)) {
    ++counts->lines;
    parser->Feed(line, pos, &sink);
  }
  parser->Finish(&sink);
  flush();
  return Status::Ok();
}

uint32_t DefaultClusterSize(TraceFormat format, const std::string& path) {
  if (format != TraceFormat::kSwim) return kSwimFb2009Machines;
  TraceInput in;
  if (!in.Open(path).ok()) return kSwimFb2009Machines;
  LineSplitter lines;
  std::string chunk(1 << 12, '\0');
  std::string_view line;
  SourcePos pos;
  // Shape: the first non-blank row decides; read until one is whole (or the file ends).
  for (size_t got = 1; got > 0;) {
    if (!in.Read(chunk.data(), chunk.size(), &got).ok()) break;
    lines.Append(std::string_view(chunk).substr(0, got));
    while (got > 0 ? lines.Next(&line, &pos) : lines.TakePartial(&line, &pos)) {
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) return SwimClusterSize(line);
    }
  }
  return kSwimFb2009Machines;
}

}  // namespace locsched
