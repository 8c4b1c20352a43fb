#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/config_loader.h"

namespace locsched {
namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(LOCSCHED_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Loads `text` and returns the error message ("" on success).
std::string LoadError(const std::string& text, Config* out = nullptr) {
  Config c;
  Status s = LoadConfigText(text, "test.toml", out ? out : &c);
  return s.message();
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "section.key" -> the comment lines directly above it, from a commented TOML file.
std::map<std::string, std::string> KeysWithComments(const std::string& file) {
  std::map<std::string, std::string> keys;
  std::istringstream in(file);
  std::string line, section, comment;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty()) {
      comment.clear();
    } else if (line[0] == '#') {
      comment += line + "\n";
    } else if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      comment.clear();
    } else if (line.find('=') != std::string::npos) {
      keys[section + "." + Trim(line.substr(0, line.find('=')))] = comment;
      comment.clear();
    }
  }
  return keys;
}

}  // namespace

TEST_CASE("every default_text is what a default Config holds") {
  const Config defaults;
  for (const ConfigKey& k : ConfigTable()) {
    INFO(k.key);
    CHECK(k.format(defaults) == k.default_text);
    Config c;
    REQUIRE(SetConfigText(k, k.default_text, &c).ok());
    CHECK(c == defaults);
  }
}

TEST_CASE("the table is well formed") {
  std::set<std::string_view> seen;
  for (const ConfigKey& k : ConfigTable()) {
    INFO(k.key);
    CHECK(seen.insert(k.key).second);
    CHECK(k.key.find('.') != std::string_view::npos);
    CHECK(!ConfigSection(k).empty());
    CHECK(!ConfigName(k).empty());
    CHECK(!k.help.empty());
    CHECK(k.apply != nullptr);
    CHECK(k.format != nullptr);
    CHECK(FindConfigKey(k.key) == &k);
    CHECK((k.type == ConfigType::kEnum) == !k.allowed.empty());
    if (k.type == ConfigType::kInt) CHECK(k.min_int <= k.max_int);
  }
  CHECK(seen.size() == 77);
  CHECK(FindConfigKey("scheduler.nope") == nullptr);
}

TEST_CASE("enum values match the core's policy names") {
  for (std::string_view name : FindConfigKey("scheduler.policy")->allowed) {
    INFO(name);
    REQUIRE(ParsePolicyKind(name).has_value());
    CHECK(PolicyKindName(*ParsePolicyKind(name)) == name);
  }
  for (std::string_view name : FindConfigKey("scheduler.machine_queue_order")->allowed) {
    INFO(name);
    REQUIRE(ParseIntraQueue(name).has_value());
    CHECK(IntraQueueName(*ParseIntraQueue(name)) == name);
  }
}

TEST_CASE("every policy of the core is selectable as scheduler.policy") {
  const std::span<const std::string_view> allowed = FindConfigKey("scheduler.policy")->allowed;
  for (std::string_view name : PolicyNames()) {
    INFO(name);
    CHECK(std::find(allowed.begin(), allowed.end(), name) != allowed.end());
    Config c;
    REQUIRE(
        LoadConfigText("[scheduler]\npolicy = \"" + std::string(name) + "\"\n", "t.toml", &c).ok());
    CHECK(PolicyKindName(c.scheduler.policy) == name);
  }
}

TEST_CASE("the YARN locality keys reject values out of range, naming the key") {
  CHECK(
      LoadError("[scheduler]\nrack_locality_delay = -2\n").find("scheduler.rack_locality_delay") !=
      std::string::npos);
  CHECK(LoadError("[scheduler]\nlocality_threshold_node = 1.5\n")
            .find("scheduler.locality_threshold_node") != std::string::npos);
  Config c;
  REQUIRE(LoadConfigText("[scheduler]\npolicy = \"capacity-scheduler\"\nnode_locality_delay = "
                         "7\nrack_locality_delay = 3\n",
                         "t.toml", &c)
              .ok());
  CHECK(c.scheduler.node_locality_delay == 7);
  CHECK(c.scheduler.rack_locality_delay == 3);
}

