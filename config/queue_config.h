// Queue config: reads the tenant queue tables of a locsched.toml ([queue.NAME],
// [placement], [groups]) into a QueueTreeSpec and the config's user groups, and
// validates the tree (QueueTree::Build) so a bad tree is refused at load with
// FILE:LINE:COL and the key ("queue.etl.capacity: ..."), like every other key.
// Called by the daemon's config loader (which skips these sections in its key
// table) and by the trace simulator (--queues FILE). Stateless; any thread.
#pragma once

#include <string>
#include <string_view>

#include "algorithms/core/queue_tree.h"
#include "base/status.h"

namespace locsched {

/// The tenant queue settings of one file.
struct QueueConfig {
  QueueTreeSpec spec;  ///< [queue.*] and [placement]
  UserGroups groups;   ///< [groups]: group -> users, kept as user -> groups
  /// Tenancy is on when the file has any [queue.*] table.
  bool enabled() const { return !spec.queues.empty(); }
  bool operator==(const QueueConfig&) const = default;  ///< field-wise equality
};

/// True for the top-level tables this layer reads: "queue", "placement", "groups".
bool IsQueueConfigSection(std::string_view name);

/// Reads the queue tables of TOML `text` (other tables are ignored) and builds the tree to
/// check it; errors read "SOURCE:LINE:COL: key: problem", one line per error, in file
/// order. On error *out and *tree are unchanged. tree may be nullptr.
Status LoadQueueConfigText(std::string_view text, std::string_view source_name, QueueConfig* out,
                           QueueTree* tree = nullptr);
/// c as the TOML tables LoadQueueConfigText reads back to c: [queue.NAME] per queue (every
/// key written), [placement] and [groups]; "" when tenancy is off and no group is listed.
std::string QueueConfigToml(const QueueConfig& c);
/// LoadQueueConfigText over a file's contents (ReadRegularFile's checks; errors name it).
Status LoadQueueConfigFile(const std::string& path, QueueConfig* out, QueueTree* tree = nullptr);

}  // namespace locsched
