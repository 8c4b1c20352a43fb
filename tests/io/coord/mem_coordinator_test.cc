// The Coordinator's contract, on the in-memory fake: election order, fencing by
// epoch, idempotent appends, snapshots and trimming. The ZooKeeper
// implementation is held to the same contract against a real server by
// tests/daemon/ha_test.py.
#include "io/coord/mem_coordinator.h"

#include <catch2/catch.hpp>

#include "io/coord/zk_coordinator.h"

namespace locsched {
namespace {

TEST_CASE("the first candidate leads; when its session ends the next one does") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator a(zk), b(zk);
  REQUIRE(a.Join("10.0.0.1:7400").ok());
  REQUIRE(b.Join("10.0.0.2:7400").ok());
  std::string leader;
  bool self = false;
  REQUIRE(b.Leader(&leader, &self).ok());
  CHECK(leader == "10.0.0.1:7400");
  CHECK_FALSE(self);
  zk->Expire(a.session_id());
  CHECK(a.session() == CoordSession::kExpired);
  REQUIRE(b.Leader(&leader, &self).ok());
  CHECK(leader == "10.0.0.2:7400");
  CHECK(self);
}

TEST_CASE("a write under a superseded epoch is refused as fenced") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator old_active(zk), new_active(zk);
  uint64_t e1 = 0, e2 = 0;
  REQUIRE(old_active.NewEpoch("a", &e1).ok());
  REQUIRE(old_active.Append(e1, 1, "first").ok());
  REQUIRE(new_active.NewEpoch("b", &e2).ok());
  CHECK(e2 > e1);
  const Status late = old_active.Append(e1, 2, "late");
  CHECK(IsFenced(late));
  REQUIRE(new_active.Append(e2, 2, "second").ok());
  std::string data;
  bool found = false;
  REQUIRE(new_active.Read(2, &data, &found).ok());
  CHECK(found);
  CHECK(data == "second");
}

TEST_CASE("an append retried after a lost answer is idempotent; another's entry is not") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator c(zk);
  uint64_t e = 0;
  REQUIRE(c.NewEpoch("a", &e).ok());
  REQUIRE(c.Append(e, 1, "batch").ok());
  CHECK(c.Append(e, 1, "batch").ok());
  CHECK(IsFenced(c.Append(e, 1, "other")));
}

TEST_CASE("an unreachable service is an outage, not a fence") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator c(zk);
  uint64_t e = 0;
  REQUIRE(c.NewEpoch("a", &e).ok());
  zk->up = false;
  const Status s = c.Append(e, 1, "batch");
  CHECK(s.code() == Status::Code::kIoError);
  CHECK_FALSE(IsFenced(s));
  CHECK(c.session() == CoordSession::kConnecting);
  zk->up = true;
  CHECK(c.Append(e, 1, "batch").ok());
}

TEST_CASE("trim keeps two snapshots and the log after the older one") {
  auto zk = std::make_shared<MemCoordService>();
  MemCoordinator c(zk);
  uint64_t e = 0;
  REQUIRE(c.NewEpoch("a", &e).ok());
  for (uint64_t i = 1; i <= 30; ++i) REQUIRE(c.Append(e, i, "x").ok());
  const std::vector<std::string> chunks{"c0", "c1"};
  for (uint64_t at : {10, 20, 30}) REQUIRE(c.WriteSnapshot(e, at, chunks).ok());
  REQUIRE(c.Trim(e).ok());
  uint64_t index = 0;
  std::vector<std::string> got;
  REQUIRE(c.ReadSnapshot(&index, &got).ok());
  CHECK(index == 30);
  CHECK(got == chunks);
  CHECK(zk->snapshots.size() == 2);
  bool found = true;
  std::string data;
  REQUIRE(c.Read(20, &data, &found).ok());
  CHECK_FALSE(found);
  REQUIRE(c.Read(21, &data, &found).ok());
  CHECK(found);
}

TEST_CASE("a log entry stores its epoch before the data") {
  uint64_t epoch = 0;
  std::string_view data;
  const std::string stored = EncodeEntry(0x0102030405060708, "records");
  REQUIRE(DecodeEntry(stored, &epoch, &data));
  CHECK(epoch == 0x0102030405060708);
  CHECK(data == "records");
  CHECK_FALSE(DecodeEntry("short", &epoch, &data));
}

}  // namespace
}  // namespace locsched