TEST_CASE("an empty file gives the defaults") {
  Config c;
  c.scheduler.alpha = 0.5;
  REQUIRE(LoadConfigText("", "empty.toml", &c).ok());
  CHECK(c == Config{});
}

TEST_CASE("the shipped locsched.toml equals the defaults and documents every key") {
  Config c;
  c.limits.max_clients = 7;
  Status s = LoadConfigFile(std::string(LOCSCHED_SOURCE_DIR) + "/config/locsched.toml", &c);
  INFO(s.message());
  REQUIRE(s.ok());
  CHECK(c == Config{});
  std::map<std::string, std::string> keys = KeysWithComments(ReadSource("config/locsched.toml"));
  CHECK(keys.size() == ConfigTable().size());
  for (const ConfigKey& k : ConfigTable()) {
    INFO(k.key);
    REQUIRE(keys.count(std::string(k.key)) == 1);
    const std::string& comment = keys[std::string(k.key)];
    CHECK(comment.find(k.reloadable ? "Reloadable: yes." : "Reloadable: no.") != std::string::npos);
  }
}

TEST_CASE("docs/config.md lists every key with its default and reload flag") {
  std::string doc = ReadSource("docs/config.md");
  for (const ConfigKey& k : ConfigTable()) {
    INFO(k.key);
    size_t row = doc.find("| `" + std::string(k.key) + "` |");
    REQUIRE(row != std::string::npos);
    std::string line = doc.substr(row, doc.find('\n', row) - row);
    CHECK(line.find("| `" + TomlLiteral(k, k.default_text) + "` |") != std::string::npos);
    CHECK(line.find(k.reloadable ? "| yes |" : "| no |") != std::string::npos);
  }
}

TEST_CASE("a full file sets every section") {
  Config c;
  std::string err = LoadError(R"(
[sockets]
event_path = "/tmp/e.sock"
event_mode = "0666"
event_group = "hadoop"
control_mode = "700"
[limits]
max_clients = 5
dedupe_window = 0
[scheduler]
policy = "delay"
machine_queue_order = "priority"
alpha = 1
gamma = 0.5
learn_rates = false
seed = 9223372036854775807
[log]
level = "debug"
target = "journal"
[watchdog]
enabled = false
)",
                              &c);
  REQUIRE(err == "");
  CHECK(c.sockets.event_path == "/tmp/e.sock");
  CHECK(c.sockets.event_mode == 0666);
  CHECK(c.sockets.event_group == "hadoop");
  CHECK(c.sockets.control_mode == 0700);
  CHECK(c.sockets.control_path == "/run/locsched/control.sock");
  CHECK(c.limits.max_clients == 5);
  CHECK(c.limits.dedupe_window == 0);
  CHECK(c.scheduler.policy == PolicyKind::kDelay);
  CHECK(c.scheduler.intra_queue == IntraQueue::kPriority);
  CHECK(c.scheduler.alpha == 1.0);
  CHECK(c.scheduler.gamma == 0.5);
  CHECK_FALSE(c.scheduler.learn_rates);
  CHECK(c.scheduler.seed == 9223372036854775807ULL);
  CHECK(c.log.level == LogLevel::kDebug);
  CHECK(c.log.target == LogTarget::kJournal);
  CHECK_FALSE(c.watchdog.enabled);
}

