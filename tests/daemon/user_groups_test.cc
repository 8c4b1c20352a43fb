// Tests GroupResolver (daemon/user_groups.h): the system's groups first, the config's
// [groups] for users the system does not know (in group-name order, the first as
// primary), the cache, and the real system database for root.
#include "daemon/user_groups.h"

#include <catch2/catch.hpp>

#include <map>
#include <vector>

namespace locsched {
namespace {

// A system that knows alice (primary staff, then wheel) and counts its lookups.
class FakeDirectory final : public UserDirectory {
 public:
  std::optional<std::vector<std::string>> GroupsOf(const std::string& user) const override {
    ++lookups[user];
    if (user == "alice") return std::vector<std::string>{"staff", "wheel"};
    return std::nullopt;
  }
  mutable std::map<std::string, int> lookups;
};

std::vector<std::string> Groups(GroupResolver& g, std::string_view user) {
  const std::span<const std::string> s = g.Of(user);
  return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("GroupResolver: a user the system knows gets the system's groups, primary first") {
  FakeDirectory dir;
  UserGroups config;
  config.Add("analytics", "alice");
  GroupResolver g(dir, config);
  CHECK(Groups(g, "alice") == std::vector<std::string>{"staff", "wheel"});
}

TEST_CASE("GroupResolver: other users get the config's groups in name order") {
  FakeDirectory dir;
  UserGroups config;
  config.Add("zeta", "u1");
  for (const char* user : {"u1", "u2", "u1"}) config.Add("analytics", user);
  GroupResolver g(dir, config);
  CHECK(Groups(g, "u1") == std::vector<std::string>{"analytics", "zeta"});
  CHECK(Groups(g, "u2") == std::vector<std::string>{"analytics"});
  CHECK(Groups(g, "nobody-known").empty());
  CHECK(Groups(g, "").empty());
}

TEST_CASE("GroupResolver: each user is looked up once") {
  FakeDirectory dir;
  GroupResolver g(dir, {});
  for (int i = 0; i < 3; ++i) {
    CHECK(Groups(g, "alice").size() == 2);
    CHECK(Groups(g, "bob").empty());
  }
  CHECK(dir.lookups["alice"] == 1);
  CHECK(dir.lookups["bob"] == 1);
  CHECK(g.cached() == 2);
}

TEST_CASE("SystemUserDirectory: root's primary group comes first; unknown users are none") {
  SystemUserDirectory dir;
  const auto root = dir.GroupsOf("root");
  REQUIRE(root.has_value());
  REQUIRE(!root->empty());
  CHECK(root->front() == "root");
  CHECK_FALSE(dir.GroupsOf("no-such-user-locsched-test").has_value());
}

}  // namespace locsched
