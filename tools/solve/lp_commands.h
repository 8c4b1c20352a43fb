// The LP rows of locsched-solve: synchpack, synchpack1(-single), psrs, mrs, jsq-mw and tetris read
// an instance file, solve it and print the schedule next to the LP lower bound.
// Registered in tools/solve/main.cc's kCommands; single-threaded CLI code.
#pragma once

namespace locsched {

/// `locsched-solve synchpack ...`
int RunSynchPackCommand(int argc, char** argv);
/// `locsched-solve synchpack1 ...`: preemptive, with migration
int RunSynchPack1Command(int argc, char** argv);
/// `locsched-solve synchpack1-single ...`: preemptive, one machine per task
int RunSynchPack1SingleCommand(int argc, char** argv);
/// `locsched-solve psrs ...`: the preemptive Smith-ratio baseline
int RunPsrsCommand(int argc, char** argv);
/// `locsched-solve mrs ...`
int RunMrsCommand(int argc, char** argv);
/// `locsched-solve jsq-mw ...`
int RunJsqMwCommand(int argc, char** argv);
/// `locsched-solve lp-bound ...`: the LP alone (no schedule)
int RunLpBoundCommand(int argc, char** argv);
/// `locsched-solve tetris ...`
int RunTetrisCommand(int argc, char** argv);

}  // namespace locsched
