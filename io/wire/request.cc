#include "io/wire/request.h"

#include "io/wire/flat_request.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace locsched {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

Status Bad(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(path, what);
}

bool IsCount(const element& v) {
  uint64_t n;
  return v.get(n) == simdjson::SUCCESS;
}

// What is wrong with v as a `type` (arrays are checked element-wise later), or
// nullptr. The caller builds the field path only when there is an error.
const char* TypeError(FieldType type, const element& v) {
  std::string_view s;
  switch (type) {
    case FieldType::kName:
      return v.get(s) == simdjson::SUCCESS && !s.empty() ? nullptr : "must be a non-empty string";
    case FieldType::kString:
      return v.is_string() ? nullptr : "must be a string";
    case FieldType::kCount:
      return IsCount(v) ? nullptr : "must be an integer >= 0";
    case FieldType::kPositive:
      return IsCount(v) && uint64_t(v) >= 1 ? nullptr : "must be an integer >= 1";
    case FieldType::kNumber:
      return v.is_number() && std::isfinite(double(v)) && double(v) >= 0 ? nullptr
                                                                         : "must be a number >= 0";
    case FieldType::kBool:
      return v.is_bool() ? nullptr : "must be true or false";
    case FieldType::kKind:
      return v.get(s) == simdjson::SUCCESS && (s == "map" || s == "reduce")
                 ? nullptr
                 : "must be \"map\" or \"reduce\"";
    case FieldType::kNames:
    case FieldType::kTasks:
      return v.is_array() ? nullptr : "must be an array";
  }
  return nullptr;
}

// Field paths ("tasks[3].replicas[0]") are built only when there is an error to
// report: `Path` is a callable returning the prefix ("" or "tasks[3].").
std::string KeyPath(const std::string& prefix, std::string_view key) {
  return prefix + (key.empty() ? std::string("\"\"") : std::string(key));
}

// True if `key` appears in obj before the member at position `index`.
bool SeenBefore(const object& obj, std::string_view key, size_t index) {
  size_t i = 0;
  for (const auto field : obj) {
    if (i++ == index) return false;
    if (field.key == key) return true;
  }
  return false;
}

// Rejects repeated, unknown and mistyped keys and missing required keys of one object.
template <typename Path>
Status CheckObject(const object& obj, std::span<const FieldSpec> fields, Path prefix,
                   bool top_level) {
  size_t index = 0;
  for (const auto [key, value] : obj) {
    if (SeenBefore(obj, key, index++)) return Bad(KeyPath(prefix(), key), "appears twice");
    if (top_level && (key == "op" || key == "id")) continue;
    const FieldSpec* f = FindField(fields, key);
    if (f == nullptr) return Bad(KeyPath(prefix(), key), "unknown field");
    if (const char* error = TypeError(f->type, value)) return Bad(KeyPath(prefix(), key), error);
  }
  for (const FieldSpec& f : fields)
    if (f.required && obj.at_key(f.name).error() != simdjson::SUCCESS)
      return Bad(prefix() + std::string(f.name), "is required");
  return Status::Ok();
}

template <typename Path>
Status DecodeNames(const array& arr, Path path, std::vector<std::string>* out) {
  if (arr.size() == 0) return Bad(path(), "must name at least one machine");
  out->reserve(arr.size());  // one allocation per task, not one per doubling
  size_t i = 0;
  for (const element item : arr) {
    if (const char* error = TypeError(FieldType::kName, item))
      return Bad(path() + "[" + std::to_string(i) + "]", error);
    out->emplace_back(std::string_view(item));
    ++i;
  }
  return Status::Ok();
}

