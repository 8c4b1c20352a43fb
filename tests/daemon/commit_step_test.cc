// The loop's per-burst commit step on its own io_context: the burst shares one
// clock reading, parked replies wait for the one journal sync, a journal past
// journal.snapshot_mb is snapshotted, and the clock runs again after the step.
// A failed write (a full disk) holds the burst's replies and refuses new events
// until a retry succeeds; a failed snapshot backs off exponentially.
#include <utility>  // before Asio: Boost 1.74 coroutines on GCC 12 need it

#include "daemon/commit_step.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

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

TEST_CASE("a full journal holds the burst's replies and refuses events until space returns") {
  asio::io_context io;
  DaemonClock clock;
  JournalConfig cfg;
  EventLog log(clock, cfg);
  std::string disk;
  MemJournal journal(&disk, 10);  // too small for one record
  log.Attach(&journal);
  CommitStep step(io, clock, log, nullptr);

  step.Enter();
  log.Append(R"({"op":"machine_up","machine":"a"})", {});
  asio::steady_timer wake(io);
  bool released = false;
  step.Park(wake);
  wake.async_wait([&](boost::system::error_code) { released = true; });
  io.run_for(std::chrono::milliseconds(120));  // the step and a retry or two fail
  CHECK_FALSE(released);
  CHECK(log.held());
  CHECK(log.held_events() == 1);
  const Status refused = log.Admit();
  CHECK(refused.code() == Status::Code::kIoError);
  CHECK(refused.message().find("journal_unavailable: journal: write: No space left on device") !=
        std::string::npos);
  CHECK(disk.empty());
  CHECK_FALSE(step.MustWait());  // replies that acknowledge nothing are not held back

  journal.set_capacity(1 << 20);
  io.restart();
  io.run_for(std::chrono::seconds(2));
  CHECK(released);
  CHECK_FALSE(log.held());
  CHECK(log.Admit().ok());
  CHECK(ScanJournal(disk).records.size() == 1);
}

TEST_CASE("failed snapshots back off exponentially up to five minutes, and a success resets it") {
  DaemonClock clock;
  JournalConfig cfg;
  cfg.snapshot_mb = 1;
  EventLog log(clock, cfg);
  const Status bad = Status::IoError("journal.log.snap.tmp", "create: Is a directory");
  std::vector<double> waits;
  for (int i = 0; i < 12; ++i) {
    log.SnapshotResult(bad, 1000);
    waits.push_back(log.SnapshotBackoff(1000));
  }
  CHECK(waits[0] == 1);
  CHECK(waits[1] == 2);
  CHECK(waits[5] == 32);
  CHECK(waits[11] == 300);
  CHECK(log.snapshot_failures() == 12);
  std::string text;
  log.AppendMetrics(&text);
  CHECK(text.find("locsched_snapshot_failures 12") != std::string::npos);
  log.SnapshotResult(Status::Ok(), 1001);
  CHECK(log.snapshot_failures() == 0);
  CHECK(log.SnapshotBackoff(1001) == 0);
}

}  // namespace
}  // namespace locsched
