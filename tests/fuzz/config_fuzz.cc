// Fuzz target for the TOML config loader (config/config_loader.h): any text
// either loads to a valid Config that survives a write-and-reload round trip,
// or is rejected with "fuzz:LINE:COL: key: problem" lines and *out untouched.
// Run by libFuzzer (tools/fuzz.sh) and by fuzz_replay in ctest (fuzz/config_corpus).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/config_loader.h"
#include "config/queue_config.h"

namespace locsched {
namespace {

constexpr std::string_view kSource = "fuzz";

// Reports a broken invariant and aborts, which libFuzzer records as a crash.
[[noreturn]] void Fail(const char* invariant, std::string_view detail) {
  std::fprintf(stderr, "config_fuzz: broken invariant: %s [%.*s]\n", invariant,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void Expect(bool holds, const char* invariant, std::string_view detail) {
  if (!holds) Fail(invariant, detail);
}

// Skips a run of digits at *at (at least one, not starting the number with 0).
bool SkipNumber(std::string_view s, size_t* at) {
  const size_t start = *at;
  while (*at < s.size() && std::isdigit(static_cast<unsigned char>(s[*at]))) ++*at;
  return *at > start && s[start] != '0';
}

// One error line: "fuzz:LINE:COL: " followed by a non-empty "key: problem" text.
void CheckErrorLine(std::string_view line) {
  const std::string prefix = std::string(kSource) + ":";
  Expect(line.substr(0, prefix.size()) == prefix, "an error line names the source", line);
  size_t at = prefix.size();
  bool ok = SkipNumber(line, &at) && at < line.size() && line[at++] == ':';
  ok = ok && SkipNumber(line, &at) && line.substr(at, 2) == ": ";
  Expect(ok, "an error line reads SOURCE:LINE:COL: ", line);
  Expect(line.size() > at + 2, "an error line says what is wrong", line);
}

void CheckError(const Status& s) {
  Expect(!s.message().empty(), "an error has a message", "");
  Expect(s.code() == Status::Code::kInvalidArgument, "a load error is invalid_argument",
         s.message());
  std::istringstream lines(s.message());
  for (std::string line; std::getline(lines, line);) CheckErrorLine(line);
}

// The Config written back as TOML, every key with TomlLiteral(format(value)), then the
// tenant queue tables (QueueConfigToml).
std::string ToToml(const Config& c) {
  std::string out;
  std::string_view section;
  for (const ConfigKey& k : ConfigTable()) {
    if (ConfigSection(k) != section) {
      section = ConfigSection(k);
      out += "[" + std::string(section) + "]\n";
    }
    out += std::string(ConfigName(k)) + " = " + TomlLiteral(k, k.format(c)) + "\n";
  }
  return out + QueueConfigToml(c.queues);
}

// A loaded Config is valid, and writing it out and loading that gives it back.
void CheckConfig(const Config& c) {
  Expect(ValidateConfig(c).ok(), "a loaded config validates", ValidateConfig(c).message());
  const std::string text = ToToml(c);
  Config again;
  const Status s = LoadConfigText(text, kSource, &again);
  Expect(s.ok(), "the written-out config loads", s.message() + "\n" + text);
  std::vector<std::string> changed;
  Expect(CheckReload(c, again, &changed).ok() && changed.empty(), "the round trip changes nothing",
         text);
  Expect(again == c, "the round trip gives an equal Config", text);
}

}  // namespace
}  // namespace locsched

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  locsched::Config sentinel;
  sentinel.limits.max_clients = 77;  // not a default: shows whether a failed load wrote *out
  locsched::Config cfg = sentinel;
  const locsched::Status s = locsched::LoadConfigText(text, locsched::kSource, &cfg);
  if (s.ok()) {
    locsched::CheckConfig(cfg);
  } else {
    locsched::CheckError(s);
    locsched::Expect(cfg == sentinel, "a failed load leaves *out untouched", s.message());
  }
  return 0;
}
