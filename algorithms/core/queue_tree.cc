#include "algorithms/core/queue_tree.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace locsched {
namespace {

constexpr std::array<std::pair<PlacementRule, std::string_view>, 5> kRuleNames{{
    {PlacementRule::kExplicit, "explicit"},
    {PlacementRule::kUser, "user"},
    {PlacementRule::kPrimaryGroup, "primary_group"},
    {PlacementRule::kDefault, "default"},
    {PlacementRule::kReject, "reject"},
}};

// Percentages that add up within this of 100 count as 100 (33.33 x 3).
constexpr double kPercentSlack = 1e-6;

std::string Percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", v);
  return buf;
}

std::string Subject(const QueueSpec& q) {
  return "queue." + q.name;
}

bool GoodName(std::string_view name) {
  if (name.empty() || name.size() > 255) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// The rules one queue's own fields must follow.
Status CheckQueue(const QueueSpec& q) {
  if (!GoodName(q.name))
    return Status::InvalidArgument(
        Subject(q), "bad name: use letters, digits, '_' and '-' (at most 255 characters)");
  if (q.name == "root")
    return Status::InvalidArgument(Subject(q),
                                   "root is the tree's implicit top and cannot be configured");
  const bool bad_guarantee = q.by_weight ? !(q.guarantee >= 0 && std::isfinite(q.guarantee))
                                         : !(q.guarantee >= 0 && q.guarantee <= 100);
  if (bad_guarantee)
    return Status::InvalidArgument(Subject(q), q.by_weight ? "weight must be 0 or more"
                                                           : "capacity must be 0 to 100 (percent)");
  if (!(q.maximum >= 0 && q.maximum <= 100))
    return Status::InvalidArgument(Subject(q), "maximum_capacity must be 0 to 100 (percent)");
  if (!(q.user_limit > 0 && q.user_limit <= 100))
    return Status::InvalidArgument(Subject(q), "user_limit must be above 0 and at most 100");
  if (!q.by_weight && q.maximum < q.guarantee)
    return Status::InvalidArgument(Subject(q), "maximum_capacity " + Percent(q.maximum) +
                                                   " is under its capacity " +
                                                   Percent(q.guarantee));
  return Status::Ok();
}

// Names every queue's index, refusing duplicates and unknown parents.
Status IndexQueues(const QueueTreeSpec& spec, std::map<std::string, size_t, std::less<>>* index) {
  for (size_t i = 0; i < spec.queues.size(); ++i) {
    const QueueSpec& q = spec.queues[i];
    if (Status s = CheckQueue(q); !s.ok()) return s;
    if (!index->emplace(q.name, i).second)
      return Status::InvalidArgument(Subject(q), "defined twice");
  }
  for (const QueueSpec& q : spec.queues)
    if (q.parent != "root" && !index->count(q.parent))
      return Status::InvalidArgument(Subject(q), "unknown parent '" + q.parent + "'");
  for (const QueueSpec& q : spec.queues) {
    std::string_view at = q.parent;
    for (size_t steps = 0; at != "root"; ++steps) {
      if (at == q.name || steps > spec.queues.size())
        return Status::InvalidArgument(Subject(q), "its parents form a cycle back to itself");
      at = spec.queues[index->find(at)->second].parent;
    }
  }
  return Status::Ok();
}

// Checks one parent's children agree (all percentages or all weights, percentages
// at most 100) and sets their absolute shares.
Status ShareChildren(std::vector<QueueNode>& nodes, uint32_t p) {
  const QueueNode& parent = nodes[p];
  double sum = 0;
  const bool weights = nodes[parent.children.front()].spec.by_weight;
  for (uint32_t c : parent.children) {
    if (nodes[c].spec.by_weight != weights)
      return Status::InvalidArgument(
          "queue." + parent.spec.name,
          "children mix capacity percentages and weights; give all of them one kind");
    sum += nodes[c].spec.guarantee;
  }
  if (!weights && sum > 100 + kPercentSlack)
    return Status::InvalidArgument("queue." + parent.spec.name, "children's capacities add up to " +
                                                                    Percent(sum) + ", over 100%");
  for (uint32_t c : parent.children) {
    QueueNode& n = nodes[c];
    const double part = weights ? (sum > 0 ? n.spec.guarantee / sum : 0) : n.spec.guarantee / 100;
    n.guaranteed = parent.guaranteed * part;
    n.maximum = parent.maximum * n.spec.maximum / 100;
    if (weights && n.spec.maximum + kPercentSlack < part * 100)
      return Status::InvalidArgument(Subject(n.spec),
                                     "maximum_capacity " + Percent(n.spec.maximum) +
                                         " is under its weight's share " + Percent(part * 100));
  }
  return Status::Ok();
}

// The placement rules must be usable: some rule, none after reject, no repeats.
Status CheckRules(const QueueTreeSpec& spec) {
  if (spec.rules.empty())
    return Status::InvalidArgument("placement.rules", "no rule: no job could be placed");
  for (size_t i = 0; i < spec.rules.size(); ++i) {
    const std::string name(PlacementRuleName(spec.rules[i]));
    if (std::find(spec.rules.begin(), spec.rules.begin() + i, spec.rules[i]) !=
        spec.rules.begin() + i)
      return Status::InvalidArgument("placement.rules", "'" + name + "' is listed twice");
    if (spec.rules[i] == PlacementRule::kReject && i + 1 < spec.rules.size())
      return Status::InvalidArgument("placement.rules", "rules after 'reject' could never apply");
  }
  return Status::Ok();
}

QueueNode RootNode() {
  QueueNode root;
  root.spec.name = "root";
  root.spec.parent = "";
  root.spec.guarantee = 100;
  root.spec.submit_users = {"*"};
  return root;
}

bool Lists(const std::vector<std::string>& acl, std::string_view name) {
  return std::any_of(acl.begin(), acl.end(), [&](const std::string& a) {
    return a == "*" || (!name.empty() && a == name);
  });
}

}  // namespace

