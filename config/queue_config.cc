#include "config/queue_config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/suggest.h"
#include "config/config.h"
#include "config/config_loader.h"
#include "config/toml_errors.h"

namespace locsched {
namespace {

using Errors = std::vector<TomlError>;

std::optional<double> Number(const toml::node& node) {
  if (auto i = node.value_exact<int64_t>()) return static_cast<double>(*i);
  if (auto d = node.value_exact<double>()) return *d;
  return std::nullopt;
}

// A list of strings, or nullopt if node is anything else.
std::optional<std::vector<std::string>> Strings(const toml::node& node) {
  const toml::array* arr = node.as_array();
  if (arr == nullptr) return std::nullopt;
  std::vector<std::string> out;
  for (const toml::node& item : *arr) {
    auto s = item.value_exact<std::string>();
    if (!s) return std::nullopt;
    out.push_back(*s);
  }
  return out;
}

// One [queue.NAME] key: checks node and stores it in *q; returns "" or the problem.
struct QueueKey {
  std::string_view name;
  std::function<std::string(const toml::node&, QueueSpec*)> apply;
};

std::string Percentage(const toml::node& node, double* out, bool zero_ok) {
  const std::optional<double> v = Number(node);
  if (!v) return "expected a number (percent)";
  if (!(*v <= 100 && (zero_ok ? *v >= 0 : *v > 0)))
    return zero_ok ? "must be 0 to 100 (percent)" : "must be above 0 and at most 100 (percent)";
  *out = *v;
  return "";
}

std::string Guarantee(const toml::node& node, QueueSpec* q, bool weight) {
  if (weight) {
    const std::optional<double> v = Number(node);
    if (!v || !(*v >= 0) || !std::isfinite(*v)) return "expected a number, 0 or more";
    q->guarantee = *v;
  } else if (std::string e = Percentage(node, &q->guarantee, true); !e.empty()) {
    return e;
  }
  q->by_weight = weight;
  return "";
}

std::string Acl(const toml::node& node, std::vector<std::string>* out) {
  std::optional<std::vector<std::string>> v = Strings(node);
  if (!v) return "expected an array of names (\"*\": anyone)";
  *out = std::move(*v);
  return "";
}

const std::array<QueueKey, 10>& QueueKeys() {
  static const std::array<QueueKey, 10> keys{{
      {"parent",
       [](const toml::node& n, QueueSpec* q) -> std::string {
         auto v = n.value_exact<std::string>();
         if (!v) return "expected a string (\"root\" or a queue's name)";
         q->parent = *v;
         return "";
       }},
      {"capacity", [](const toml::node& n, QueueSpec* q) { return Guarantee(n, q, false); }},
      {"weight", [](const toml::node& n, QueueSpec* q) { return Guarantee(n, q, true); }},
      {"maximum_capacity",
       [](const toml::node& n, QueueSpec* q) { return Percentage(n, &q->maximum, true); }},
      {"max_running_jobs",
       [](const toml::node& n, QueueSpec* q) -> std::string {
         auto v = n.value_exact<int64_t>();
         if (!v || *v < 0 || *v > std::numeric_limits<uint32_t>::max())
           return "expected an integer, 0 (no limit) or more";
         q->max_running_jobs = static_cast<uint32_t>(*v);
         return "";
       }},
      {"user_limit",
       [](const toml::node& n, QueueSpec* q) { return Percentage(n, &q->user_limit, false); }},
      {"order",
       [](const toml::node& n, QueueSpec* q) -> std::string {
         auto v = n.value_exact<std::string>();
         const std::optional<JobOrder> o = v ? ParseJobOrder(*v) : std::nullopt;
         if (!o || *o == JobOrder::kLp) return "expected \"fifo\", \"fair\", \"srpt\" or \"smith\"";
         q->order = *o;
         return "";
       }},
      {"state",
       [](const toml::node& n, QueueSpec* q) -> std::string {
         auto v = n.value_exact<std::string>();
         if (!v || (*v != "running" && *v != "stopped"))
           return "expected \"running\" or \"stopped\"";
         q->state = *v == "running" ? QueueState::kRunning : QueueState::kStopped;
         return "";
       }},
      {"submit_users", [](const toml::node& n, QueueSpec* q) { return Acl(n, &q->submit_users); }},
      {"submit_groups",
       [](const toml::node& n, QueueSpec* q) { return Acl(n, &q->submit_groups); }},
  }};
  return keys;
}

std::string UnknownQueueKey(std::string_view name) {
  std::vector<std::string_view> names;
  for (const QueueKey& k : QueueKeys()) names.push_back(k.name);
  std::string_view guess = SuggestName(name, names);
  return guess.empty() ? std::string() : "; did you mean '" + std::string(guess) + "'?";
}

void ReadQueue(const std::string& name, const toml::table& tbl, QueueSpec* q, Errors* errors) {
  q->name = name;
  const std::string prefix = "queue." + name + ".";
  bool has_capacity = false;
  bool has_weight = false;
  for (auto&& [key, node] : tbl) {
    const std::string dotted = prefix + std::string(key.str());
    const std::string_view key_name = key.str();  // clang 14 cannot capture a binding
    const auto* k = std::find_if(QueueKeys().begin(), QueueKeys().end(),
                                 [&](const QueueKey& row) { return row.name == key_name; });
    if (k == QueueKeys().end()) {
      const std::string hint = node.is_table() ? "; a child queue is its own [queue.NAME] table "
                                                 "with parent = \"" +
                                                     name + "\""
                                               : UnknownQueueKey(key.str());
      errors->push_back({key.source().begin, dotted + ": unknown key" + hint});
      continue;
    }
    if (std::string e = k->apply(node, q); !e.empty())
      errors->push_back({node.source().begin, dotted + ": " + e});
    has_capacity |= k->name == "capacity";
    has_weight |= k->name == "weight";
    if (has_capacity && has_weight && (k->name == "capacity" || k->name == "weight"))
      errors->push_back({key.source().begin, dotted + ": set capacity or weight, not both"});
  }
}

void ReadQueues(const toml::node& node, QueueConfig* c, Errors* errors) {
  const toml::table* queues = node.as_table();
  if (queues == nullptr) {
    errors->push_back({node.source().begin, "queue: expected tables [queue.NAME]"});
    return;
  }
  for (auto&& [key, child] : *queues) {
    const std::string name(key.str());
    const toml::table* tbl = child.as_table();
    if (tbl == nullptr) {
      errors->push_back(
          {key.source().begin, "queue." + name + ": expected a table [queue." + name + "]"});
      continue;
    }
    QueueSpec q;
    ReadQueue(name, *tbl, &q, errors);
    c->spec.queues.push_back(std::move(q));
  }
}

void ReadPlacement(const toml::node& node, QueueConfig* c, Errors* errors) {
  const toml::table* tbl = node.as_table();
  if (tbl == nullptr) {
    errors->push_back({node.source().begin, "placement: expected a table [placement]"});
    return;
  }
  for (auto&& [key, child] : *tbl) {
    const std::string dotted = "placement." + std::string(key.str());
    if (key.str() == "default_queue") {
      auto v = child.value_exact<std::string>();
      if (v)
        c->spec.default_queue = *v;
      else
        errors->push_back({child.source().begin, dotted + ": expected a queue's name"});
    } else if (key.str() == "rules") {
      std::optional<std::vector<std::string>> names = Strings(child);
      std::vector<PlacementRule> rules;
      for (const std::string& n : names.value_or(std::vector<std::string>{})) {
        if (std::optional<PlacementRule> r = ParsePlacementRule(n))
          rules.push_back(*r);
        else
          names.reset();
        if (!names) break;
      }
      if (names)
        c->spec.rules = std::move(rules);
      else
        errors->push_back(
            {child.source().begin, dotted + ": expected an array of \"explicit\", \"user\", "
                                            "\"primary_group\", \"default\", \"reject\""});
    } else {
      std::vector<std::string_view> known{"rules", "default_queue"};
      std::string_view guess = SuggestName(key.str(), known);
      errors->push_back(
          {key.source().begin,
           dotted + ": unknown key" +
               (guess.empty() ? "" : "; did you mean '" + std::string(guess) + "'?")});
    }
  }
}

void ReadGroups(const toml::node& node, QueueConfig* c, Errors* errors) {
  const toml::table* tbl = node.as_table();
  if (tbl == nullptr) {
    errors->push_back({node.source().begin, "groups: expected a table [groups]"});
    return;
  }
  for (auto&& [key, child] : *tbl) {
    std::optional<std::vector<std::string>> users = Strings(child);
    if (!users) {
      errors->push_back({child.source().begin,
                         "groups." + std::string(key.str()) + ": expected an array of user names"});
      continue;
    }
    for (const std::string& u : *users) c->groups.Add(key.str(), u);
  }
}

// Where the key or table a tree error names ("queue.etl: ...") is written; 1:1 if absent.
toml::source_position TreeErrorPosition(const toml::table& doc, const Status& s) {
  const std::string key = s.subject();
  const toml::node* at = doc.at_path(key).node();
  if (at == nullptr) at = doc.at_path(key.substr(0, key.find('.'))).node();
  return at != nullptr ? at->source().begin : toml::source_position{1, 1};
}

toml::array NameArray(const std::vector<std::string>& names) {
  toml::array out;
  for (const std::string& n : names) out.push_back(n);
  return out;
}

toml::table QueueTable(const QueueSpec& q) {
  toml::table t;
  t.insert("parent", q.parent);
  t.insert(q.by_weight ? "weight" : "capacity", q.guarantee);
  t.insert("maximum_capacity", q.maximum);
  t.insert("max_running_jobs", static_cast<int64_t>(q.max_running_jobs));
  t.insert("user_limit", q.user_limit);
  if (q.order) t.insert("order", std::string(JobOrderName(*q.order)));
  t.insert("state", q.state == QueueState::kStopped ? "stopped" : "running");
  t.insert("submit_users", NameArray(q.submit_users));
  t.insert("submit_groups", NameArray(q.submit_groups));
  return t;
}

// [groups] from the user -> groups map: each group with its users.
toml::table GroupsTable(const UserGroups& groups) {
  std::map<std::string, std::vector<std::string>> members;
  for (const auto& [user, of] : groups.users())
    for (const std::string& g : of) members[g].push_back(user);
  toml::table t;
  for (const auto& [group, users] : members) t.insert(group, NameArray(users));
  return t;
}

}  // namespace

bool IsQueueConfigSection(std::string_view name) {
  return name == "queue" || name == "placement" || name == "groups";
}

Status LoadQueueConfigText(std::string_view text, std::string_view source_name, QueueConfig* out,
                           QueueTree* tree) {
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    return ReportTomlErrors(source_name, {{e.source().begin, std::string(e.description())}});
  }
  QueueConfig c;
  Errors errors;
  if (const toml::node* n = doc.get("queue")) ReadQueues(*n, &c, &errors);
  if (const toml::node* n = doc.get("placement")) ReadPlacement(*n, &c, &errors);
  if (const toml::node* n = doc.get("groups")) ReadGroups(*n, &c, &errors);
  QueueTree built;
  if (errors.empty()) {
    Status s = QueueTree::Build(c.spec, &built);
    if (!s.ok()) errors.push_back({TreeErrorPosition(doc, s), s.message()});
  }
  if (!errors.empty()) return ReportTomlErrors(source_name, std::move(errors));
  *out = std::move(c);
  if (tree != nullptr) *tree = std::move(built);
  return Status::Ok();
}

Status LoadQueueConfigFile(const std::string& path, QueueConfig* out, QueueTree* tree) {
  std::string text;
  if (Status s = ReadRegularFile(path, &text); !s.ok()) return s;
  return LoadQueueConfigText(text, path, out, tree);
}

std::string QueueConfigToml(const QueueConfig& c) {
  if (!c.enabled() && c.groups.empty()) return "";
  toml::table doc;
  toml::table queues;
  for (const QueueSpec& q : c.spec.queues) queues.insert(q.name, QueueTable(q));
  doc.insert("queue", std::move(queues));
  toml::array rules;
  for (PlacementRule r : c.spec.rules) rules.push_back(std::string(PlacementRuleName(r)));
  doc.insert("placement",
             toml::table{{"rules", std::move(rules)}, {"default_queue", c.spec.default_queue}});
  if (!c.groups.empty()) doc.insert("groups", GroupsTable(c.groups));
  std::ostringstream out;
  out << toml::toml_formatter(doc) << "\n";
  return out.str();
}

}  // namespace locsched