TEST_CASE("unknown keys and sections are errors naming the key with a suggestion") {
  CHECK(LoadError("[scheduler]\nalpah = 0.5\n") ==
        "test.toml:2:1: scheduler.alpah: unknown key; did you mean 'scheduler.alpha'?");
  CHECK(LoadError("[schedular]\nalpha = 0.5\n") ==
        "test.toml:1:2: schedular: unknown section; did you mean 'scheduler'?");
  CHECK(LoadError("[limits]\nalpha = 0.5\n") ==
        "test.toml:2:1: limits.alpha: unknown key; did you mean 'scheduler.alpha'?");
  CHECK(LoadError("alpha = 0.5\n") ==
        "test.toml:1:1: alpha: unknown key; did you mean 'scheduler.alpha'?");
  CHECK(LoadError("[log]\ncolour = true\n") == "test.toml:2:1: log.colour: unknown key");
  CHECK(LoadError("[scheduler.extra]\nx = 1\n").find("scheduler.extra: unknown key") !=
        std::string::npos);
  CHECK(LoadError("scheduler = 3\n") == "test.toml:1:13: scheduler: expected a table [scheduler]");
}

TEST_CASE("SuggestConfigKey only suggests close names") {
  CHECK(SuggestConfigKey("limits.max_client") == "limits.max_clients");
  CHECK(SuggestConfigKey("sockets.event_mod") == "sockets.event_mode");
  CHECK(SuggestConfigKey("watchdg") == "watchdog");
  CHECK(SuggestConfigKey("completely.unrelated_thing") == "");
  // A key replaced by one of another meaning points at its successor.
  CHECK(SuggestConfigKey("scheduler.delay_skips") == "scheduler.delay_wait");
}

TEST_CASE("a wrong type names the key and the expected type") {
  CHECK(LoadError("[limits]\nmax_clients = \"10\"\n") ==
        "test.toml:2:15: limits.max_clients: expected an integer in [1, 100000], got string");
  CHECK(LoadError("[limits]\nmax_clients = 10.0\n") ==
        "test.toml:2:15: limits.max_clients: expected an integer in [1, 100000], got float");
  CHECK(LoadError("[watchdog]\nenabled = 1\n") ==
        "test.toml:2:11: watchdog.enabled: expected a boolean, got integer");
  CHECK(LoadError("[scheduler]\nalpha = [0.5]\n") ==
        "test.toml:2:9: scheduler.alpha: expected a number in (0, 1000000], got array");
  CHECK(LoadError("[sockets]\nevent_mode = 660\n") ==
        "test.toml:2:14: sockets.event_mode: expected an octal mode string 0000..0777, got "
        "integer");
  CHECK(LoadError("[sockets]\nevent_path = 1979-05-27\n")
            .find("sockets.event_path: expected a string, got date") != std::string::npos);
}

TEST_CASE("out-of-range values name the key and the value and the range") {
  CHECK(LoadError("[limits]\nmax_line_bytes = 255\n") ==
        "test.toml:2:18: limits.max_line_bytes: 255 is out of range [256, 67108864]");
  CHECK(LoadError("[limits]\nmax_clients = 100001\n") ==
        "test.toml:2:15: limits.max_clients: 100001 is out of range [1, 100000]");
  CHECK(LoadError("[scheduler]\nalpha = 0\n") ==
        "test.toml:2:9: scheduler.alpha: 0 is out of range (0, 1000000]");
  CHECK(LoadError("[scheduler]\nalpha = 2e6\n") ==
        "test.toml:2:9: scheduler.alpha: 2000000 is out of range (0, 1000000]");
  CHECK(LoadError("[scheduler]\ngamma = nan\n") ==
        "test.toml:2:9: scheduler.gamma: nan is out of range (0, 1000000]");
  CHECK(LoadError("[scheduler]\nseed = -1\n") ==
        "test.toml:2:8: scheduler.seed: -1 is out of range [0, 9223372036854775807]");
  CHECK(LoadError("[scheduler]\nmax_task_retries = 1001\n")
            .find("scheduler.max_task_retries: 1001 is out of range [0, 1000]") !=
        std::string::npos);
}

