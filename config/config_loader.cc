#include "config/config_loader.h"

#include "base/suggest.h"

#include <toml++/toml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace locsched {
namespace {

// One problem found in a file, kept to report all of them in source order.
struct LoadError {
  toml::source_position pos;
  std::string text;  // "key: problem"
};

std::string UnknownKey(std::string_view key, std::string_view what) {
  std::string text = std::string(key) + ": " + std::string(what);
  std::string guess = SuggestConfigKey(key);
  if (!guess.empty()) text += "; did you mean '" + guess + "'?";
  return text;
}

std::string_view NodeTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "value";
  }
}

std::optional<ConfigValue> ToValue(const toml::node& node) {
  if (auto b = node.value_exact<bool>()) return ConfigValue(*b);
  if (auto i = node.value_exact<int64_t>()) return ConfigValue(*i);
  if (auto d = node.value_exact<double>()) return ConfigValue(*d);
  if (auto s = node.value_exact<std::string>()) return ConfigValue(*s);
  return std::nullopt;
}

bool IsSection(std::string_view name) {
  for (const ConfigKey& k : ConfigTable())
    if (ConfigSection(k) == name) return true;
  return false;
}

// Keys renamed without a change of meaning: the old name is still read, with a warning,
// for one release; setting both names is an error.
constexpr std::pair<std::string_view, std::string_view> kRenamedKeys[] = {
    {"scheduler.intra_queue", "scheduler.machine_queue_order"},
};

// A renamed key's old spelling: an error if its section also sets the new name, else
// a warning naming the new key; *dotted becomes the new name. False on the error.
bool ResolveRenamed(std::string* dotted, const toml::key& key, const toml::table& section,
                    std::vector<LoadError>* errors, std::vector<LoadError>* warnings) {
  const std::string_view renamed = RenamedConfigKey(*dotted);
  if (renamed.empty()) return true;
  const std::string new_key(renamed);
  if (section.contains(new_key.substr(new_key.find('.') + 1))) {
    errors->push_back({key.source().begin, *dotted + ": deprecated name of " + new_key +
                                               ", which is set too; keep only " + new_key});
    return false;
  }
  warnings->push_back({key.source().begin, *dotted + ": deprecated; it is named " + new_key +
                                               " (same values); rename it"});
  *dotted = new_key;
  return true;
}

// Checks and stores one key of a known section.
void LoadKey(const std::string& dotted, const toml::key& key, const toml::node& node, Config* c,
             std::vector<LoadError>* errors) {
  const ConfigKey* row = FindConfigKey(dotted);
  if (row == nullptr) {
    errors->push_back({key.source().begin, UnknownKey(dotted, "unknown key")});
    return;
  }
  std::optional<ConfigValue> v = ToValue(node);
  if (!v) {
    errors->push_back({node.source().begin, dotted + ": expected " + DescribeType(*row) + ", got " +
                                                std::string(NodeTypeName(node))});
    return;
  }
  Status s = SetConfigValue(*row, *v, c);
  if (!s.ok()) errors->push_back({node.source().begin, s.message()});
}

// Walks the document's sections; every problem becomes one LoadError, every deprecated
// spelling one warning.
void LoadTable(const toml::table& doc, Config* c, std::vector<LoadError>* errors,
               std::vector<LoadError>* warnings) {
  for (auto&& [key, node] : doc) {
    std::string section(key.str());
    const toml::table* tbl = node.as_table();
    if (IsQueueConfigSection(section)) continue;  // config/queue_config reads them
    if (!IsSection(section)) {
      errors->push_back(
          {key.source().begin, UnknownKey(section, tbl ? "unknown section" : "unknown key")});
    } else if (tbl == nullptr) {
      errors->push_back({node.source().begin, section + ": expected a table [" + section + "]"});
    } else {
      for (auto&& [name, child] : *tbl) {
        std::string dotted = section + "." + std::string(name.str());
        if (ResolveRenamed(&dotted, name, *tbl, errors, warnings))
          LoadKey(dotted, name, child, c, errors);
      }
    }
  }
}

// Where the key a cross-key error names (its "subject") is written; 1:1 if absent.
toml::source_position ErrorPosition(const toml::table& doc, const Status& s) {
  std::string key = s.message().substr(0, s.message().find(':'));
  const toml::node* at = doc.at_path(key).node();
  return at != nullptr ? at->source().begin : toml::source_position{1, 1};
}

