// Tests QueueTree (algorithms/core/queue_tree.h): every validation rule refused with its
// named error, the shares made absolute, submit ACLs and each placement rule and refusal.
#include "algorithms/core/queue_tree.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace locsched {
namespace {

QueueSpec Q(std::string name, double capacity, std::string parent = "root") {
  QueueSpec q;
  q.name = std::move(name);
  q.parent = std::move(parent);
  q.guarantee = capacity;
  return q;
}

QueueSpec W(std::string name, double weight, std::string parent = "root") {
  QueueSpec q = Q(std::move(name), weight, std::move(parent));
  q.by_weight = true;
  return q;
}

// Builds spec; returns the error message ("" on success).
std::string BuildError(const QueueTreeSpec& spec, QueueTree* out = nullptr) {
  QueueTree t;
  Status s = QueueTree::Build(spec, out ? out : &t);
  return s.ok() ? "" : s.message();
}

QueueTreeSpec Spec(std::vector<QueueSpec> queues) {
  QueueTreeSpec s;
  s.queues = std::move(queues);
  return s;
}

TEST_CASE("queue tree: the default tree is root and one leaf") {
  QueueTree t;
  REQUIRE(t.size() == 2);
  CHECK(t.node(0).spec.name == "root");
  CHECK(t.leaves().size() == 1);
  CHECK(t.node(t.default_leaf()).spec.name == "default");
  CHECK(t.node(t.default_leaf()).guaranteed == 1);
  QueueTree empty;
  REQUIRE(BuildError(QueueTreeSpec{}, &empty).empty());
  CHECK(empty.size() == 2);
}

TEST_CASE("queue tree: shares become fractions of the cluster") {
  QueueSpec etl = Q("etl", 60);
  etl.maximum = 80;
  QueueSpec nightly = W("nightly", 3, "etl");
  nightly.maximum = 80;
  QueueTree t;
  REQUIRE(BuildError(Spec({etl, nightly, W("daily", 1, "etl"), Q("default", 40)}), &t).empty());
  const QueueNode& n = t.node(*t.Find("nightly"));
  CHECK(n.guaranteed == Approx(0.45));
  CHECK(n.maximum == Approx(0.64));
  CHECK(n.depth == 2);
  CHECK(t.node(*t.Find("daily")).guaranteed == Approx(0.15));
  CHECK_FALSE(t.node(*t.Find("etl")).leaf());
  // Leaves in tree order: a parent's children in the order given, depth first.
  std::vector<std::string> leaves;
  for (uint32_t q : t.leaves()) leaves.push_back(t.node(q).spec.name);
  CHECK(leaves == std::vector<std::string>{"nightly", "daily", "default"});
  CHECK(t.Find("nope") == std::nullopt);
}

TEST_CASE("queue tree: each invalid tree is refused with its named error") {
  QueueSpec low_max = Q("a", 50);
  low_max.maximum = 40;
  QueueSpec w_low_max = W("b", 1);
  w_low_max.maximum = 40;
  QueueSpec bad_limit = Q("default", 10);
  bad_limit.user_limit = 0;
  QueueSpec stray = Q("default", 10);
  stray.parent = "ghost";
  const std::vector<std::pair<QueueTreeSpec, std::string>> cases = {
      {Spec({Q("default", 10), Q("x", 20, "ghost")}), "queue.x: unknown parent 'ghost'"},
      {Spec({Q("default", 10), Q("a", 0, "b"), Q("b", 0, "a")}),
       "queue.a: its parents form a cycle back to itself"},
      {Spec({Q("default", 10), Q("default", 20)}), "queue.default: defined twice"},
      {Spec({Q("default", 10), Q("bad name", 20)}),
       "queue.bad name: bad name: use letters, digits, '_' and '-' (at most 255 characters)"},
      {Spec({Q("default", 10), Q("root", 20)}),
       "queue.root: root is the tree's implicit top and cannot be configured"},
      {Spec({Q("default", 70), Q("b", 40)}),
       "queue.root: children's capacities add up to 110%, over 100%"},
      {Spec({Q("default", 70), W("b", 1)}),
       "queue.root: children mix capacity percentages and weights; give all of them one kind"},
      {Spec({Q("default", 10), low_max}),
       "queue.a: maximum_capacity 40% is under its capacity 50%"},
      {Spec({W("default", 1), w_low_max}),
       "queue.b: maximum_capacity 40% is under its weight's share 50%"},
      {Spec({Q("default", 120)}), "queue.default: capacity must be 0 to 100 (percent)"},
      {Spec({bad_limit}), "queue.default: user_limit must be above 0 and at most 100"},
      {Spec({Q("etl", 10)}), "placement.default_queue: names no queue ('default')"},
  };
  for (const auto& [spec, error] : cases) {
    INFO(error);
    CHECK(BuildError(spec) == error);
  }
  QueueTreeSpec parent_default = Spec({Q("a", 10, "etl"), Q("etl", 10)});
  parent_default.default_queue = "etl";
  CHECK(BuildError(parent_default) ==
        "placement.default_queue: 'etl' has child queues; jobs go to leaf queues only");
  QueueTreeSpec no_rules = Spec({Q("default", 10)});
  no_rules.rules.clear();
  CHECK(BuildError(no_rules) == "placement.rules: no rule: no job could be placed");
  QueueTreeSpec after_reject = Spec({Q("default", 10)});
  after_reject.rules = {PlacementRule::kReject, PlacementRule::kDefault};
  CHECK(BuildError(after_reject) == "placement.rules: rules after 'reject' could never apply");
  QueueTreeSpec twice = Spec({Q("default", 10)});
  twice.rules = {PlacementRule::kUser, PlacementRule::kUser};
  CHECK(BuildError(twice) == "placement.rules: 'user' is listed twice");
  // Without a default rule, the default queue need not exist.
  QueueTreeSpec explicit_only = Spec({Q("etl", 10)});
  explicit_only.rules = {PlacementRule::kExplicit, PlacementRule::kReject};
  QueueTree t;
  CHECK(BuildError(explicit_only, &t).empty());
  CHECK(t.node(t.default_leaf()).spec.name == "etl");
}

TEST_CASE("queue tree: a refused build leaves the tree untouched") {
  QueueTree t;
  REQUIRE(BuildError(Spec({Q("default", 50), Q("etl", 50)}), &t).empty());
  CHECK_FALSE(BuildError(Spec({Q("default", 70), Q("b", 40)}), &t).empty());
  CHECK(t.Find("etl").has_value());
}

// A tree for ACL and placement: root/{etl, adhoc/{alice}, analytics, default}.
QueueTree AclTree(std::vector<PlacementRule> rules) {
  QueueSpec etl = Q("etl", 30);
  etl.submit_groups = {"etl_team"};
  QueueSpec adhoc = Q("adhoc", 30);
  adhoc.submit_users = {"alice", "bob"};
  QueueSpec alice = Q("alice", 50, "adhoc");  // inherits adhoc's ACL
  QueueSpec analytics = Q("analytics", 10);
  analytics.submit_groups = {"*"};
  QueueSpec stopped = Q("old", 0);
  stopped.state = QueueState::kStopped;
  QueueTreeSpec spec = Spec({etl, adhoc, alice, analytics, stopped, Q("default", 30)});
  spec.rules = std::move(rules);
  QueueTree t;
  REQUIRE(BuildError(spec, &t).empty());
  return t;
}

TEST_CASE("queue tree: the nearest ancestor with an ACL decides who may submit") {
  const QueueTree t = AclTree({PlacementRule::kExplicit, PlacementRule::kDefault});
  const std::vector<std::string> team{"etl_team"};
  const std::vector<std::string> none;
  CHECK(t.MaySubmit(*t.Find("etl"), "carol", team));
  CHECK_FALSE(t.MaySubmit(*t.Find("etl"), "carol", none));
  CHECK(t.MaySubmit(*t.Find("alice"), "bob", none));  // adhoc's list
  CHECK_FALSE(t.MaySubmit(*t.Find("alice"), "carol", team));
  CHECK(t.MaySubmit(*t.Find("analytics"), "", none));      // "*" admits anyone
  CHECK(t.MaySubmit(*t.Find("default"), "anyone", none));  // root's "*"
}

TEST_CASE("queue tree: each placement rule places, in order") {
  const std::vector<std::string> team{"etl_team", "analytics"};
  const std::vector<std::string> none;
  uint32_t leaf = 0;
  const QueueTree t = AclTree({PlacementRule::kExplicit, PlacementRule::kUser,
                               PlacementRule::kPrimaryGroup, PlacementRule::kDefault});
  // Explicit first.
  REQUIRE(t.Place({"etl", "carol", team}, &leaf).ok());
  CHECK(t.node(leaf).spec.name == "etl");
  // A leaf named after the user.
  REQUIRE(t.Place({"", "alice", none}, &leaf).ok());
  CHECK(t.node(leaf).spec.name == "alice");
  // The primary group's leaf: etl_team names no queue, so the default takes it.
  REQUIRE(t.Place({"", "carol", team}, &leaf).ok());
  CHECK(t.node(leaf).spec.name == "default");
  const std::vector<std::string> analysts{"analytics", "etl_team"};
  REQUIRE(t.Place({"", "dave", analysts}, &leaf).ok());
  CHECK(t.node(leaf).spec.name == "analytics");
  // No user and no groups: only the default places it.
  REQUIRE(t.Place({"", "", none}, &leaf).ok());
  CHECK(t.node(leaf).spec.name == "default");
}

TEST_CASE("queue tree: each refusal names its rule") {
  const std::vector<std::string> none;
  uint32_t leaf = 99;
  const QueueTree t =
      AclTree({PlacementRule::kExplicit, PlacementRule::kUser, PlacementRule::kReject});
  CHECK(t.Place({"ghost", "bob", none}, &leaf).message() == "queue: unknown queue 'ghost'");
  CHECK(t.Place({"adhoc", "bob", none}, &leaf).message() ==
        "queue: 'adhoc' has child queues; submit to one of its leaves");
  CHECK(t.Place({"old", "bob", none}, &leaf).message() ==
        "queue: 'old' is stopped; it takes no new jobs");
  CHECK(t.Place({"etl", "bob", none}, &leaf).message() ==
        "queue: user bob may not submit to 'etl'");
  CHECK(t.Place({"", "bob", none}, &leaf).message() ==
        "queue: placement rule 'reject' refuses user bob (rules: explicit, user, reject)");
  CHECK(leaf == 99);
  const QueueTree u = AclTree({PlacementRule::kUser});
  CHECK(u.Place({"etl", "", none}, &leaf).message() ==
        "queue: no placement rule places user (none) (rules: user)");
  // The default rule refuses a default that is closed or stopped, rather than skip it.
  QueueSpec closed = Q("default", 10);
  closed.submit_users = {"root_only"};
  QueueTree c;
  REQUIRE(BuildError(Spec({closed}), &c).empty());
  CHECK(c.Place({"", "bob", none}, &leaf).message() ==
        "queue: user bob may not submit to 'default'");
}

TEST_CASE("queue tree: placement rule names round-trip") {
  for (std::string_view name : {"explicit", "user", "primary_group", "default", "reject"})
    CHECK(PlacementRuleName(*ParsePlacementRule(name)) == name);
  CHECK(ParsePlacementRule("group") == std::nullopt);
}

TEST_CASE("queue tree: config groups keep each user's groups in name order") {
  UserGroups g;
  g.Add("zeta", "bob");
  g.Add("alpha", "bob");
  g.Add("alpha", "bob");
  REQUIRE(g.Of("bob").size() == 2);
  CHECK(g.Of("bob")[0] == "alpha");
  CHECK(g.Of("nobody").empty());
}

}  // namespace
}  // namespace locsched
