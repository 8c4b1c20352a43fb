// Task-time tails: what a job loses when one more of its tasks may end last. A job ends
// with its last task, so whether a task should wait for a replica holder or run slowly
// elsewhere depends on the spread of task times as well as their means. Task times are
// modelled as gamma-distributed with a mean and a coefficient of variation (cv): 1 is
// exponential (the emulator's and the paper's model), 0 is fixed. Pure functions; late
// binding's off-holder rule (late_binding.cc) and tests call them.
#pragma once

#include <cstdint>

namespace locsched {

/// E[(X - y)^+] for a task time X of mean `mean` and coefficient of variation `cv`
/// (gamma-distributed; cv 0: fixed, cv 1: exponential): how far past y it is expected to end.
double ExpectedExcess(double mean, double cv, double y);

/// The expected largest of n such task times (0 for n = 0): mean * (1 + cv * (H(n) - 1)),
/// exact for fixed (cv 0) and exponential (cv 1) times, H(n) the n-th harmonic number.
double ExpectedLargest(uint32_t n, double mean, double cv);

/// The expected delay to a job's end from running one of its tasks on a slot where it
/// takes `off_mean` on average, instead of waiting `wait` for a replica holder and running
/// there in `local_mean`, when its other tasks are expected to end `others_end` from now:
/// the difference of ExpectedExcess past others_end (negative: running off pays).
double OffHolderCost(double off_mean, double wait, double local_mean, double cv, double others_end);

}  // namespace locsched
