// PeerAccess: whether a connected peer may run admin commands, from its
// SO_PEERCRED credentials: root, the daemon's own user, or a member of the
// admin group (sockets.control_group), by its primary or any supplementary
// group. Group membership is looked up behind GroupSource so tests fake it.
// The Server calls it once per accepted connection, on the event-loop thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace locsched {

/// A peer's credentials as SO_PEERCRED reports them.
struct PeerCred {
  uint32_t uid = 0;  ///< the peer's effective uid
  uint32_t gid = 0;  ///< its effective (primary) gid
};

/// Every group a user is in.
class GroupSource {
 public:
  virtual ~GroupSource() = default;
  /// The groups of user `uid` whose primary group is `gid` (supplementary ones included).
  virtual std::vector<uint32_t> GroupsOf(uint32_t uid, uint32_t gid) const = 0;
};

/// The system's view: getpwuid_r for the user's name, then getgrouplist.
class SystemGroups final : public GroupSource {
 public:
  std::vector<uint32_t> GroupsOf(uint32_t uid, uint32_t gid) const override;
};

/// Who may run admin commands.
struct AdminRule {
  uint32_t daemon_uid = 0;              ///< the daemon's own user
  std::optional<uint32_t> admin_group;  ///< sockets.control_group's gid, if one is set
};

/// Whether `peer` may run admin commands under `rule`; `groups` is asked only when
/// neither the uid nor the primary gid decides it.
bool MayAdmin(const PeerCred& peer, const AdminRule& rule, const GroupSource& groups);

}  // namespace locsched
