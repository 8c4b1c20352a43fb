// locschedd's entry point: parses the command line, loads the configuration,
// and either explains it (--check-config) or runs the daemon.
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "config/config_loader.h"
#include "daemon/daemon.h"
#include "daemon/durability.h"
#include "daemon/logging.h"

int main(int argc, char** argv) {
  using namespace locsched;
  CLI::App app{
      "locschedd: the locality-aware task scheduler daemon. It listens on an event socket "
      "(agents, log tailer) and a control socket (locschedctl) and answers newline-delimited "
      "JSON; see docs/protocol.md (installed in share/doc/locsched/docs/)."};
  DaemonOptions opts;
  std::string check;
  app.add_option("-c,--config", opts.config_path,
                 "TOML configuration file (default: built-in defaults)")
      ->check(CLI::ExistingFile);
  app.add_option("--set", opts.overrides,
                 "override one key after the file, e.g. --set scheduler.alpha=0.9 (repeatable)");
  app.add_option(
      "--check-config", check,
      "validate FILE, print every key with its value and whether it is reloadable, exit");
  bool recover = false;
  app.add_flag("--recover", recover,
               "keep each damaged journal file aside untouched, rewrite it with every valid "
               "record, print which records were lost, exit (refused while a daemon runs on "
               "the journal; see docs/operations.md)");
  app.set_version_flag("--version", std::string("locschedd ") + LOCSCHED_VERSION);
  app.footer(
      "See docs/operations.md (installed in share/doc/locsched/docs/).\n\n"
      "Exit codes:\n"
      "  0    stopped cleanly (SIGTERM), or --check-config found the file good\n"
      "  1    the configuration was refused, the journal could not be recovered or is\n"
      "       in use by another locschedd (the message names its pid), or a socket could\n"
      "       not be bound\n"
      "  2    bad command line\n"
      "  3    high-availability mode: deposed (a newer active, or the ZooKeeper session ended)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help and --version are 0; every bad flag is 2
  }

  if (!check.empty()) {
    opts.config_path = check;
    Config cfg;
    std::vector<std::string> warnings;
    if (Status s = LoadConfig(opts, &cfg, &warnings); !s.ok()) {
      std::cerr << "locschedd: " << s.message() << "\n";
      return 1;
    }
    for (const std::string& w : warnings) std::cerr << "locschedd: warning: " << w << "\n";
    std::cout << check << ": OK\n" << ExplainConfig(cfg) << "\n" << ExplainQueues(cfg.queues);
    return 0;
  }
  Config cfg;
  std::vector<std::string> warnings;
  if (Status s = LoadConfig(opts, &cfg, &warnings); !s.ok()) {
    std::cerr << "locschedd: " << s.message() << "\n";
    return 1;
  }
  if (recover) return RecoverJournalFiles(cfg.journal, stdout);
  SetUpLogging(cfg.log);
  for (const std::string& w : warnings) spdlog::warn("config: {}", w);
  return RunDaemon(cfg, opts);
}