TEST_CASE("enum and mode errors list what is allowed") {
  CHECK(LoadError("[scheduler]\npolicy = \"maxweight\"\n") ==
        "test.toml:2:10: scheduler.policy: \"maxweight\" is not one of "
        "jsq-maxweight|fair|fifo|delay|late-binding|balanced-pandas|quincy|capacity-scheduler|"
        "fair-scheduler");
  CHECK(LoadError("[log]\nlevel = \"verbose\"\n") ==
        "test.toml:2:9: log.level: \"verbose\" is not one of trace|debug|info|warn|error|off");
  for (const char* bad : {"0999", "1777", "66", "06600", "rw-", ""}) {
    INFO(bad);
    CHECK(LoadError(std::string("[sockets]\ncontrol_mode = \"") + bad + "\"\n")
              .find("sockets.control_mode: \"" + std::string(bad) +
                    "\" is not an octal file mode 0000..0777") != std::string::npos);
  }
}

TEST_CASE("a world-writable control socket mode is refused, naming the key") {
  CHECK(LoadError("[sockets]\ncontrol_mode = \"0777\"\n") ==
        "test.toml:2:16: sockets.control_mode: \"0777\" lets every local user write to the "
        "control socket; use 0600, or 0660 with sockets.control_group");
  CHECK(LoadError("[sockets]\ncontrol_mode = \"0662\"\n").find("every local user") !=
        std::string::npos);
  CHECK(LoadError("[sockets]\ncontrol_mode = \"0660\"\nevent_mode = \"0666\"\n").empty());
}

TEST_CASE("a configuration path that is not a regular file is refused without blocking") {
  Config c;
  Status s = LoadConfigFile("/tmp", &c);
  CHECK(s.message() == "/tmp: is a directory, not a configuration file");
  s = LoadConfigFile("/dev/zero", &c);
  CHECK(s.message() == "/dev/zero: is a character device, not a regular file; give a TOML file");
  const std::string fifo = "/tmp/locsched-config-test-fifo-" + std::to_string(getpid());
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  s = LoadConfigFile(fifo, &c);  // no writer: a blocking open would wait forever
  unlink(fifo.c_str());
  CHECK(s.message() == fifo + ": is a FIFO, not a regular file; give a TOML file");
  std::string value;
  CHECK(ReadConfigString("/dev/zero", "sockets.control_path", &value).message() ==
        "/dev/zero: is a character device, not a regular file; give a TOML file");
}

TEST_CASE("a syntax error gives file:line:col") {
  std::string err = LoadError("[scheduler]\nalpha = 0.8\ngamma = = 0.2\n");
  CHECK(err.rfind("test.toml:3:", 0) == 0);
  CHECK(err.size() > std::string("test.toml:3:9: ").size());
  CHECK(LoadError("[log\n").rfind("test.toml:1:", 0) == 0);
}

TEST_CASE("job_order = lp is late binding's: another policy is rejected naming the key") {
  Config c;
  REQUIRE(LoadError("[scheduler]\njob_order = \"lp\"\n", &c) == "");
  CHECK(c.scheduler.job_order == JobOrder::kLp);
  CHECK(LoadError("[scheduler]\npolicy = \"delay\"\njob_order = \"lp\"\n")
            .find("scheduler.job_order: lp orders late-binding's jobs only") != std::string::npos);
}

TEST_CASE("machines.expiry_s is 0 (never) or at least a second") {
  CHECK(LoadError("[machines]\nexpiry_s = 0.5\n") ==
        "test.toml:2:12: machines.expiry_s: 0.5 must be 0 (never) or at least 1 (machines are "
        "checked once a second, and heartbeat every few seconds)");
  Config c;
  REQUIRE(LoadError("[machines]\nexpiry_s = 0\n[scheduler]\ntask_timeout_s = 600\n", &c) == "");
  CHECK(c.machines.expiry_s == 0);
  CHECK(c.scheduler.task_timeout_s == 600);
  CHECK(LoadError("[machines]\nexpiry_s = -1\n").find("machines.expiry_s") != std::string::npos);
}

