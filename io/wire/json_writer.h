// JsonWriter: appends compact JSON to a std::string, for the daemon's reply
// lines (hot path: a heartbeat reply is built without a DOM). The caller
// nests Begin/End correctly; commas are inserted automatically.
// Not thread-safe; one writer per reply being built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locsched {

/// Streaming JSON output with automatic commas.
class JsonWriter {
 public:
  /// Appends to *out (which may already hold text).
  explicit JsonWriter(std::string* out) : out_(out) {}

  /// Opens an object ("{").
  JsonWriter& BeginObject();
  /// Closes the innermost object.
  JsonWriter& EndObject();
  /// Opens an array ("[").
  JsonWriter& BeginArray();
  /// Closes the innermost array.
  JsonWriter& EndArray();
  /// Writes an object key; the next value belongs to it.
  JsonWriter& Key(std::string_view key);
  /// A string value, escaped.
  JsonWriter& String(std::string_view s);
  /// An unsigned integer value.
  JsonWriter& Uint(uint64_t v);
  /// A signed integer value.
  JsonWriter& Int(int64_t v);
  /// A number, shortest round-trip form; non-finite values become null.
  JsonWriter& Double(double v);
  /// true or false.
  JsonWriter& Bool(bool v);
  /// null.
  JsonWriter& Null();
  /// Already-serialized JSON text, inserted as one value.
  JsonWriter& Raw(std::string_view json);

  /// Key plus string value.
  JsonWriter& Field(std::string_view key, std::string_view v) { return Key(key).String(v); }
  /// Key plus string value (a literal).
  JsonWriter& Field(std::string_view key, const char* v) { return Key(key).String(v); }
  /// Key plus unsigned value.
  JsonWriter& Field(std::string_view key, uint64_t v) { return Key(key).Uint(v); }
  /// Key plus unsigned value.
  JsonWriter& Field(std::string_view key, uint32_t v) { return Key(key).Uint(v); }
  /// Key plus number value.
  JsonWriter& Field(std::string_view key, double v) { return Key(key).Double(v); }
  /// Key plus boolean value.
  JsonWriter& Field(std::string_view key, bool v) { return Key(key).Bool(v); }

  /// Tells the writer that an object is already open in the output (its "{"
  /// was written earlier, possibly with members), so Key() adds a comma first
  /// when `has_members`.
  void ResumeObject(bool has_members);

 private:
  void BeforeValue();
  void Open(bool has_items);
  void Close();

  std::string* out_;
  // Per open container, innermost last: whether something was written in it
  // already. The first 64 levels are bits of one word, so building a reply
  // allocates nothing (a vector<bool> cost a malloc and a free per request);
  // deeper levels go to `deeper_`.
  static constexpr uint32_t kWordLevels = 64;  // the bits of has_items_
  uint64_t has_items_ = 0;
  uint32_t depth_ = 0;
  std::vector<bool> deeper_;
  bool after_key_ = false;
};

/// Appends s as a JSON string literal (quoted and escaped) to *out.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace locsched
