#include "io/traces/line_splitter.h"

namespace locsched {

void LineSplitter::Reset(uint64_t offset, uint64_t line) {
  buffer_.clear();
  begin_ = 0;
  offset_ = offset;
  line_ = line;
}

void LineSplitter::Compact() {
  // Drop handed-out bytes once they dominate, so the buffer does not grow without bound.
  if (begin_ > 0 && begin_ * 2 >= buffer_.size()) {
    buffer_.erase(0, begin_);
    begin_ = 0;
  }
}

bool LineSplitter::Next(std::string_view* line, SourcePos* pos) {
  Compact();
  const size_t nl = buffer_.find('\n', begin_);
  if (nl == std::string::npos) return false;
  *line = std::string_view(buffer_).substr(begin_, nl - begin_);
  pos->line = line_++;
  pos->offset = offset_;
  offset_ += nl + 1 - begin_;
  pos->end = offset_;
  begin_ = nl + 1;
  return true;
}

bool LineSplitter::TakePartial(std::string_view* line, SourcePos* pos) {
  if (partial_bytes() == 0) return false;
  *line = std::string_view(buffer_).substr(begin_);
  pos->line = line_++;
  pos->offset = offset_;
  offset_ += buffer_.size() - begin_;
  pos->end = offset_;
  begin_ = buffer_.size();
  return true;
}

}  // namespace locsched
