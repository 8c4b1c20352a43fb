// JournalReplay: re-applies the records EventLog wrote, pinning the clock to
// each record's time; a heartbeat's recorded assignments are imposed, every
// other event goes through Dispatcher::HandleLine as it did live. Durability
// calls it at start, before journaling resumes; event-loop thread only.
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