Status DecodeTask(const element& v, size_t index, TaskRequest* t) {
  const auto path = [index] { return "tasks[" + std::to_string(index) + "]"; };
  object obj;
  if (v.get(obj) != simdjson::SUCCESS) return Bad(path(), "must be an object");
  if (Status s = CheckObject(
          obj, TaskFields(), [&] { return path() + "."; }, false);
      !s.ok())
    return s;
  for (const auto [key, value] : obj) {
    if (key == "task")
      t->task = std::string_view(value);
    else if (key == "kind")
      t->kind = std::string_view(value) == "reduce" ? TaskKind::kReduce : TaskKind::kMap;
    else if (key == "size")
      t->size = double(value);
    else if (key == "duration")
      t->duration = double(value);
  }
  return DecodeNames(
      obj["replicas"].get_array().value_unsafe(), [&] { return path() + ".replicas"; },
      &t->replicas);
}

Status DecodeTasks(const array& arr, Request* out) {
  if (arr.size() == 0) return Bad("tasks", "must hold at least one task");
  out->tasks.resize(arr.size());
  size_t i = 0;
  for (const element task : arr) {
    Status s = DecodeTask(task, i, &out->tasks[i]);
    if (!s.ok()) return s;
    ++i;
  }
  return Status::Ok();
}

// Copies the checked fields of obj into *out, in one pass over its members.
Status Fill(const object& obj, Request* out) {
  Status tasks;  // decoded in place; its error (if any) is returned after the scalars
  for (const auto [key, v] : obj) {
    if (std::string* s = StringField(*out, key))
      *s = std::string_view(v);
    else if (uint64_t* n = CountField(*out, key))
      *n = uint64_t(v);
    else if (key == "weight")
      out->weight = double(v);
    else if (key == "drain")
      out->drain = bool(v);
    else if (key == "finished")
      out->finished = bool(v);
    else if (key == "tasks")
      tasks = DecodeTasks(v.get_array().value_unsafe(), out);
  }
  return tasks;
}

Status DecodeId(const object& obj, Request* out) {
  element id;
  if (obj.at_key("id").get(id) != simdjson::SUCCESS) return Status::Ok();
  std::string_view s;
  uint64_t n;
  if (id.get(s) == simdjson::SUCCESS && !s.empty()) {
    out->id = s;
  } else if (id.get(n) == simdjson::SUCCESS) {
    out->id = std::to_string(n);
    out->id_is_number = true;
  } else {
    return Bad("id", "must be a non-empty string or an integer >= 0");
  }
  out->has_id = true;
  return Status::Ok();
}

Status DecodeOp(const object& obj, const CommandSpec** spec) {
  element op;
  if (obj.at_key("op").get(op) != simdjson::SUCCESS) return Bad("op", "is required");
  std::string_view name;
  if (op.get(name) != simdjson::SUCCESS) return Bad("op", "must be a string");
  *spec = FindCommand(name);
  if (*spec != nullptr) return Status::Ok();
  if (IsRetiredQueuesOp(name)) return Bad("op", std::string(kQueuesSplit));
  const std::string_view guess = SuggestCommand(name);
  return Bad("op", "unknown operation '" + std::string(name) + "'" +
                       (guess.empty() ? std::string(" (try \"help\")")
                                      : "; did you mean '" + std::string(guess) + "'?"));
}

// After simdjson refused a number, finds the first number literal out of range
// (an integer beyond 64 bits, a real beyond a double) and the field path holding
// it, so the error names the field. Error path only; stops at anything malformed.
class NumberRangeFinder {
 public:
  explicit NumberRangeFinder(std::string_view s) : s_(s) {}
  /// The field path ("tasks[2].size") and the literal, or nothing.
  bool Find(std::string* path, std::string* literal) {
    if (!Value("", 0)) return false;
    *path = path_;
    *literal = literal_;
    return true;
  }

