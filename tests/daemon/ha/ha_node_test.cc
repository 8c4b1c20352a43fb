// HaNode on the fake Coordinator: two instances, each its own engine, on one
// MemCoordService. The standby applies the active's log, refuses writes with
// not_active naming the active, takes over when the active's session ends and
// recognises the old active's ids; an instance the log was trimmed past stops
// instead of taking over with missing events.
#include "daemon/ha/ha_node.h"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>

#include "io/coord/mem_coordinator.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

// The DaemonControl a Dispatcher consults in high-availability mode.
struct HaControl final : DaemonControl {
  HaNode* node = nullptr;
  Status Reload(std::vector<std::string>*) override { return Status::Ok(); }
  Status Snapshot(JsonWriter& w) override { return node->Snapshot(&w); }
  Status Rebalance(JsonWriter&) override { return Status::Ok(); }
  uint64_t clients() const override { return 0; }
  Status AdmitMutation() const override { return node->Admit(); }
};

HarnessOptions Options(DaemonControl* control) {
  HarnessOptions o;
  o.control = control;
  return o;
}

// One instance: its engine and dispatcher, its session, its HaNode on its own loop.
struct Instance {
  Instance(std::shared_ptr<MemCoordService> zk, const std::string& address)
      : coord(std::move(zk)), h(Config{}, Options(&control)) {
    HaConfig cfg;
    cfg.zookeeper = "fake";
    cfg.instance = address;
    node = std::make_unique<HaNode>(io, coord, h.dispatcher, h.log, h.clock, cfg,
                                    [this](const Status& s) { deposed = s; });
    control.node = node.get();
  }
  // Runs the poll timer for `ms` milliseconds.
  void Run(int ms) {
    io.restart();
    io.run_for(std::chrono::milliseconds(ms));
  }
  // Handles one line and commits its batch, as the commit step would.
  nlohmann::json Send(const std::string& line) {
    nlohmann::json r = h.Send(line);
    REQUIRE(h.log.Sync().ok());
    return r;
  }

  boost::asio::io_context io;
  MemCoordinator coord;
  HaControl control;
  BasicHarness<DaemonClock> h;
  std::unique_ptr<HaNode> node;
  Status deposed;
};

const std::string kSubmit =
    R"({"op":"job_submit","id":"s1","job":"j1","tasks":[{"task":"t1","replicas":["m0"]}]})";

TEST_CASE("a standby follows the log, refuses writes, and takes over with the ids") {
  auto zk = std::make_shared<MemCoordService>();
  Instance a(zk, "10.0.0.1:7400"), b(zk, "10.0.0.2:7400");
  REQUIRE(a.node->Start().ok());
  REQUIRE(b.node->Start().ok());
  a.Run(30);
  REQUIRE(a.node->active());
  a.Send(R"({"op":"machine_up","machine":"m0","slots":2,"id":"u0"})");
  CHECK(a.Send(kSubmit)["ok"] == true);
  b.Run(150);
  CHECK_FALSE(b.node->active());
  CHECK(b.h.Ok(R"({"op":"jobs"})")["count"] == 1);
  const nlohmann::json refused = b.h.Send(kSubmit);
  CHECK(refused["error"]["code"] == "not_active");
  CHECK(refused["error"]["active"] == "10.0.0.1:7400");

  zk->Expire(a.coord.session_id());
  a.Run(30);
  CHECK(IsFenced(a.deposed));
  b.Run(150);
  REQUIRE(b.node->active());
  const nlohmann::json again = b.Send(kSubmit);
  CHECK(again["ok"] == true);
  CHECK(again["duplicate"] == true);
}

TEST_CASE("an instance the log was trimmed past stops instead of taking over") {
  auto zk = std::make_shared<MemCoordService>();
  Instance a(zk, "10.0.0.1:7400"), b(zk, "10.0.0.2:7400");
  REQUIRE(a.node->Start().ok());
  REQUIRE(b.node->Start().ok());  // and is never polled while the active works
  a.Run(30);
  REQUIRE(a.node->active());
  a.Send(R"({"op":"machine_up","machine":"m0","slots":2,"id":"u0"})");
  for (int i = 0; i < 3; ++i) {
    a.Send(R"({"op":"machine_up","machine":"x)" + std::to_string(i) + R"(","slots":1})");
    REQUIRE(a.node->Snapshot(nullptr).ok());  // the third trims the first entries
  }
  zk->Expire(a.coord.session_id());
  b.Run(150);
  CHECK_FALSE(b.node->active());
  CHECK(IsFenced(b.deposed));
  CHECK(b.deposed.message().find("fell behind the trimmed log") != std::string::npos);
}

}  // namespace
}  // namespace locsched
