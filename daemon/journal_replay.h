// JournalReplay: re-applies the journal records EventLog wrote, at start and
// after the snapshot they follow. Each record's time pins the clock; a
// heartbeat's recorded assignments are imposed (the policy is not asked again);
// every other event goes through Dispatcher::HandleLine as it did live.
// Durability calls it before journaling resumes; event-loop thread only.
#pragma once

#include <string_view>

#include "base/status.h"
#include "daemon/clock.h"
#include "daemon/dispatcher.h"

namespace locsched {

/// Re-applies one journal record to `dispatcher` (its engine), pinning `clock` to the
/// record's time; release the clock after the last record.
Status ReplayRecord(std::string_view record, Dispatcher& dispatcher, DaemonClock& clock);

}  // namespace locsched
