// MayAdmin: root, the daemon's user, the admin group by primary or supplementary
// membership; the group lookup faked behind GroupSource.
#include "daemon/peer_access.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>

namespace locsched {
namespace {

// Users' groups as a table; counts the lookups.
class FakeGroups final : public GroupSource {
 public:
  std::map<uint32_t, std::vector<uint32_t>> supplementary;
  mutable int lookups = 0;
  std::vector<uint32_t> GroupsOf(uint32_t uid, uint32_t gid) const override {
    ++lookups;
    std::vector<uint32_t> all{gid};
    const auto it = supplementary.find(uid);
    if (it != supplementary.end()) all.insert(all.end(), it->second.begin(), it->second.end());
    return all;
  }
};

TEST_CASE("root and the daemon's own user are admins without a group lookup") {
  FakeGroups groups;
  const AdminRule rule{500, 40};
  CHECK(MayAdmin({0, 0}, rule, groups));
  CHECK(MayAdmin({500, 500}, rule, groups));
  CHECK(groups.lookups == 0);
}

TEST_CASE("a member of the admin group by a supplementary group is an admin") {
  FakeGroups groups;
  groups.supplementary[1001] = {27, 40};  // usermod -aG operators alice
  groups.supplementary[1002] = {27};
  const AdminRule rule{500, 40};
  CHECK(MayAdmin({1001, 1001}, rule, groups));
  CHECK_FALSE(MayAdmin({1002, 1002}, rule, groups));
  CHECK(MayAdmin({1003, 40}, rule, groups));  // primary group
}

TEST_CASE("without an admin group only root and the daemon's user are admins") {
  FakeGroups groups;
  groups.supplementary[1001] = {40};
  const AdminRule rule{500, std::nullopt};
  CHECK_FALSE(MayAdmin({1001, 40}, rule, groups));
  CHECK(groups.lookups == 0);
}

TEST_CASE("the system's groups of the current user hold its primary group") {
  const std::vector<uint32_t> all = SystemGroups().GroupsOf(getuid(), getgid());
  CHECK(std::find(all.begin(), all.end(), getgid()) != all.end());
  // A uid with no user entry has only the group the kernel reported.
  CHECK(SystemGroups().GroupsOf(4000000000u, 77) == std::vector<uint32_t>{77});
}

}  // namespace
}  // namespace locsched