std::string Where(std::string_view source, const toml::source_position& pos) {
  return std::string(source) + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

// One line per error: texts quote keys, values and parser input, which may hold newlines.
Status Report(std::string_view source, std::vector<LoadError> errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const LoadError& a, const LoadError& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  std::string rest;
  for (size_t i = 1; i < errors.size(); ++i)
    rest += "\n" + Where(source, errors[i].pos) + ": " + EscapeControlChars(errors[i].text);
  return Status::InvalidArgument(Where(source, errors[0].pos),
                                 EscapeControlChars(errors[0].text) + rest);
}

// What a non-regular file is, for the error.
const char* FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  return "special file";
}

// A configuration file is small; anything bigger is a mistake (a log, a disk image).
constexpr off_t kMaxConfigBytes = 16 << 20;

}  // namespace

std::string_view RenamedConfigKey(std::string_view dotted) {
  for (const auto& [old_key, new_key] : kRenamedKeys)
    if (dotted == old_key) return new_key;
  return {};
}

std::string SuggestConfigKey(std::string_view unknown) {
  // Keys whose meaning changed under a new name: the old name points at the new one.
  static constexpr std::pair<std::string_view, std::string_view> kReplaced[] = {
      {"scheduler.delay_skips", "scheduler.delay_wait"},  // a count of skips became seconds
  };
  for (const auto& [old_key, new_key] : kReplaced)
    if (unknown == old_key) return std::string(new_key);
  std::set<std::string_view> candidates;
  for (const ConfigKey& k : ConfigTable()) {
    candidates.insert(k.key);
    candidates.insert(ConfigSection(k));
  }
  // SuggestName counts a known key in the wrong section (or at the top level) as one edit.
  const std::vector<std::string_view> names(candidates.begin(), candidates.end());
  return std::string(SuggestName(unknown, names));
}

Status LoadConfigText(std::string_view text, std::string_view source_name, Config* out,
                      std::vector<std::string>* warnings) {
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    return Report(source_name, {{e.source().begin, std::string(e.description())}});
  }
  Config c;
  std::vector<LoadError> errors, deprecated;
  LoadTable(doc, &c, &errors, &deprecated);
  if (errors.empty()) {
    Status s = ValidateConfig(c);
    if (!s.ok()) errors.push_back({ErrorPosition(doc, s), s.message()});
  }
  if (!errors.empty()) return Report(source_name, std::move(errors));
  // The tenant queue tables, checked (tree rules included) once the keys are good.
  if (Status s = LoadQueueConfigText(text, source_name, &c.queues); !s.ok()) return s;
  *out = std::move(c);
  if (warnings != nullptr)
    for (const LoadError& w : deprecated)
      warnings->push_back(Where(source_name, w.pos) + ": " + EscapeControlChars(w.text));
  return Status::Ok();
}

Status ReadRegularFile(const std::string& path, std::string* text) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::IoError(path, std::strerror(errno));
  struct stat st {};
  Status s;
  if (fstat(fd, &st) != 0) {
    s = Status::IoError(path, std::strerror(errno));
  } else if (S_ISDIR(st.st_mode)) {
    s = Status::InvalidArgument(path, "is a directory, not a configuration file");
  } else if (!S_ISREG(st.st_mode)) {
    s = Status::InvalidArgument(path, std::string("is a ") + FileKind(st.st_mode) +
                                          ", not a regular file; give a TOML file");
  } else if (st.st_size > kMaxConfigBytes) {
    s = Status::InvalidArgument(path, "is larger than " + std::to_string(kMaxConfigBytes) +
                                          " bytes; it is not a configuration file");
  }
  text->clear();
  char buf[65536];
  while (s.ok()) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) s = Status::IoError(path, std::strerror(errno));
    if (n <= 0) break;
    text->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return s;
}

Status LoadConfigFile(const std::string& path, Config* out, std::vector<std::string>* warnings) {
  std::string text;
  if (Status s = ReadRegularFile(path, &text); !s.ok()) return s;
  return LoadConfigText(text, path, out, warnings);
}

