// Logging: sets up spdlog for the daemon. Under systemd (JOURNAL_STREAM set)
// or with target "journal" lines go to the journal with their priority and no
// timestamp of ours; otherwise to stderr with one. Called by main at start
// and on reload, on the event-loop thread.
#pragma once

#include "config/config.h"

namespace locsched {

/// Installs the default logger for cfg.target and sets cfg.level.
void SetUpLogging(const LogConfig& cfg);
/// Changes only the level (reload).
void SetLogLevel(LogLevel level);

}  // namespace locsched
