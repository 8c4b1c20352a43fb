// PSRS, the preemptive baseline of the SynchPack paper's evaluation (Schwiegelshohn's
// Preemptive Smith Ratio Scheduling), simplified: each task is fixed to one machine,
// and every machine serves its tasks preemptively by modified Smith ratio.
// Called by tools/solve/lp_commands.cc and tests. Pure; no threads.
#pragma once

#include "algorithms/lp/lp_instance.h"
#include "algorithms/lp/offline_schedule.h"
#include "algorithms/lp/packing_baselines.h"
#include "base/status.h"

namespace locsched {

/// Tasks in order of modified Smith ratio w_j / (demand x duration), highest first; a
/// task with one usable machine takes it, else the usable machine with the least work
/// per capacity assigned so far. Each machine then runs the preemptive list schedule
/// (at every release or completion, the highest-ratio tasks that fit run). The
/// schedule has pieces on one machine per task (Preemption::kSameMachine); the bound is
/// the preemptive LP's (LP1). Schwiegelshohn's special rule for tasks wider than half
/// a machine is not applied (every task may be preempted).
Status SolvePsrs(const LpInstance& instance, const BaselineOptions& options, SolverResult* result);

}  // namespace locsched
