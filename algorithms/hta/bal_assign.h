// BalAssign: the bal-assign phase of Algorithm 2 (Fischer, Su, Yin). Extends a
// MaxCover's partial assignment to every live task by giving the next task to
// an up server of least virtual load. Called by hta_flow; pure, single-threaded.
#pragma once

#include <vector>

#include "algorithms/hta/hta_instance.h"
#include "algorithms/hta/max_cover.h"

namespace locsched {

/// A complete assignment of a MaxCover's live tasks and its real loads.
struct BalResult {
  std::vector<int> server;  ///< per task id (MaxCover ids): its server; kNone for free ids
  int remote_tasks = 0;     ///< r: tasks placed on a server without their data
  double max_load = 0;      ///< max over up servers of local·w_loc + remote·w_rem(r)
};

/// Bal-assign over `cover`'s current flow. Every task it places costs w_loc if
/// local to the chosen server, else w_rem(u) with u the tasks uncovered at the
/// start (the paper's pessimistic virtual cost, fixed for the phase). A server
/// takes one of its own uncovered tasks when it has one (lowest id first), else
/// the lowest-id uncovered task; ties in virtual load go to the lowest server id.
/// A server's base load (MaxCover::SetBase) counts as that many local tasks.
/// With no server up, uncovered tasks stay kNone.
BalResult BalAssign(const MaxCover& cover, const HtaCosts& costs);

}  // namespace locsched
