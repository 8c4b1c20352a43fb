// Queue-tree fixtures shared by the tests of tenant queues (queue_sharing_test.cc,
// preemption_test.cc, yarn_policy_test.cc): a queue spec, a tree built from specs (a
// failed build fails the test with its message), and a core over a tree on identical
// machines. Header-only; test code only.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/core/queue_tree.h"
#include "algorithms/core/scheduler.h"

namespace locsched::test {

/// A queue under `parent` guaranteed `capacity` percent of it, at most `maximum` percent.
inline QueueSpec Q(std::string name, double capacity, double maximum = 100,
                   std::string parent = "root") {
  QueueSpec q;
  q.name = std::move(name);
  q.parent = std::move(parent);
  q.guarantee = capacity;
  q.maximum = maximum;
  return q;
}

/// A child of `parent` guaranteed `capacity` percent of it, at most all of it.
inline QueueSpec Q(std::string name, double capacity, std::string parent) {
  return Q(std::move(name), capacity, 100, std::move(parent));
}

/// The tree of `queues`; jobs without a queue go to default_queue (default: the last).
inline QueueTree Tree(std::vector<QueueSpec> queues, std::string default_queue = "") {
  QueueTreeSpec spec;
  spec.queues = std::move(queues);
  spec.default_queue = default_queue.empty() ? spec.queues.back().name : default_queue;
  QueueTree t;
  Status s = QueueTree::Build(spec, &t);
  INFO(s.message());
  REQUIRE(s.ok());
  return t;
}

/// A core running `kind` (its default job order, delay scheduling's wait 3) over `tree`
/// on `machines` machines of `slots` slots each. Held by pointer: its policy refers to its
/// cluster, so it must not move.
inline std::unique_ptr<Scheduler> Make(QueueTree tree, PolicyKind kind, uint32_t machines,
                                       uint32_t slots, uint64_t seed = 1) {
  PolicyParams p;
  p.kind = kind;
  p.job_order = DefaultJobOrder(kind);
  p.delay_wait = 3;
  p.seed = seed;
  auto s = std::make_unique<Scheduler>(p, std::move(tree));
  for (uint32_t m = 0; m < machines; ++m) {
    Machine machine;
    machine.slots = slots;
    s->AddMachine(machine);
  }
  return s;
}

}  // namespace locsched::test