 private:
  static constexpr int kMaxDepth = 64;

  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool Eat(char ch) {
    Space();
    if (i_ >= s_.size() || s_[i_] != ch) return false;
    ++i_;
    return true;
  }
  // A string's raw text (escapes kept), or false if it does not close.
  bool String(std::string_view* out) {
    const size_t start = ++i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) return false;
    *out = s_.substr(start, i_++ - start);
    return true;
  }
  // True when the value at i_ holds the out-of-range number (then path_ is set);
  // false when it does not, or at anything malformed (then i_ stops moving on).
  bool Value(const std::string& path, int depth) {
    Space();
    if (i_ >= s_.size() || depth > kMaxDepth) return Stop();
    const char ch = s_[i_];
    if (ch == '{') return Object(path, depth);
    if (ch == '[') return Array(path, depth);
    if (ch == '"') {
      std::string_view ignored;
      return String(&ignored) ? false : Stop();
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) return Number(path);
    while (i_ < s_.size() && s_[i_] >= 'a' && s_[i_] <= 'z') ++i_;  // true, false, null
    return false;
  }
  bool Object(const std::string& path, int depth) {
    ++i_;
    if (Eat('}')) return false;
    for (;;) {
      Space();
      std::string_view key;
      if (i_ >= s_.size() || s_[i_] != '"' || !String(&key) || !Eat(':')) return Stop();
      const std::string child = path.empty() ? std::string(key) : path + "." + std::string(key);
      if (Value(child, depth + 1) || stopped_) return !stopped_;
      if (Eat('}')) return false;
      if (!Eat(',')) return Stop();
    }
  }
  bool Array(const std::string& path, int depth) {
    ++i_;
    if (Eat(']')) return false;
    for (size_t index = 0;; ++index) {
      if (Value(path + "[" + std::to_string(index) + "]", depth + 1) || stopped_) return !stopped_;
      if (Eat(']')) return false;
      if (!Eat(',')) return Stop();
    }
  }
  bool Number(const std::string& path) {
    const size_t start = i_;
    bool integer = true;
    while (i_ < s_.size() && std::strchr("0123456789+-.eE", s_[i_]) != nullptr) {
      if (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E') integer = false;
      ++i_;
    }
    const std::string text(s_.substr(start, i_ - start));
    bool out_of_range;
    if (integer && text[0] == '-') {
      int64_t v;
      out_of_range = std::from_chars(text.data(), text.data() + text.size(), v).ec ==
                     std::errc::result_out_of_range;
    } else if (integer) {
      uint64_t v;
      out_of_range = std::from_chars(text.data(), text.data() + text.size(), v).ec ==
                     std::errc::result_out_of_range;
    } else {
      out_of_range = !std::isfinite(std::strtod(text.c_str(), nullptr));
    }
    if (!out_of_range) return false;
    path_ = path.empty() ? "request" : path;
    literal_ = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    return true;
  }
  bool Stop() {
    stopped_ = true;
    return false;
  }

  std::string_view s_;
  size_t i_ = 0;
  bool stopped_ = false;
  std::string path_, literal_;
};

// The error for a line simdjson refused: an out-of-range number by its field, else
// the line as a whole.
Status ParseError(std::string_view line, simdjson::error_code error) {
  std::string path, literal;
  if (error == simdjson::NUMBER_ERROR && NumberRangeFinder(line).Find(&path, &literal))
    return Bad(path, literal + " is out of range of a 64-bit number");
  return Bad("request", "is not valid JSON");
}

}  // namespace

std::string* StringField(Request& r, std::string_view key) {
  if (key == "machine") return &r.machine;
  if (key == "job") return &r.job;
  if (key == "task") return &r.task;
  if (key == "rack") return &r.rack;
  if (key == "reason") return &r.reason;
  if (key == "command") return &r.command;
  if (key == "state") return &r.state;
  if (key == "sort") return &r.sort;
  if (key == "queue") return &r.queue;
  if (key == "user") return &r.user;
  return nullptr;
}

uint64_t* CountField(Request& r, std::string_view key) {
  if (key == "free_slots") return &r.free_slots;
  if (key == "tasks_total") return &r.tasks_total;
  if (key == "slots") return &r.slots;
  if (key == "top") return &r.top;
  if (key == "limit") return &r.limit;
  return nullptr;
}

