// Harness: the one test rig of the daemon tests. An Engine, its EventLog and a
// Dispatcher (with an LP planner whose solves run inline, if asked) over a
// clock the test controls, driven line by line without sockets; replies come
// back parsed. Test-only; single-threaded.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon/clock.h"
#include "daemon/daemon_control.h"
#include "daemon/dispatcher.h"
#include "daemon/event_log.h"
#include "daemon/lp_planner.h"
#include "daemon/workload_timers.h"
#include "tests/daemon/fake_clock.h"

namespace locsched {
namespace {  // the tests' own namespace: these shadow the CommandFlags of the same name

/// A control-socket peer allowed to run admin commands.
const Caller kAdmin{true, true, 0};
/// A control-socket peer that may not run them.
const Caller kStranger{true, false, 4242};
/// An event-socket peer running as the daemon's user (admin commands allowed): the default.
const Caller kLocal{false, true, 0};
/// An event-socket peer that may not run admin commands (an agent in event_group only).
const Caller kAgent{false, false, 1000};

}  // namespace

/// What to build besides the Engine and the Dispatcher.
struct HarnessOptions {
  bool planner = false;              ///< an LpPlanner (resolve_lp, lp status)
  DaemonControl* control = nullptr;  ///< reload, snapshot, worker rebalance
  EventLog::FreeBytes free_bytes;    ///< the journal disk's free bytes (none: unchecked)
  LpPlanner::Executor executor;      ///< where the planner's solves run (none: inline)
  Dispatcher::Audit audit;           ///< receives the audit lines (none: not audited)
};

/// The rig over clock type ClockT (FakeClock, or DaemonClock to pin times).
template <typename ClockT>
struct BasicHarness {
  explicit BasicHarness(Config c = Config{}, HarnessOptions o = {})
      : cfg(std::move(c)),
        arrivals(cfg.lp.headroom_window_s),
        engine(cfg, clock, nullptr, o.planner ? &arrivals : nullptr),
        log(clock, cfg.journal, std::move(o.free_bytes)),
        lp(o.planner ? std::make_unique<LpPlanner>(engine, arrivals,
                                                   WallTimed(cfg.lp, cfg.scheduler.workload_speed),
                                                   std::move(o.executor))
                     : nullptr),
        dispatcher(engine, cfg, &log, lp.get(), o.control, std::move(o.audit)) {}

  /// Sends one line; the reply must be exactly one line.
  nlohmann::json Send(const std::string& line, Caller caller = kLocal) {
    std::string out;
    dispatcher.HandleLine(line, caller, &out);
    REQUIRE(!out.empty());
    REQUIRE(out.back() == '\n');
    REQUIRE(out.find('\n') == out.size() - 1);
    return nlohmann::json::parse(out);
  }
  /// Sends one line that must succeed.
  nlohmann::json Ok(const std::string& line, Caller caller = kLocal) {
    nlohmann::json r = Send(line, caller);
    INFO(line << " -> " << r.dump());
    REQUIRE(r["ok"] == true);
    return r;
  }
  /// Registers machines m0..m(n-1) with `slots` slots each.
  void Machines(int n, int slots = 1) {
    for (int i = 0; i < n; ++i)
      Ok(R"({"op":"machine_up","machine":"m)" + std::to_string(i) + R"(","slots":)" +
         std::to_string(slots) + "}");
  }

  Config cfg;
  ClockT clock;
  ArrivalWindow arrivals;  // counted by the engine when there is a planner
  Engine engine;
  EventLog log;
  std::unique_ptr<LpPlanner> lp;  // null unless asked for
  Dispatcher dispatcher;
};

/// The rig on a FakeClock.
using Harness = BasicHarness<FakeClock>;

}  // namespace locsched
