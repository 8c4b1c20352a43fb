// SolveCommand: one row of locsched-solve's subcommand table. Each offline
// solver (tools/solve/*_command(s).cc) provides a row; tools/solve/main.cc dispatches on
// the first argument and prints the table as help. Single-threaded CLI code.
#pragma once

namespace locsched {

/// A `locsched-solve NAME ...` subcommand.
struct SolveCommand {
  const char* name;     ///< first argument, e.g. "hta"
  const char* summary;  ///< one line for `locsched-solve --help`
  /// Runs the subcommand; argv[0] is the subcommand name. Returns the exit code.
  int (*run)(int argc, char** argv);
};

}  // namespace locsched
