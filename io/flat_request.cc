#include "io/flat_request.h"

#include <array>
#include <cstdint>
#include <span>

namespace locsched {
namespace {

// One member of a flat object. `text` holds a string's characters or an
// integer's digits.
struct Member {
  enum class Kind : uint8_t { kString, kCount, kBool };
  std::string_view key;
  Kind kind = Kind::kString;
  std::string_view text;
  uint64_t count = 0;
  bool flag = false;
};

// More members than any flat command has fields (plus op and id): such a line
// goes to the general decoder.
constexpr size_t kMaxMembers = 8;

// A cursor over one line. Each Read fails on anything outside the fast path's
// grammar: whitespace, escapes, control or non-ASCII bytes, nesting, null,
// signs, fractions, exponents, leading zeros, more than 19 digits.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  /// Consumes c if it is next.
  bool Eat(char c) {
    if (pos_ >= s_.size() || s_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  /// True once every byte is consumed.
  bool AtEnd() const { return pos_ == s_.size(); }
  /// A string of printable ASCII without escapes.
  bool ReadString(std::string_view* out);
  /// A string, an unsigned integer, true or false.
  bool ReadValue(Member* m);

 private:
  bool ReadCount(Member* m);
  bool ReadWord(std::string_view word);

  std::string_view s_;
  size_t pos_ = 0;
};

bool Scanner::ReadString(std::string_view* out) {
  if (!Eat('"')) return false;
  for (size_t i = pos_; i < s_.size(); ++i) {
    const auto c = static_cast<unsigned char>(s_[i]);
    if (c == '"') {
      *out = s_.substr(pos_, i - pos_);
      pos_ = i + 1;
      return true;
    }
    if (c < 0x20 || c > 0x7e || c == '\\') return false;
  }
  return false;
}

// At most 19 digits, so the value always fits 64 bits.
bool Scanner::ReadCount(Member* m) {
  const size_t begin = pos_;
  uint64_t n = 0;
  while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
    n = n * 10 + static_cast<uint64_t>(s_[pos_++] - '0');
  const size_t len = pos_ - begin;
  if (len == 0 || len > 19 || (len > 1 && s_[begin] == '0')) return false;
  m->kind = Member::Kind::kCount;
  m->count = n;
  m->text = s_.substr(begin, len);
  return true;
}

bool Scanner::ReadWord(std::string_view word) {
  if (s_.substr(pos_, word.size()) != word) return false;
  pos_ += word.size();
  return true;
}

bool Scanner::ReadValue(Member* m) {
  if (pos_ >= s_.size()) return false;
  const char c = s_[pos_];
  if (c == '"') {
    m->kind = Member::Kind::kString;
    return ReadString(&m->text);
  }
  if (c >= '0' && c <= '9') return ReadCount(m);
  m->kind = Member::Kind::kBool;
  m->flag = c == 't';
  return ReadWord(m->flag ? "true" : "false");
}

// Splits a compact flat object into *n members; false outside the grammar.
bool SplitMembers(std::string_view line, std::array<Member, kMaxMembers>* members, size_t* n) {
  Scanner sc(line);
  *n = 0;
  if (!sc.Eat('{') || sc.Eat('}')) return false;  // "{}" has no op: an error to word
  do {
    if (*n == kMaxMembers) return false;
    Member& m = (*members)[(*n)++];
    if (!sc.ReadString(&m.key) || !sc.Eat(':') || !sc.ReadValue(&m)) return false;
  } while (sc.Eat(','));
  return sc.Eat('}') && sc.AtEnd();
}

bool HasDuplicate(std::span<const Member> ms) {
  for (size_t i = 0; i < ms.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (ms[i].key == ms[j].key) return true;
  return false;
}

const CommandSpec* FindOp(std::span<const Member> ms) {
  for (const Member& m : ms)
    if (m.key == "op") return m.kind == Member::Kind::kString ? FindCommand(m.text) : nullptr;
  return nullptr;
}

// The types the fast path decodes; numbers, kinds and arrays are the general
// decoder's.
bool TypeFits(FieldType type, const Member& m) {
  switch (type) {
    case FieldType::kName:
      return m.kind == Member::Kind::kString && !m.text.empty();
    case FieldType::kString:
      return m.kind == Member::Kind::kString;
    case FieldType::kCount:
      return m.kind == Member::Kind::kCount;
    case FieldType::kPositive:
      return m.kind == Member::Kind::kCount && m.count >= 1;
    case FieldType::kBool:
      return m.kind == Member::Kind::kBool;
    default:
      return false;
  }
}

// As the general decoder: a non-empty string, or an integer's digits.
bool SetId(const Member& m, Request* out) {
  if (m.kind == Member::Kind::kBool || m.text.empty()) return false;
  out->id = m.text;
  out->id_is_number = m.kind == Member::Kind::kCount;
  out->has_id = true;
  return true;
}

// Copies one checked field, as the general decoder's Fill does.
void Set(const Member& m, Request* out) {
  const std::string_view k = m.key;
  if (k == "machine")
    out->machine = m.text;
  else if (k == "job")
    out->job = m.text;
  else if (k == "task")
    out->task = m.text;
  else if (k == "free_slots")
    out->free_slots = m.count;
  else if (k == "slots")
    out->slots = m.count;
  else if (k == "rack")
    out->rack = m.text;
  else if (k == "reason")
    out->reason = m.text;
  else if (k == "command")
    out->command = m.text;
  else if (k == "top")
    out->top = m.count;
  else if (k == "drain")
    out->drain = m.flag;
}

bool HasRequired(std::span<const FieldSpec> fields, std::span<const Member> ms) {
  for (const FieldSpec& f : fields) {
    if (!f.required) continue;
    bool found = false;
    for (const Member& m : ms) found = found || m.key == f.name;
    if (!found) return false;
  }
  return true;
}

}  // namespace

bool DecodeFlatRequest(std::string_view line, Request* out) {
  std::array<Member, kMaxMembers> members;
  size_t n = 0;
  if (!SplitMembers(line, &members, &n)) return false;
  const std::span<const Member> ms(members.data(), n);
  const CommandSpec* spec = FindOp(ms);
  if (spec == nullptr || HasDuplicate(ms) || !HasRequired(spec->fields, ms)) return false;
  *out = Request{};
  out->op = spec->op;
  for (const Member& m : ms) {
    if (m.key == "op") continue;
    if (m.key == "id") {
      if (!SetId(m, out)) return false;
      continue;
    }
    const FieldSpec* f = FindField(spec->fields, m.key);
    if (f == nullptr || !TypeFits(f->type, m)) return false;
    Set(m, out);
  }
  return true;
}

}  // namespace locsched
