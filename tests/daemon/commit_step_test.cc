// The loop's per-burst commit step on its own io_context: the burst shares one
// clock reading, parked replies wait for the one journal sync, a journal past
// journal.snapshot_mb is snapshotted, and the clock runs again after the step.
#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/commit_step.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <string>

#include "io/store/journal.h"

namespace locsched {
namespace {

namespace asio = boost::asio;

TEST_CASE("a burst's replies wait for one sync, then the step releases the clock") {
  asio::io_context io;
  DaemonClock clock;
  JournalConfig cfg;
  EventLog log(clock, cfg);
  std::string disk;
  MemJournal journal(&disk);
  log.Attach(&journal);
  int snapshots = 0;
  CommitStep step(io, clock, log, [&] { ++snapshots; });

  step.Enter();
  const double held = clock.Now();
  CHECK(!step.MustWait());
  log.Append(R"({"op":"machine_up","machine":"a"})", {});
  log.Append(R"({"op":"machine_up","machine":"b"})", {});
  CHECK(step.MustWait());
  CHECK(disk.empty());

  asio::steady_timer wake(io);
  bool released = false;
  step.Park(wake);
  wake.async_wait([&](boost::system::error_code) {
    released = true;
    CHECK(ScanJournal(disk).records.size() == 2);  // synced before the reply goes out
  });
  CHECK(clock.Now() == held);
  io.run();
  CHECK(released);
  CHECK(!step.MustWait());
  CHECK(snapshots == 0);
}

TEST_CASE("the step snapshots once the journal passes journal.snapshot_mb") {
  asio::io_context io;
  DaemonClock clock;
  JournalConfig cfg;
  cfg.snapshot_mb = 1;
  EventLog log(clock, cfg);
  std::string disk;
  MemJournal journal(&disk);
  log.Attach(&journal);
  int snapshots = 0;
  CommitStep step(io, clock, log, [&] { ++snapshots; });
  step.Enter();
  log.Append(std::string(1 << 20, 'x'), {});
  io.run();
  CHECK(snapshots == 1);
  CHECK(log.unsynced() == 0);
}

}  // namespace
}  // namespace locsched
