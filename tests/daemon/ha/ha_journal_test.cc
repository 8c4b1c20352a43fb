// HaJournal and EntryReader on the fake Coordinator: batches become fenced log
// entries, big batches are split and reassembled, a deposed active's half batch
// is dropped by readers, a fenced write reports deposition, an outage holds the
// batch and the retry lands it exactly once.
#include "daemon/ha/ha_journal.h"

#include <catch2/catch.hpp>

#include "io/coord/mem_coordinator.h"

namespace locsched {
namespace {

// Reads every entry from `first` on into records.
std::vector<std::string> ReadAll(Coordinator& c, uint64_t first = 1) {
  EntryReader reader;
  std::vector<std::string> records;
  for (uint64_t i = first;; ++i) {
    std::string entry;
    bool found = false;
    REQUIRE(c.Read(i, &entry, &found).ok());
    if (!found) break;
    reader.Add(entry, &records);
  }
  return records;
}

TEST_CASE("each sync is one entry, read back record by record") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator c(zk);
  uint64_t epoch = 0;
  REQUIRE(c.NewEpoch("a", &epoch).ok());
  HaJournal j(c, nullptr);
  j.Begin(epoch, 1);
  j.Append("one");
  j.Append("two");
  REQUIRE(j.Sync().ok());
  j.Append("three");
  REQUIRE(j.Sync().ok());
  CHECK(j.last_index() == 2);
  CHECK(j.entries_since_snapshot() == 2);
  CHECK(ReadAll(c) == std::vector<std::string>{"one", "two", "three"});
}

TEST_CASE("a batch larger than an entry spans several and is reassembled") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator c(zk);
  uint64_t epoch = 0;
  REQUIRE(c.NewEpoch("a", &epoch).ok());
  HaJournal j(c, nullptr);
  j.Begin(epoch, 1);
  const std::string big(kMaxCoordEntryBytes + 1000, 'x');
  j.Append("small");
  j.Append(big);
  j.Append("after");
  REQUIRE(j.Sync().ok());
  CHECK(j.last_index() == 2);
  CHECK(ReadAll(c) == std::vector<std::string>{"small", big, "after"});
}

TEST_CASE("a new active's first entry drops the half batch a deposed one left") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator old_active(zk), new_active(zk);
  uint64_t e1 = 0, e2 = 0;
  REQUIRE(old_active.NewEpoch("a", &e1).ok());
  // The old active got the first entry of a two-entry batch out, then died.
  std::string half = "F";
  FrameRecord("whole", &half);
  std::string framed;
  FrameRecord(std::string(100, 'y'), &framed);
  half.append(framed.substr(0, 50));
  REQUIRE(old_active.Append(e1, 1, half).ok());
  REQUIRE(new_active.NewEpoch("b", &e2).ok());
  HaJournal j(new_active, nullptr);
  j.Begin(e2, 2);
  j.Append("fresh");
  REQUIRE(j.Sync().ok());
  EntryReader reader;
  std::vector<std::string> records;
  std::string entry;
  bool found = false;
  REQUIRE(new_active.Read(1, &entry, &found).ok());
  CHECK(reader.Add(entry, &records) == 0);
  CHECK_FALSE(reader.at_boundary());
  REQUIRE(new_active.Read(2, &entry, &found).ok());
  CHECK(reader.Add(entry, &records) == 50);
  CHECK(records == std::vector<std::string>{"whole", "fresh"});
}

TEST_CASE("a deposed active's sync fails and reports it; nothing lands") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator old_active(zk), new_active(zk);
  uint64_t e1 = 0, e2 = 0;
  REQUIRE(old_active.NewEpoch("a", &e1).ok());
  Status reported;
  HaJournal j(old_active, [&](const Status& s) { reported = s; });
  j.Begin(e1, 1);
  REQUIRE(new_active.NewEpoch("b", &e2).ok());
  j.Append("late");
  CHECK(IsFenced(j.Sync()));
  CHECK(IsFenced(reported));
  CHECK(ReadAll(new_active).empty());
}

TEST_CASE("an outage holds the batch; the retry writes it once") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator c(zk);
  uint64_t epoch = 0;
  REQUIRE(c.NewEpoch("a", &epoch).ok());
  HaJournal j(c, nullptr);
  j.Begin(epoch, 1);
  j.Append("held");
  zk->up = false;
  const Status s = j.Sync();
  CHECK(s.code() == Status::Code::kIoError);
  CHECK_FALSE(IsFenced(s));
  zk->up = true;
  REQUIRE(j.Sync().ok());
  REQUIRE(j.Sync().ok());
  CHECK(ReadAll(c) == std::vector<std::string>{"held"});
  CHECK(j.last_index() == 1);
}

}  // namespace
}  // namespace locsched
