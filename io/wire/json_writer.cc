#include "io/wire/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace locsched {

namespace {

bool Plain(unsigned char u) {
  return u >= 0x20 && u != '"' && u != '\\';
}

// s quoted, then `after` unless it is 0, when s needs no escapes (names and keys
// nearly always): one growth of *out and one copy, not a push_back per piece.
bool AppendPlainQuoted(std::string_view s, char after, std::string* out) {
  for (const char c : s)
    if (!Plain(static_cast<unsigned char>(c))) return false;
  const size_t at = out->size();
  out->resize(at + s.size() + (after ? 3 : 2));
  char* p = out->data() + at;
  *p++ = '"';
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p[s.size()] = '"';
  if (after) p[s.size() + 1] = after;
  return true;
}

// s quoted with escapes, for a string AppendPlainQuoted turned down. Runs of plain
// characters are appended whole; only quotes, backslashes and control characters
// are escaped one by one.
void AppendEscapedQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (Plain(u)) continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    if (u == '"' || u == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(u));
    } else if (u == '\n') {
      out->append("\\n");
    } else if (u == '\t') {
      out->append("\\t");
    } else if (u == '\r') {
      out->append("\\r");
    } else {
      out->append("\\u00");
      out->push_back(kHex[u >> 4]);
      out->push_back(kHex[u & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  if (!AppendPlainQuoted(s, 0, out)) AppendEscapedQuoted(s, out);
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;
  if (depth_ > kWordLevels) {
    if (deeper_.back()) out_->push_back(',');
    deeper_.back() = true;
    return;
  }
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  if (has_items_ & bit) out_->push_back(',');
  has_items_ |= bit;
}

void JsonWriter::Open(bool has_items) {
  if (depth_ >= kWordLevels) {
    deeper_.push_back(has_items);
  } else {
    const uint64_t bit = uint64_t{1} << depth_;
    has_items_ = has_items ? has_items_ | bit : has_items_ & ~bit;
  }
  ++depth_;
}

void JsonWriter::Close() {
  if (depth_ > kWordLevels) deeper_.pop_back();
  --depth_;
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_->push_back('{');
  Open(false);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_->push_back('}');
  Close();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_->push_back('[');
  Open(false);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_->push_back(']');
  Close();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  if (!AppendPlainQuoted(key, ':', out_)) {
    AppendEscapedQuoted(key, out_);  // scanned once already: straight to the escapes
    out_->push_back(':');
  }
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendJsonString(s, out_);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
  BeforeValue();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::Double(double v) {
  BeforeValue();
  if (!std::isfinite(v)) {
    out_->append("null");
    return *this;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
  BeforeValue();
  out_->append(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_->append(json);
  return *this;
}

void JsonWriter::ResumeObject(bool has_members) {
  Open(has_members);
}

}  // namespace locsched