TEST_CASE("gamma above alpha is rejected naming scheduler.gamma") {
  CHECK(LoadError("[scheduler]\nalpha = 0.5\ngamma = 0.6\n") ==
        "test.toml:3:9: scheduler.gamma: 0.6 must be <= scheduler.alpha (0.5)");
  CHECK(LoadError("[scheduler]\nalpha = 0.1\n")
            .find("scheduler.gamma: 0.2 must be <= scheduler.alpha (0.1)") != std::string::npos);
  Config c;
  REQUIRE(LoadError("[scheduler]\nalpha = 0.5\ngamma = 0.5\n", &c) == "");
  CHECK(c.scheduler.gamma == 0.5);
}

TEST_CASE("ha.tls_certificate and ha.tls_key come as a pair, naming the missing one") {
  CHECK(LoadError("[ha]\ntls_key = \"/etc/locsched/key.pem\"\n")
            .find("ha.tls_certificate: is required when ha.tls_key is set (both or neither)") !=
        std::string::npos);
  CHECK(LoadError("[ha]\ntls_certificate = \"/etc/locsched/cert.pem\"\n")
            .find("ha.tls_key: is required when ha.tls_certificate is set (both or neither)") !=
        std::string::npos);
  Config c;
  REQUIRE(LoadError("[ha]\ntls_certificate = \"c.pem\"\ntls_key = \"k.pem\"\n", &c) == "");
  CHECK(c.ha.tls_certificate == "c.pem");
  CHECK(c.ha.tls_key == "k.pem");
}

TEST_CASE("all errors are reported in file order and the output is untouched") {
  Config c;
  c.limits.max_clients = 77;
  std::string err = LoadError("[scheduler]\nbogus = 1\n[limits]\nmax_clients = 0\n", &c);
  CHECK(err ==
        "test.toml:2:1: scheduler.bogus: unknown key\n"
        "test.toml:4:15: limits.max_clients: 0 is out of range [1, 100000]");
  CHECK(c.limits.max_clients == 77);
}

TEST_CASE("a missing file is an I/O error naming the path") {
  Config c;
  Status s = LoadConfigFile("/nonexistent/locsched.toml", &c);
  CHECK(s.code() == Status::Code::kIoError);
  CHECK(s.message().rfind("/nonexistent/locsched.toml: ", 0) == 0);
}

TEST_CASE("CheckReload accepts reloadable changes and lists them") {
  Config running, next;
  std::vector<std::string> changed;
  CHECK(CheckReload(running, next, &changed).ok());
  CHECK(changed.empty());
  next.scheduler.alpha = 0.9;
  next.log.level = LogLevel::kDebug;
  next.limits.max_clients = 10;
  CHECK(CheckReload(running, next, &changed).ok());
  CHECK(changed == std::vector<std::string>{"limits.max_clients", "scheduler.alpha", "log.level"});
}

TEST_CASE("CheckReload rejects non-reloadable changes naming the key") {
  Config running, next;
  next.scheduler.alpha = 0.9;
  next.sockets.event_path = "/tmp/other.sock";
  next.scheduler.policy = PolicyKind::kFifo;
  std::vector<std::string> changed;
  Status s = CheckReload(running, next, &changed);
  CHECK(s.code() == Status::Code::kFailedPrecondition);
  CHECK(s.message() == "sockets.event_path: cannot change on reload; restart the daemon");
  CHECK(changed ==
        std::vector<std::string>{"sockets.event_path", "scheduler.policy", "scheduler.alpha"});
  for (const ConfigKey& k : ConfigTable()) {
    if (k.reloadable) continue;
    INFO(k.key);
    Config other;
    // Flip the value to something valid and different from the default.
    std::string text = k.type == ConfigType::kBool     ? "false"
                       : k.type == ConfigType::kInt    ? std::to_string(k.max_int)
                       : k.type == ConfigType::kMode   ? "0640"
                       : k.type == ConfigType::kDouble ? (k.max_real >= 1.5 ? "1.5" : "0.5")
                       : k.type == ConfigType::kEnum
                           ? std::string(k.allowed[k.allowed[1] == k.default_text ? 0 : 1])
                           : "/x";
    REQUIRE(SetConfigText(k, text, &other).ok());
    CHECK(CheckReload(running, other, nullptr).message().rfind(std::string(k.key) + ":", 0) == 0);
  }
}

