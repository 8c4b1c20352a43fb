#include "daemon/peer_access.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace locsched {

std::vector<uint32_t> SystemGroups::GroupsOf(uint32_t uid, uint32_t gid) const {
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return {gid};  // no such user: only the group the kernel reported
  std::vector<gid_t> groups(64);
  int n = static_cast<int>(groups.size());
  while (getgrouplist(pw.pw_name, gid, groups.data(), &n) < 0) {
    if (n <= static_cast<int>(groups.size())) n = static_cast<int>(groups.size()) * 2;
    if (n > 65536) return {gid};
    groups.resize(static_cast<size_t>(n));
  }
  return std::vector<uint32_t>(groups.begin(), groups.begin() + n);
}

bool MayAdmin(const PeerCred& peer, const AdminRule& rule, const GroupSource& groups) {
  if (peer.uid == 0 || peer.uid == rule.daemon_uid) return true;
  if (!rule.admin_group) return false;
  if (peer.gid == *rule.admin_group) return true;
  const std::vector<uint32_t> all = groups.GroupsOf(peer.uid, peer.gid);
  return std::find(all.begin(), all.end(), *rule.admin_group) != all.end();
}

}  // namespace locsched