void UserGroups::Add(std::string_view group, std::string_view user) {
  auto it = of_user_.find(user);
  if (it == of_user_.end())
    it = of_user_.emplace(std::string(user), std::vector<std::string>{}).first;
  std::vector<std::string>& groups = it->second;
  auto at = std::lower_bound(groups.begin(), groups.end(), group);
  if (at == groups.end() || *at != group) groups.insert(at, std::string(group));
}

std::span<const std::string> UserGroups::Of(std::string_view user) const {
  auto it = of_user_.find(user);
  if (it == of_user_.end()) return {};
  return it->second;
}

QueueTree::QueueTree() {
  QueueSpec leaf;
  leaf.name = "default";
  leaf.guarantee = 100;
  spec_.queues = {leaf};
  nodes_ = {RootNode()};
  nodes_[0].children = {1};
  QueueNode n;
  n.spec = leaf;
  n.parent = 0;
  n.depth = 1;
  nodes_.push_back(n);
  leaves_ = {1};
}

Status QueueTree::Build(const QueueTreeSpec& spec_in, QueueTree* out) {
  if (spec_in.queues.empty()) {
    QueueTree flat;
    flat.spec_.rules = spec_in.rules;
    flat.spec_.default_queue = spec_in.default_queue;
    if (Status s = CheckRules(flat.spec_); !s.ok()) return s;
    *out = std::move(flat);
    return Status::Ok();
  }
  std::map<std::string, size_t, std::less<>> index;
  if (Status s = IndexQueues(spec_in, &index); !s.ok()) return s;
  if (Status s = CheckRules(spec_in); !s.ok()) return s;
  QueueTree t;
  t.spec_ = spec_in;
  t.nodes_ = {RootNode()};
  t.leaves_.clear();  // the default constructor's leaf
  // Preorder: a queue's children in the order the spec lists them.
  std::vector<std::pair<std::string, uint32_t>> stack{{"root", 0}};  // copies: nodes_ grows
  while (!stack.empty()) {
    auto [name, at] = stack.back();
    stack.pop_back();
    std::vector<uint32_t> kids;
    for (const QueueSpec& q : spec_in.queues) {
      if (q.parent != name) continue;
      QueueNode n;
      n.spec = q;
      n.parent = at;
      n.depth = t.nodes_[at].depth + 1;
      kids.push_back(static_cast<uint32_t>(t.nodes_.size()));
      t.nodes_[at].children.push_back(kids.back());
      t.nodes_.push_back(std::move(n));
    }
    if (!kids.empty())
      if (Status s = ShareChildren(t.nodes_, at); !s.ok()) return s;
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      stack.emplace_back(t.nodes_[*it].spec.name, *it);
  }
  // Leaves in preorder (the nodes were appended breadth-wise per parent, so walk the tree).
  std::vector<uint32_t> walk{0};
  while (!walk.empty()) {
    const uint32_t q = walk.back();
    walk.pop_back();
    if (t.nodes_[q].leaf() && q != 0) t.leaves_.push_back(q);
    for (auto it = t.nodes_[q].children.rbegin(); it != t.nodes_[q].children.rend(); ++it)
      walk.push_back(*it);
  }
  const std::optional<uint32_t> def = t.Find(spec_in.default_queue);
  const bool uses_default =
      std::count(spec_in.rules.begin(), spec_in.rules.end(), PlacementRule::kDefault) > 0;
  if (uses_default && !def)
    return Status::InvalidArgument("placement.default_queue",
                                   "names no queue ('" + spec_in.default_queue + "')");
  if (uses_default && !t.nodes_[*def].leaf())
    return Status::InvalidArgument(
        "placement.default_queue",
        "'" + spec_in.default_queue + "' has child queues; jobs go to leaf queues only");
  t.default_leaf_ = def && t.nodes_[*def].leaf() ? *def : t.leaves_.front();
  *out = std::move(t);
  return Status::Ok();
}

