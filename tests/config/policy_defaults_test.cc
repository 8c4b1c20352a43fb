// The scheduling core's PolicyParams defaults (algorithms/core/policy.h) and the
// config table's [scheduler] defaults (config/config.cc) say the same thing: a
// daemon started without a config file and the simulator run with default
// parameters schedule alike.
#include <catch2/catch.hpp>
#include <string>

#include "algorithms/core/policy.h"
#include "config/config.h"

namespace locsched {
namespace {

// A Config with every [scheduler] key set from its row's default text.
SchedulerConfig TableDefaults() {
  Config c;
  for (const ConfigKey& k : ConfigTable()) {
    if (ConfigSection(k) != "scheduler") continue;
    INFO(k.key << " = " << k.default_text);
    REQUIRE(SetConfigText(k, k.default_text, &c).ok());
  }
  return c.scheduler;
}

TEST_CASE("the config table's scheduler defaults are the SchedulerConfig defaults") {
  CHECK(TableDefaults() == SchedulerConfig{});
}

TEST_CASE("PolicyParams defaults are the config table's scheduler defaults") {
  const SchedulerConfig s = TableDefaults();
  const PolicyParams p;
  CHECK(s.policy == p.kind);
  CHECK(s.intra_queue == p.intra);
  CHECK(s.alpha == p.alpha);
  CHECK(s.gamma == p.gamma);
  CHECK(s.delay_wait == p.delay_wait);
  CHECK(s.node_locality_delay == p.node_locality_delay);
  CHECK(s.rack_locality_delay == p.rack_locality_delay);
  CHECK(s.locality_threshold_node == p.locality_threshold_node);
  CHECK(s.locality_threshold_rack == p.locality_threshold_rack);
  CHECK(s.remote_bias == p.remote_bias);
  CHECK(s.priority_slack == p.priority_slack);
  CHECK(s.seed == p.seed);
}

}  // namespace
}  // namespace locsched
