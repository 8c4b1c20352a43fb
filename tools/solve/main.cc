// locsched-solve: offline solvers over instance files. The first argument
// picks a row of kCommands (tools/solve/solve_command.h); the rest is that
// subcommand's own CLI. Exit codes: 0 ok, 1 solver failure, 2 usage or input error.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/suggest.h"
#include "tools/solve/lp_commands.h"
#include "tools/solve/solve_command.h"

namespace locsched {

int RunHta(int argc, char** argv);  // tools/solve/hta_command.cc

namespace {

// Each solver adds its row here (and its tools/solve/*_command(s).cc to
// tools/solve/CMakeLists.txt).
const SolveCommand kCommands[] = {
    {"hta", "assign tasks to servers by max load (Fischer-Su-Yin; flow, round-robin, exact)",
     RunHta},
    {"synchpack", "SynchPack-L (LP order, list packing; --paper: SynchPack-2) vs the LP bound",
     RunSynchPackCommand},
    {"synchpack1", "SynchPack-1: preemptive with migration, from the preemptive LP (LP1)",
     RunSynchPack1Command},
    {"synchpack1-single", "SynchPack-1 with one machine per task: preemptive in LP1 job order",
     RunSynchPack1SingleCommand},
    {"psrs", "PSRS-style preemptive Smith-ratio scheduling (baseline, simplified)", RunPsrsCommand},
    {"mrs", "MRS Map->Reduce merge vs the LP bound (--separate-shuffle: factor-81 model)",
     RunMrsCommand},
    {"jsq-mw", "JSQ+MaxWeight with greedy packing (baseline)", RunJsqMwCommand},
    {"tetris", "Tetris-style packing score (baseline)", RunTetrisCommand},
    {"lp-bound", "only the interval LP's lower bound (for timing the LP)", RunLpBoundCommand},
};

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "Usage: locsched-solve COMMAND --instance FILE [options]\n"
               "  or:  locsched-solve --version\n\n"
               "Offline solvers; COMMAND --help describes each.\n\nCommands:\n");
  for (const SolveCommand& c : kCommands) std::fprintf(out, "  %-18s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\nExit codes:\n"
               "  0    ok\n"
               "  1    solver failure (e.g. hta --algorithm exact past its --time-limit)\n"
               "  2    bad command line or instance (the message names the field)\n");
}

// The closest command name, for a did-you-mean ("" if none is close).
std::string Closest(const std::string& name) {
  std::vector<std::string_view> names;
  for (const SolveCommand& c : kCommands) names.push_back(c.name);
  return std::string(SuggestName(name, names));
}

int Main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    PrintUsage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("locsched-solve %s\n", LOCSCHED_VERSION);
    return 0;
  }
  for (const SolveCommand& c : kCommands)
    if (!std::strcmp(c.name, argv[1])) return c.run(argc - 1, argv + 1);
  std::string hint = Closest(argv[1]);
  std::fprintf(stderr, "locsched-solve: unknown command '%s'%s%s%s\n", argv[1],
               hint.empty() ? "" : " (did you mean '", hint.c_str(), hint.empty() ? "" : "'?)");
  PrintUsage(stderr);
  return 2;
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  return locsched::Main(argc, argv);
}