TEST_CASE("ExplainConfig mentions every key with value default and changed flag") {
  Config c;
  c.scheduler.alpha = 0.9;
  std::string text = ExplainConfig(c);
  for (const ConfigKey& k : ConfigTable()) {
    INFO(k.key);
    size_t at = text.find(std::string(k.key) + " ");
    REQUIRE(at != std::string::npos);
    std::string line = text.substr(at, text.find('\n', at) - at);
    CHECK(line.find(std::string(k.help)) != std::string::npos);
    CHECK(line.find(TomlLiteral(k, k.default_text)) != std::string::npos);
    bool changed = k.key == "scheduler.alpha";
    CHECK((line.find(changed ? " yes " : " - ") != std::string::npos));
  }
  CHECK(text.find("0.9") != std::string::npos);
  CHECK(text.find("\"/run/locsched/events.sock\"") != std::string::npos);
}

TEST_CASE("TomlLiteral escapes control characters (fuzz: a newline in a path gave bad TOML)") {
  const ConfigKey& path = *FindConfigKey("sockets.event_path");
  CHECK(TomlLiteral(path, "a\nb\t\"c\\\x01\x7f") == R"("a\nb\t\"c\\\u0001\u007f")");
  Config c, again;
  REQUIRE(LoadError("[sockets]\nevent_path = \"a\\nb\\u0001\"\n", &c) == "");
  REQUIRE(c.sockets.event_path == "a\nb\x01");
  REQUIRE(LoadError("[sockets]\nevent_path = " + TomlLiteral(path, c.sockets.event_path) + "\n",
                    &again) == "");
  CHECK(again == c);
}

TEST_CASE("errors stay one line each (fuzz: newlines in keys and parser messages split them)") {
  CHECK(LoadError("[scheduler]\n\"al\\npha\" = 1\n") ==
        "test.toml:2:1: scheduler.al\\npha: unknown key; did you mean 'scheduler.alpha'?");
  std::string err = LoadError("[watchdog]\nenabled = fa\n");
  CHECK(err.rfind("test.toml:2:", 0) == 0);
  CHECK(err.find('\n') == std::string::npos);
}

TEST_CASE("file modes parse and format as octal") {
  CHECK(ParseFileMode("0660") == 0660u);
  CHECK(ParseFileMode("777") == 0777u);
  CHECK(ParseFileMode("0000") == 0u);
  CHECK_FALSE(ParseFileMode("0800").has_value());
  CHECK_FALSE(ParseFileMode("1000").has_value());
  CHECK(FormatFileMode(0660) == "0660");
  CHECK(FormatFileMode(0) == "0000");
  CHECK(FormatFileMode(07) == "0007");
}

TEST_CASE("SetConfigText rejects text that is not the key's type") {
  Config c;
  CHECK(SetConfigText(*FindConfigKey("limits.max_clients"), "12x", &c).message() ==
        "limits.max_clients: \"12x\" is not an integer in [1, 100000]");
  CHECK(SetConfigText(*FindConfigKey("watchdog.enabled"), "yes", &c).message() ==
        "watchdog.enabled: \"yes\" is not a boolean");
  CHECK(c == Config{});
}

