#include "io/wire/flat_request.h"

#include <array>
#include <cstdint>
#include <span>

namespace locsched {
namespace {

// One member of a flat object. `text` holds a string's characters or an
// integer's digits (unset for a boolean), `count` an integer's value, `flag` a
// boolean's. No initializers: an array of them is not zeroed for every line.
struct Member {
  enum class Kind : uint8_t { kString, kCount, kBool };
  std::string_view key;
  Kind kind;
  std::string_view text;
  uint64_t count;
  bool flag;
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

// What a byte does inside a string: printable ASCII other than the quote and
// the backslash is plain; the quote ends it; anything else leaves the fast path.
enum : uint8_t { kPlain, kQuote, kOther };

constexpr std::array<uint8_t, 256> MakeStringClasses() {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) classes[c] = c >= 0x20 && c <= 0x7e && c != '\\' ? kPlain : kOther;
  classes['"'] = kQuote;
  return classes;
}

constexpr std::array<uint8_t, 256> kStringClasses = MakeStringClasses();

// One table look-up per byte: names are short, so this beats memchr plus a check.
bool Scanner::ReadString(std::string_view* out) {
  if (!Eat('"')) return false;
  for (size_t i = pos_; i < s_.size(); ++i) {
    const uint8_t cls = kStringClasses[static_cast<unsigned char>(s_[i])];
    if (cls == kPlain) continue;
    if (cls == kOther) return false;
    *out = s_.substr(pos_, i - pos_);
    pos_ = i + 1;
    return true;
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

// The request's op: the string of the one "op" member.
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

// Copies one checked field through the same field map as the general decoder.
void Set(const Member& m, Request* out) {
  if (std::string* s = StringField(*out, m.key))
    *s = m.text;
  else if (uint64_t* n = CountField(*out, m.key))
    *n = m.count;
  else if (m.key == "drain")
    out->drain = m.flag;
  else if (m.key == "finished")
    out->finished = m.flag;
}

// Bit i stands for spec.fields[i]; the two top bits for "op" and "id".
constexpr uint32_t kOpBit = 1u << 31, kIdBit = 1u << 30;

uint32_t RequiredBits(std::span<const FieldSpec> fields) {
  uint32_t bits = kOpBit;
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].required) bits |= 1u << i;
  return bits;
}

// The bit of member m's key, 0 if the key is not the command's, or its value
// is not one the fast path takes (the general decoder then words the error).
uint32_t CheckMember(const CommandSpec& spec, const Member& m, Request* out) {
  if (m.key == "op") return kOpBit;
  if (m.key == "id") return SetId(m, out) ? kIdBit : 0;
  const FieldSpec* f = FindField(spec.fields, m.key);
  if (f == nullptr || !TypeFits(f->type, m)) return 0;
  Set(m, out);
  return 1u << (f - spec.fields.data());
}

}  // namespace

bool DecodeFlatRequest(std::string_view line, Request* out) {
  std::array<Member, kMaxMembers> members;
  size_t n = 0;
  if (!SplitMembers(line, &members, &n)) return false;
  const std::span<const Member> ms(members.data(), n);
  const CommandSpec* spec = FindOp(ms);
  if (spec == nullptr || spec->fields.size() >= 30) return false;
  out->Clear();
  out->op = spec->op;
  uint32_t seen = 0;
  for (const Member& m : ms) {
    const uint32_t bit = CheckMember(*spec, m, out);
    if (bit == 0 || (seen & bit) != 0) return false;  // not taken, or a key given twice
    seen |= bit;
  }
  const uint32_t required = RequiredBits(spec->fields);
  return (seen & required) == required;
}

}  // namespace locsched
