// Daemon: one running locschedd. It owns the io_context and, on its single
// thread, the Engine, the Dispatcher and the Server, plus signals (SIGTERM and
// SIGINT stop gracefully, SIGHUP reloads), systemd notifications and the
// watchdog. main builds it from the parsed flags; Run blocks until stopped.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "config/config.h"

namespace locsched {

/// What main learnt from the command line.
struct DaemonOptions {
  std::string config_path;             ///< --config FILE ("" = built-in defaults)
  std::vector<std::string> overrides;  ///< --set KEY=VALUE, applied after the file
};

/// Loads the file (if any), then applies the KEY=VALUE overrides, then validates. A key
/// given under a deprecated name adds a line to *warnings (if given) for the caller to log.
Status LoadConfig(const DaemonOptions& opts, Config* out,
                  std::vector<std::string>* warnings = nullptr);

/// The exit code of an active instance that was deposed (fenced, or its
/// coordination session ended): restart it and it rejoins as a standby.
inline constexpr int kExitDeposed = 3;

/// Serves until SIGTERM/SIGINT; returns the process exit code.
int RunDaemon(const Config& cfg, const DaemonOptions& opts);

}  // namespace locsched
