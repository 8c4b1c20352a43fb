// The LP rows of locsched-solve: synchpack, mrs, jsq-mw and tetris read
// an instance file, solve it and print the schedule next to the LP lower bound.
// Registered in tools/solve/main.cc's kCommands; single-threaded CLI code.
#pragma once

namespace locsched {

/// `locsched-solve synchpack ...`
int RunSynchPackCommand(int argc, char** argv);
/// `locsched-solve mrs ...`
int RunMrsCommand(int argc, char** argv);
/// `locsched-solve jsq-mw ...`
int RunJsqMwCommand(int argc, char** argv);
/// `locsched-solve lp-bound ...`: the LP alone (no schedule)
int RunLpBoundCommand(int argc, char** argv);
/// `locsched-solve tetris ...`
int RunTetrisCommand(int argc, char** argv);

}  // namespace locsched