// Every field back to its initializer in request.h (a test checks Clear
// against a default-constructed Request after every command's full request).
void Request::Clear() {
  op = Op::kStatus;
  has_id = id_is_number = false;
  for (std::string* s :
       {&id, &machine, &job, &task, &rack, &reason, &command, &state, &sort, &queue, &user})
    s->clear();
  limit = 0;
  finished = false;
  slots = 1;
  free_slots = 0;
  top = 10;
  weight = 1;
  drain = true;
  tasks_total = 0;
  tasks.clear();
}

namespace {

// FNV-1a, fed field by field; every piece ends with a separator byte so that
// ("ab","c") and ("a","bc") differ.
class Fnv {
 public:
  Fnv& Bytes(std::string_view s) {
    for (char ch : s) Byte(static_cast<unsigned char>(ch));
    Byte(0xff);
    return *this;
  }
  Fnv& Number(uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<unsigned char>(v >> (8 * i)));
    return *this;
  }
  Fnv& Real(double d) {
    uint64_t bits;
    static_assert(sizeof bits == sizeof d);
    std::memcpy(&bits, &d, sizeof bits);
    return Number(bits);
  }
  uint64_t value() const { return h_; }

 private:
  void Byte(unsigned char b) {
    h_ ^= b;
    h_ *= 0x100000001b3ull;
  }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace

uint64_t RequestHash(const Request& r) {
  Fnv h;
  h.Number(static_cast<uint64_t>(r.op));
  for (const std::string* s : {&r.machine, &r.job, &r.task, &r.rack, &r.reason, &r.command})
    h.Bytes(*s);
  h.Number(r.slots).Number(r.free_slots).Number(r.top).Real(r.weight).Number(r.drain);
  // The listing fields only when set, so every other request hashes as it always did (the
  // hashes of a snapshot's dedupe window stay valid across an upgrade).
  if (!r.state.empty() || !r.sort.empty() || r.limit != 0 || r.finished)
    h.Bytes(r.state).Bytes(r.sort).Number(r.limit).Number(r.finished);
  // The tenancy fields likewise, only when set.
  if (!r.queue.empty() || !r.user.empty()) h.Bytes(r.queue).Bytes(r.user);
  h.Number(r.tasks_total).Number(r.tasks.size());
  for (const TaskRequest& t : r.tasks) {
    h.Bytes(t.task).Number(static_cast<uint64_t>(t.kind)).Real(t.size).Real(t.duration);
    h.Number(t.replicas.size());
    for (const std::string& m : t.replicas) h.Bytes(m);
  }
  // 0 stands for "unknown" in the dedupe window (entries from older snapshots).
  return h.value() == 0 ? 1 : h.value();
}

Status DecodeRequest(std::string_view line, Request* out) {
  if (DecodeFlatRequest(line, out)) return Status::Ok();
  return DecodeRequestGeneral(line, out);
}

Status DecodeRequestGeneral(std::string_view line, Request* out) {
  out->Clear();
  // A NUL byte would otherwise surface as a bare parse error.
  if (line.find('\0') != std::string_view::npos) return Bad("request", "contains a NUL byte");
  // One parser per thread, reused: it keeps its buffers between lines.
  thread_local simdjson::dom::parser parser;
  element doc;
  if (const auto error =
          parser.parse(line.data(), line.size(), /*realloc_if_needed=*/true).get(doc);
      error != simdjson::SUCCESS)
    return ParseError(line, error);
  object obj;
  if (doc.get(obj) != simdjson::SUCCESS) return Bad("request", "must be a JSON object");
  const CommandSpec* spec = nullptr;
  if (Status s = DecodeOp(obj, &spec); !s.ok()) return s;
  out->op = spec->op;
  if (Status s = DecodeId(obj, out); !s.ok()) return s;
  if (Status s = CheckObject(
          obj, spec->fields, [] { return std::string(); }, true);
      !s.ok())
    return s;
  return Fill(obj, out);
}

}  // namespace locsched
