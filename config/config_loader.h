// ConfigLoader: reads a TOML file or text into a validated Config, compares a
// running Config with a reloaded one, and explains a Config for --check-config.
// Called by the daemon at start and on SIGHUP, and by tests. Stateless: safe
// from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/config.h"

namespace locsched {

/// Reads a whole regular file (a directory, FIFO or device is refused without
/// blocking); the error names the path.
Status ReadRegularFile(const std::string& path, std::string* text);
/// Reads and validates `path`; on error *out is unchanged and the message names file and key.
/// A key written under a deprecated name (scheduler.intra_queue) is read as its new name
/// and adds a line "FILE:LINE:COL: key: deprecated; ..." to *warnings (if given) for the
/// caller to log; both names set is an error.
Status LoadConfigFile(const std::string& path, Config* out,
                      std::vector<std::string>* warnings = nullptr);
/// Reads the string at dotted `key` (e.g. "sockets.control_path") from the TOML file
/// `path` without validating the rest, so a client finds the daemon's socket even in a
/// file the daemon would refuse. *out is unchanged when the key is absent.
Status ReadConfigString(const std::string& path, std::string_view key, std::string* out);
/// Validates TOML text; errors read "SOURCE:LINE:COL: key: problem", one line per error.
Status LoadConfigText(std::string_view toml, std::string_view source_name, Config* out,
                      std::vector<std::string>* warnings = nullptr);
/// Lists the keys that differ into *changed; an error names the first non-reloadable one.
Status CheckReload(const Config& running, const Config& next, std::vector<std::string>* changed);
/// A table of every key: value, default, changed?, reloadable?, help.
std::string ExplainConfig(const Config& c);
/// The tenant queue tree (--check-config): each queue with its configured guarantee and
/// its absolute shares, limits, order, state and ACL; the placement rules; config groups.
std::string ExplainQueues(const QueueConfig& q);
/// The key a deprecated name was renamed to (scheduler.intra_queue:
/// scheduler.machine_queue_order), or "" if `dotted` is no deprecated name.
std::string_view RenamedConfigKey(std::string_view dotted);
/// The closest known key or section to `unknown` ("" if none is close).
std::string SuggestConfigKey(std::string_view unknown);

}  // namespace locsched
