// QueueTree: the tenant queues that share a cluster, named as YARN's
// CapacityScheduler names them. Queues form a tree under "root"; each has a
// guaranteed share of its parent (a percentage, or a weight among its
// siblings), a maximum share, a limit on running jobs, a per-user limit, an
// order for its jobs, a state (running or stopped) and a submit ACL. Jobs live
// in leaf queues; placement rules choose a job's leaf.
//
// Not the policies' per-machine queues (queues.h, which operators see as
// "machine queues"): a "queue" in locsched's config, protocol and CLI is one of
// these. Pure data and rules: the config layer builds a QueueTreeSpec, the
// daemon looks users' groups up and passes them in. Built once, then read-only;
// QueueSharing (queue_sharing.h) holds the live usage.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/core/policy.h"
#include "base/status.h"

namespace locsched {

/// Whether a queue takes new jobs.
enum class QueueState : uint8_t {
  kRunning,  ///< takes new jobs
  kStopped,  ///< refuses new jobs and finishes what it holds (drains)
};

/// One queue as configured (`[queue.NAME]` in locsched.toml).
struct QueueSpec {
  std::string name;               ///< unique in the tree: letters, digits, '_' and '-'
  std::string parent = "root";    ///< "root" or another queue's name
  double guarantee = 0;           ///< percent of the parent, or a weight (by_weight)
  bool by_weight = false;         ///< guarantee is a weight; all siblings must agree
  double maximum = 100;           ///< percent of the parent's maximum, >= its guarantee
  uint32_t max_running_jobs = 0;  ///< jobs admitted at once (later ones wait); 0: no limit
  double user_limit = 100;        ///< percent of the queue's maximum one user may hold
  std::optional<JobOrder> order;  ///< its jobs' order; nullopt: scheduler.job_order
  QueueState state = QueueState::kRunning;
  /// Who may submit: users and groups. "*" admits anyone. Both empty: the nearest
  /// ancestor with an ACL decides (root's is "*").
  std::vector<std::string> submit_users;
  std::vector<std::string> submit_groups;
  bool operator==(const QueueSpec&) const = default;  ///< field-wise equality
};

/// One step of the placement rules, tried in order for every job.
enum class PlacementRule : uint8_t {
  kExplicit,      ///< the job's own `queue`, if it names a leaf
  kUser,          ///< a leaf named after the job's user
  kPrimaryGroup,  ///< a leaf named after the user's primary group
  kDefault,       ///< the tree's default leaf
  kReject,        ///< refuse the job (a named error)
};

/// The tree as configured: its queues, placement rules and default leaf.
struct QueueTreeSpec {
  std::vector<QueueSpec> queues;  ///< every queue but root, in any order
  std::vector<PlacementRule> rules{PlacementRule::kExplicit, PlacementRule::kDefault};
  std::string default_queue = "default";
  bool operator==(const QueueTreeSpec&) const = default;  ///< field-wise equality
};

/// Who submits a job and where it asks to go.
struct JobOwner {
  std::string_view queue;               ///< the job's explicit queue ("" if none)
  std::string_view user;                ///< the submitting user ("" if unknown)
  std::span<const std::string> groups;  ///< the user's groups, primary first
};

/// Groups the config defines (`[groups]`) for users the system's group database does not
/// know (hashed trace users): each user's groups in name order, the first its primary
/// group. Built by the config layer; the daemon consults it when the database has no entry.
class UserGroups {
 public:
  /// Lists `user` in `group` (once; groups stay in name order).
  void Add(std::string_view group, std::string_view user);
  /// The user's groups, primary first; empty if the config lists it nowhere.
  std::span<const std::string> Of(std::string_view user) const;
  /// Users listed, each with its groups.
  const std::map<std::string, std::vector<std::string>, std::less<>>& users() const {
    return of_user_;
  }
  bool empty() const { return of_user_.empty(); }
  bool operator==(const UserGroups&) const = default;

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> of_user_;
};

/// A queue of a built tree, with its shares made absolute.
struct QueueNode {
  QueueSpec spec;                  ///< as configured (root: a synthetic spec)
  uint32_t parent = UINT32_MAX;    ///< index of the parent; root's is UINT32_MAX
  std::vector<uint32_t> children;  ///< indexes of its children
  uint32_t depth = 0;              ///< root 0
  double guaranteed = 1;           ///< guaranteed fraction of the whole cluster
  double maximum = 1;              ///< maximum fraction of the whole cluster
  bool leaf() const { return children.empty(); }
};

/// A validated queue tree. Index 0 is root.
class QueueTree {
 public:
  /// The tree of tenancy off: root and one leaf, "default", holding 100%.
  QueueTree();
  /// Validates spec and builds the tree into *out. Errors name the queue and the rule
  /// broken ("queue.etl: children's guarantees add up to 120%, over 100%"): an unknown
  /// parent, a cycle, a duplicate or bad name, guarantees over 100%, mixed percentages
  /// and weights among siblings, a maximum under the guarantee, a default or placement
  /// rule that names no leaf. *out is untouched on error.
  static Status Build(const QueueTreeSpec& spec, QueueTree* out);

  /// Number of queues, root included.
  uint32_t size() const { return static_cast<uint32_t>(nodes_.size()); }
  /// Queue q (0: root).
  const QueueNode& node(uint32_t q) const { return nodes_[q]; }
  /// The leaves, in tree order.
  std::span<const uint32_t> leaves() const { return leaves_; }
  /// The queue named `name`, if any.
  std::optional<uint32_t> Find(std::string_view name) const;
  /// The placement rules and default leaf as built.
  const QueueTreeSpec& spec() const { return spec_; }
  /// The leaf a job without a placed queue takes: the default queue if it is a leaf of
  /// this tree, else the first leaf.
  uint32_t default_leaf() const { return default_leaf_; }

  /// Chooses the leaf for a job by the placement rules, into *leaf. Refusals name the
  /// rule: an explicit queue that is unknown, not a leaf, stopped or closed to the user
  /// ("queue: user bob may not submit to etl"), or no rule matching ("queue: no placement
  /// rule places user bob (rules: user, default)").
  Status Place(const JobOwner& owner, uint32_t* leaf) const;
  /// True if owner's user (or one of its groups) may submit to queue q (by the ACLs).
  bool MaySubmit(uint32_t q, std::string_view user, std::span<const std::string> groups) const;

 private:
  static std::string_view WhoName(std::string_view user);
  Status Admit(uint32_t q, const JobOwner& owner, uint32_t* leaf) const;
  bool Fits(std::string_view name, const JobOwner& owner, uint32_t* leaf) const;
  std::string RulesText() const;

  QueueTreeSpec spec_;
  std::vector<QueueNode> nodes_;
  std::vector<uint32_t> leaves_;
  uint32_t default_leaf_ = 1;
};

/// Parses "explicit", "user", "primary_group", "default", "reject".
std::optional<PlacementRule> ParsePlacementRule(std::string_view name);
/// The canonical name of a placement rule.
std::string_view PlacementRuleName(PlacementRule rule);

}  // namespace locsched
