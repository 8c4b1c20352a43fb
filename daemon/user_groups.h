// GroupResolver: the groups of a job's user, for the tenant queues' submit ACLs
// and the primary_group placement rule (algorithms/core/queue_tree.h, which
// stays pure and takes the groups as an argument). A user the system's group
// database knows (getpwnam_r, then getgrouplist: primary group first) gets the
// system's groups; any other user (a hashed trace user, say) gets the config's
// [groups] tables that list it (UserGroups, queue_tree.h: in group-name order,
// the first as its primary).
// Lookups are cached: the system database may be remote (NSS, LDAP), and the
// same few users submit over and over; a reload builds a fresh resolver, so
// group changes are seen after `reload`. Owned by the Engine; event-loop thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithms/core/queue_tree.h"

namespace locsched {

/// The system's user and group database, behind an interface so tests fake it.
class UserDirectory {
 public:
  virtual ~UserDirectory() = default;
  /// The groups of `user` by name, primary first; nullopt if the system has no such user.
  virtual std::optional<std::vector<std::string>> GroupsOf(const std::string& user) const = 0;
};

/// The system's view: getpwnam_r, getgrouplist, then getgrgid_r for each group's name
/// (a group without a name is written as its number).
class SystemUserDirectory final : public UserDirectory {
 public:
  std::optional<std::vector<std::string>> GroupsOf(const std::string& user) const override;
};

/// A user's groups: the system's, else the config's (see the file comment).
class GroupResolver {
 public:
  /// `system` must outlive this object. `config`: the [groups] tables. Copyable: a reload
  /// assigns a fresh resolver.
  GroupResolver(const UserDirectory& system, UserGroups config);

  /// The groups of `user`, primary first (none for "" or a user no source knows).
  std::span<const std::string> Of(std::string_view user);
  /// Users whose groups are cached now.
  size_t cached() const { return cache_.size(); }

  /// Most users cached; past it the cache starts over.
  static constexpr size_t kMaxCached = 65536;

 private:
  const UserDirectory* system_;  // not owned
  UserGroups config_;
  std::unordered_map<std::string, std::vector<std::string>> cache_;
};

}  // namespace locsched