Status ReadConfigString(const std::string& path, std::string_view key, std::string* out) {
  std::string text;
  if (Status s = ReadRegularFile(path, &text); !s.ok()) return s;
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Status::InvalidArgument(path, std::string(e.description()));
  }
  const toml::node* node = doc.at_path(key).node();
  if (node == nullptr) return Status::Ok();
  const std::optional<std::string> value = node->value<std::string>();
  if (!value) return Status::InvalidArgument(path + ": " + std::string(key), "is not a string");
  *out = *value;
  return Status::Ok();
}

Status CheckReload(const Config& running, const Config& next, std::vector<std::string>* changed) {
  Status first;
  for (const ConfigKey& k : ConfigTable()) {
    if (k.format(running) == k.format(next)) continue;
    if (changed != nullptr) changed->emplace_back(k.key);
    if (!k.reloadable && first.ok())
      first = Status::FailedPrecondition(std::string(k.key),
                                         "cannot change on reload; restart the daemon");
  }
  return first;
}

namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string Pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// One row per queue of the built tree, indented by depth; shares of the whole cluster.
std::string QueueTable(const QueueTree& tree) {
  std::vector<std::vector<std::string>> rows{{"queue", "guarantee", "guaranteed", "maximum",
                                              "max_running_jobs", "user_limit", "order", "state",
                                              "submit_users", "submit_groups"}};
  for (uint32_t q = 0; q < tree.size(); ++q) {
    const QueueNode& n = tree.node(q);
    const QueueSpec& s = n.spec;
    const std::string guarantee =
        q == 0 ? "-" : (s.by_weight ? "weight " : "") + Num(s.guarantee) + (s.by_weight ? "" : "%");
    rows.push_back({std::string(2 * n.depth, ' ') + s.name, guarantee, Pct(n.guaranteed),
                    Pct(n.maximum), s.max_running_jobs ? std::to_string(s.max_running_jobs) : "-",
                    Num(s.user_limit) + "%",
                    s.order ? std::string(JobOrderName(*s.order)) : "default",
                    s.state == QueueState::kStopped ? "stopped" : "running", Joined(s.submit_users),
                    Joined(s.submit_groups)});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i)
      out += r[i] + (i + 1 < r.size() ? std::string(width[i] - r[i].size() + 2, ' ') : "");
    out += "\n";
  }
  return out;
}

}  // namespace

std::string ExplainQueues(const QueueConfig& q) {
  if (!q.enabled()) return "tenant queues: off (no [queue.*] table; every job is in default)\n";
  QueueTree tree;
  if (Status s = QueueTree::Build(q.spec, &tree); !s.ok()) return s.message() + "\n";
  std::vector<std::string> rules;
  for (PlacementRule r : tree.spec().rules) rules.emplace_back(PlacementRuleName(r));
  std::string out = "tenant queues: on; placement rules " + Joined(rules) + ", default queue " +
                    tree.spec().default_queue + "; shares of the whole cluster:\n";
  out += QueueTable(tree);
  for (const auto& [user, groups] : q.groups.users())
    out += "group member " + user + ": " + Joined(groups) +
           " (used when the system does not know " + user + ")\n";
  return out;
}

std::string ExplainConfig(const Config& c) {
  struct Row {
    std::string cells[5];
    std::string_view help;
  };
  std::vector<Row> rows{{{"key", "value", "default", "changed", "reload"}, "help"}};
  const Config defaults;
  for (const ConfigKey& k : ConfigTable()) {
    std::string value = TomlLiteral(k, k.format(c));
    std::string def = TomlLiteral(k, k.default_text);
    bool differs = k.format(c) != k.format(defaults);
    rows.push_back(
        {{std::string(k.key), value, def, differs ? "yes" : "-", k.reloadable ? "yes" : "no"},
         k.help});
  }
  size_t width[5] = {};
  for (const Row& r : rows)
    for (size_t i = 0; i < 5; ++i) width[i] = std::max(width[i], r.cells[i].size());
  std::string out;
  for (const Row& r : rows) {
    for (size_t i = 0; i < 5; ++i)
      out += r.cells[i] + std::string(width[i] - r.cells[i].size() + 2, ' ');
    out += std::string(r.help) + "\n";
  }
  return out;
}

}  // namespace locsched