std::optional<uint32_t> QueueTree::Find(std::string_view name) const {
  for (uint32_t q = 0; q < nodes_.size(); ++q)
    if (nodes_[q].spec.name == name) return q;
  return std::nullopt;
}

bool QueueTree::MaySubmit(uint32_t q, std::string_view user,
                          std::span<const std::string> groups) const {
  for (uint32_t at = q; at != UINT32_MAX; at = nodes_[at].parent) {
    const QueueSpec& s = nodes_[at].spec;
    if (s.submit_users.empty() && s.submit_groups.empty()) continue;
    if (Lists(s.submit_users, user)) return true;
    for (const std::string& g : groups)
      if (Lists(s.submit_groups, g)) return true;
    return Lists(s.submit_groups, "");  // a "*" group admits users without groups too
  }
  return true;
}

std::string_view QueueTree::WhoName(std::string_view user) {
  return user.empty() ? "(none)" : user;
}

// A leaf the explicit or default rule chose: refused if stopped or closed to the user.
Status QueueTree::Admit(uint32_t q, const JobOwner& owner, uint32_t* leaf) const {
  const QueueSpec& s = nodes_[q].spec;
  if (!nodes_[q].leaf())
    return Status::InvalidArgument(
        "queue", "'" + s.name + "' has child queues; submit to one of its leaves");
  if (s.state == QueueState::kStopped)
    return Status::FailedPrecondition("queue", "'" + s.name + "' is stopped; it takes no new jobs");
  if (!MaySubmit(q, owner.user, owner.groups))
    return Status::PermissionDenied("queue", "user " + std::string(WhoName(owner.user)) +
                                                 " may not submit to '" + s.name + "'");
  *leaf = q;
  return Status::Ok();
}

// The user and primary-group rules place a job only in a running leaf open to it.
bool QueueTree::Fits(std::string_view name, const JobOwner& owner, uint32_t* leaf) const {
  if (name.empty()) return false;
  const std::optional<uint32_t> q = Find(name);
  if (!q || !nodes_[*q].leaf() || nodes_[*q].spec.state == QueueState::kStopped ||
      !MaySubmit(*q, owner.user, owner.groups))
    return false;
  *leaf = *q;
  return true;
}

Status QueueTree::Place(const JobOwner& owner, uint32_t* leaf) const {
  for (PlacementRule rule : spec_.rules) {
    switch (rule) {
      case PlacementRule::kExplicit:
        if (owner.queue.empty()) break;
        if (const std::optional<uint32_t> q = Find(owner.queue); q) return Admit(*q, owner, leaf);
        return Status::NotFound("queue", "unknown queue '" + std::string(owner.queue) + "'");
      case PlacementRule::kUser:
        if (Fits(owner.user, owner, leaf)) return Status::Ok();
        break;
      case PlacementRule::kPrimaryGroup:
        if (!owner.groups.empty() && Fits(owner.groups.front(), owner, leaf)) return Status::Ok();
        break;
      case PlacementRule::kDefault:
        return Admit(default_leaf_, owner, leaf);
      case PlacementRule::kReject:
        return Status::PermissionDenied("queue", "placement rule 'reject' refuses user " +
                                                     std::string(WhoName(owner.user)) +
                                                     " (rules: " + RulesText() + ")");
    }
  }
  return Status::InvalidArgument("queue", "no placement rule places user " +
                                              std::string(WhoName(owner.user)) +
                                              " (rules: " + RulesText() + ")");
}

std::string QueueTree::RulesText() const {
  std::string out;
  for (PlacementRule r : spec_.rules) {
    if (!out.empty()) out += ", ";
    out += PlacementRuleName(r);
  }
  return out;
}

std::optional<PlacementRule> ParsePlacementRule(std::string_view name) {
  for (const auto& [rule, text] : kRuleNames)
    if (text == name) return rule;
  return std::nullopt;
}

std::string_view PlacementRuleName(PlacementRule rule) {
  for (const auto& [r, text] : kRuleNames)
    if (r == rule) return text;
  return "?";
}

}  // namespace locsched
