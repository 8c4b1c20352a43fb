#include "config/queue_config.h"

#include <catch2/catch.hpp>
#include <string>

namespace locsched {
namespace {

// Loads `text`; returns the error message ("" on success).
std::string Load(const std::string& text, QueueConfig* out = nullptr, QueueTree* tree = nullptr) {
  QueueConfig c;
  Status s = LoadQueueConfigText(text, "q.toml", out ? out : &c, tree);
  return s.ok() ? "" : s.message();
}

// A tree that sets every key of [queue.*], [placement] and [groups].
const std::string kFullTree = R"([scheduler]
policy = "delay"

[placement]
rules = ["explicit", "user", "primary_group", "default"]
default_queue = "adhoc"

[groups]
analytics = ["alice", "bob"]
etl_team = ["bob"]

[queue.etl]
capacity = 60
maximum_capacity = 100
max_running_jobs = 4
user_limit = 50
order = "fifo"
submit_groups = ["etl_team"]

[queue.adhoc]
capacity = 30.5
maximum_capacity = 80
state = "stopped"
submit_users = ["*"]

[queue.nightly]
parent = "etl"
weight = 2

[queue.daily]
parent = "etl"
weight = 1
order = "srpt"
)";

TEST_CASE("queue config: a full tree loads with every key") {
  QueueConfig c;
  QueueTree tree;
  REQUIRE(Load(kFullTree, &c, &tree).empty());
  CHECK(c.enabled());
  REQUIRE(c.spec.queues.size() == 4);
  CHECK(c.spec.default_queue == "adhoc");
  CHECK(c.spec.rules == std::vector<PlacementRule>{PlacementRule::kExplicit, PlacementRule::kUser,
                                                   PlacementRule::kPrimaryGroup,
                                                   PlacementRule::kDefault});
  const QueueNode& etl = tree.node(*tree.Find("etl"));
  CHECK(etl.spec.guarantee == 60);
  CHECK(etl.spec.max_running_jobs == 4);
  CHECK(etl.spec.user_limit == 50);
  CHECK(etl.spec.order == JobOrder::kFifo);
  CHECK(etl.spec.submit_groups == std::vector<std::string>{"etl_team"});
  const QueueNode& adhoc = tree.node(*tree.Find("adhoc"));
  CHECK(adhoc.spec.guarantee == 30.5);
  CHECK(adhoc.spec.state == QueueState::kStopped);
  CHECK(adhoc.maximum == Approx(0.8));
  const QueueNode& nightly = tree.node(*tree.Find("nightly"));
  CHECK(nightly.spec.by_weight);
  CHECK(nightly.guaranteed == Approx(0.4));
  CHECK(tree.node(*tree.Find("daily")).spec.order == JobOrder::kSrpt);
  // Groups are kept per user, in name order: the first is the primary group.
  CHECK(c.groups.Of("bob").size() == 2);
  CHECK(c.groups.Of("bob")[0] == "analytics");
  CHECK(c.groups.Of("alice")[0] == "analytics");
  CHECK(c.groups.Of("carol").empty());
}

TEST_CASE("queue config: QueueConfigToml reads back to the same config") {
  QueueConfig c;
  REQUIRE(Load(kFullTree, &c).empty());
  QueueConfig again;
  const std::string written = QueueConfigToml(c);
  INFO(written);
  REQUIRE(Load(written, &again).empty());
  CHECK(again == c);
  // Names that need quoting, and a share that is not a round number.
  REQUIRE(Load("[queue.a]\ncapacity = 33.333333333333336\n[queue.b]\ncapacity = 66.66\n"
               "[placement]\ndefault_queue = \"b\"\n[groups]\n\"team \\\"x\\\".y\" = [\"u=1\", "
               "\"al ice\"]\n",
               &c)
              .empty());
  REQUIRE(Load(QueueConfigToml(c), &again).empty());
  CHECK(again == c);
  CHECK(c.groups.Of("al ice")[0] == "team \"x\".y");
}

TEST_CASE("queue config: QueueConfigToml writes nothing with tenancy off") {
  CHECK(QueueConfigToml(QueueConfig{}).empty());
}

TEST_CASE("queue config: a file without queue tables leaves tenancy off") {
  QueueConfig c;
  REQUIRE(Load("[scheduler]\npolicy = \"fair\"\n", &c).empty());
  CHECK_FALSE(c.enabled());
}

TEST_CASE("queue config: errors name the key and where it is written") {
  CHECK(Load("[queue.etl]\ncapacity = 120\n") ==
        "q.toml:2:12: queue.etl.capacity: must be 0 to 100 (percent)");
  CHECK(Load("[queue.etl]\ncapacity = \"lots\"\n") ==
        "q.toml:2:12: queue.etl.capacity: expected a number (percent)");
  CHECK(Load("[queue.etl]\ncapasity = 10\n") ==
        "q.toml:2:1: queue.etl.capasity: unknown key; did you mean 'capacity'?");
  CHECK(Load("[queue.etl]\ncapacity = 10\nweight = 2\n")
            .find("q.toml:3:1: queue.etl.weight: set capacity or weight, not both") == 0);
  CHECK(Load("[queue.etl]\nmax_running_jobs = -1\n") ==
        "q.toml:2:20: queue.etl.max_running_jobs: expected an integer, 0 (no limit) or more");
  CHECK(Load("[queue.etl]\nuser_limit = 0\n") ==
        "q.toml:2:14: queue.etl.user_limit: must be above 0 and at most 100 (percent)");
  CHECK(Load("[queue.etl]\norder = \"lp\"\n").find("queue.etl.order: expected") !=
        std::string::npos);
  CHECK(Load("[queue.etl]\nstate = \"paused\"\n") ==
        "q.toml:2:9: queue.etl.state: expected \"running\" or \"stopped\"");
  CHECK(Load("[queue.etl]\nsubmit_users = \"bob\"\n")
            .find("queue.etl.submit_users: expected an "
                  "array") != std::string::npos);
  CHECK(Load("[queue.etl.daily]\ncapacity = 1\n")
            .find("queue.etl.daily: unknown key; a child queue is its own [queue.NAME] table") !=
        std::string::npos);
  CHECK(Load("queue = 3\n") == "q.toml:1:9: queue: expected tables [queue.NAME]");
  CHECK(Load("[placement]\nrules = [\"explicit\", \"group\"]\n")
            .find("q.toml:2:9: placement.rules: expected an array of") == 0);
  CHECK(Load("[placement]\ndefualt_queue = \"x\"\n") ==
        "q.toml:2:1: placement.defualt_queue: unknown key; did you mean 'default_queue'?");
  CHECK(Load("[groups]\nteam = \"bob\"\n") ==
        "q.toml:2:8: groups.team: expected an array of user "
        "names");
}

TEST_CASE("queue config: every error of a file is reported, in file order") {
  const std::string err = Load("[queue.b]\nstate = 1\n[queue.a]\ncapacity = -1\n");
  CHECK(err ==
        "q.toml:2:9: queue.b.state: expected \"running\" or \"stopped\"\n"
        "q.toml:4:12: queue.a.capacity: must be 0 to 100 (percent)");
}

TEST_CASE("queue config: tree rules are refused at the queue's table") {
  CHECK(Load("[queue.etl]\nparent = \"nowhere\"\n") ==
        "q.toml:1:1: queue.etl: unknown parent "
        "'nowhere'");
  CHECK(Load("[queue.a]\ncapacity = 70\n[queue.b]\ncapacity = 40\n[queue.default]\n")
            .find("children's capacities add up to 110%, over 100%") != std::string::npos);
  CHECK(Load("[queue.a]\ncapacity = 50\nmaximum_capacity = 40\n") ==
        "q.toml:1:1: queue.a: maximum_capacity 40% is under its capacity 50%");
  CHECK(Load("[queue.a]\ncapacity = 50\n[placement]\ndefault_queue = \"b\"\n") ==
        "q.toml:4:17: placement.default_queue: names no queue ('b')");
  // No default_queue written: the error points at the placement default's table or 1:1.
  CHECK(Load("[queue.a]\ncapacity = 50\n") ==
        "q.toml:1:1: placement.default_queue: names no queue ('default')");
}

TEST_CASE("queue config: a file that does not parse names the place") {
  CHECK(Load("[queue.etl\n").find("q.toml:1:") == 0);
}

TEST_CASE("queue config: a missing file is named") {
  QueueConfig c;
  Status s = LoadQueueConfigFile("/nonexistent/locsched.toml", &c);
  CHECK(s.message().find("/nonexistent/locsched.toml") == 0);
}

}  // namespace
}  // namespace locsched