TEST_CASE("http.listen takes a port, IP:PORT or [IPV6]:PORT and names the key otherwise") {
  ListenAddress a;
  REQUIRE(ParseListenAddress("9464", &a).ok());
  CHECK((a.host == "127.0.0.1" && a.port == 9464));
  REQUIRE(ParseListenAddress("0.0.0.0:80", &a).ok());
  CHECK((a.host == "0.0.0.0" && a.port == 80));
  REQUIRE(ParseListenAddress("[::1]:9464", &a).ok());
  CHECK((a.host == "::1" && a.port == 9464));
  REQUIRE(ParseListenAddress("localhost:9464", &a).ok());
  CHECK(a.host == "127.0.0.1");
  CHECK(ParseListenAddress("127.0.0.1", &a).message() ==
        "http.listen: \"127.0.0.1\" has no port: expected PORT, IP:PORT or [IPV6]:PORT");
  CHECK(ParseListenAddress("127.0.0.1:0", &a).message() ==
        "http.listen: \"127.0.0.1:0\" has a port out of range [1, 65535]");
  CHECK(ParseListenAddress("127.0.0.1:70000", &a).message().find("out of range") !=
        std::string::npos);
  CHECK(ParseListenAddress("::1:80", &a).message().find("needs brackets") != std::string::npos);
  CHECK(ParseListenAddress("example.org:80", &a).message() ==
        "http.listen: \"example.org:80\" is not an IP address (host names are not looked up)");
  CHECK(LoadError("[http]\nlisten = \"127.0.0.1:x\"\n").find("http.listen: ") != std::string::npos);
  Config c;
  REQUIRE(LoadError("[http]\nlisten = \"127.0.0.1:9464\"\n", &c) == "");
  CHECK(c.http.listen == "127.0.0.1:9464");
}

TEST_CASE("scheduler.intra_queue is read as machine_queue_order with a warning") {
  Config c;
  std::vector<std::string> warnings;
  REQUIRE(
      LoadConfigText("[scheduler]\nintra_queue = \"priority\"\n", "old.toml", &c, &warnings).ok());
  CHECK(c.scheduler.intra_queue == IntraQueue::kPriority);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "old.toml:2:1: scheduler.intra_queue: deprecated; it is named "
        "scheduler.machine_queue_order (same values); rename it");
  warnings.clear();
  REQUIRE(LoadConfigText("[scheduler]\nmachine_queue_order = \"fifo\"\n", "new.toml", &c, &warnings)
              .ok());
  CHECK(c.scheduler.intra_queue == IntraQueue::kFifo);
  CHECK(warnings.empty());
  CHECK(LoadError("[scheduler]\nintra_queue = \"nope\"\n").find("machine_queue_order") !=
        std::string::npos);
}

TEST_CASE("scheduler.intra_queue and machine_queue_order both set is an error naming both") {
  CHECK(LoadError("[scheduler]\nmachine_queue_order = \"fifo\"\nintra_queue = \"fair\"\n") ==
        "test.toml:3:1: scheduler.intra_queue: deprecated name of "
        "scheduler.machine_queue_order, which is set too; keep only "
        "scheduler.machine_queue_order");
}

TEST_CASE("the loader reads the tenant queue tables and refuses a bad tree by its queue") {
  Config c;
  REQUIRE(LoadError("[scheduler]\npolicy = \"delay\"\n[queue.etl]\ncapacity = 60\n"
                    "[queue.default]\ncapacity = 40\n[groups]\nanalytics = [\"alice\"]\n",
                    &c) == "");
  CHECK(c.scheduler.policy == PolicyKind::kDelay);
  CHECK(c.queues.enabled());
  REQUIRE(c.queues.spec.queues.size() == 2);
  CHECK(c.queues.groups.Of("alice").size() == 1);
  const std::string explained = ExplainQueues(c.queues);
  CHECK(explained.find("tenant queues: on") != std::string::npos);
  CHECK(explained.find("60.0%") != std::string::npos);
  CHECK(ExplainQueues(Config{}.queues).find("tenant queues: off") != std::string::npos);
  const std::string err = LoadError("[queue.etl]\ncapacity = 70\n[queue.default]\ncapacity = 40\n");
  CHECK(err.find("queue.") != std::string::npos);
  CHECK(err.find("110") != std::string::npos);
  // Key errors are still reported (the queue tables are left to their own reader).
  CHECK(LoadError("[queue.etl]\ncapacity = 60\n[scheduler]\nalpah = 1\n")
            .find("scheduler.alpah: unknown key") != std::string::npos);
}

}  // namespace locsched
