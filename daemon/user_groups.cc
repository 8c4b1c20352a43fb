#include "daemon/user_groups.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <utility>

namespace locsched {

namespace {

// The name of group `gid`, or its number if the database has no name for it.
std::string GroupName(gid_t gid) {
  group gr{};
  group* found = nullptr;
  std::string buf(16384, '\0');
  if (getgrgid_r(gid, &gr, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    return gr.gr_name;
  return std::to_string(gid);
}

}  // namespace

std::optional<std::vector<std::string>> SystemUserDirectory::GroupsOf(
    const std::string& user) const {
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return std::nullopt;
  std::vector<gid_t> gids(64);
  int n = static_cast<int>(gids.size());
  while (getgrouplist(pw.pw_name, pw.pw_gid, gids.data(), &n) < 0) {
    if (n <= static_cast<int>(gids.size())) n = static_cast<int>(gids.size()) * 2;
    if (n > 65536) return std::vector<std::string>{GroupName(pw.pw_gid)};
    gids.resize(static_cast<size_t>(n));
  }
  std::vector<std::string> names{GroupName(pw.pw_gid)};  // the primary group first
  for (int i = 0; i < n; ++i)
    if (gids[static_cast<size_t>(i)] != pw.pw_gid)
      names.push_back(GroupName(gids[static_cast<size_t>(i)]));
  return names;
}

GroupResolver::GroupResolver(const UserDirectory& system, UserGroups config)
    : system_(&system), config_(std::move(config)) {}

std::span<const std::string> GroupResolver::Of(std::string_view user) {
  if (user.empty()) return {};
  const std::string name(user);
  if (const auto it = cache_.find(name); it != cache_.end()) return it->second;
  if (cache_.size() >= kMaxCached) cache_.clear();
  std::optional<std::vector<std::string>> groups = system_->GroupsOf(name);
  if (!groups) {
    const std::span<const std::string> listed = config_.Of(name);
    groups.emplace(listed.begin(), listed.end());
  }
  return cache_.emplace(name, std::move(*groups)).first->second;
}

}  // namespace locsched
