// AddEmptyMachines: a cluster grown by machines that hold no replica keeps every old
// machine in its rack; the shares round to whole racks; bad shapes are refused. Burst: the
// flooding queue's jobs move to the start, the others keep their spacing later, each job
// with its tasks, replicas, weight and queue.
#include "algorithms/sim/trace_shape.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

namespace locsched {
namespace {

// Rack of machine m in the cluster model (trace_sim.h).
uint32_t RackOf(uint32_t m, const ClusterShape& c) {
  return static_cast<uint32_t>(uint64_t{m} * c.racks / c.machines);
}

TEST_CASE("AddEmptyMachines: new racks the size of the others, old machines in their racks") {
  ClusterShape grown;
  REQUIRE(AddEmptyMachines({600, 20}, 0.05, &grown).empty());  // one rack of 30
  CHECK(grown.machines == 630);
  CHECK(grown.racks == 21);
  const ClusterShape data{600, 20};
  for (uint32_t m = 0; m < 600; ++m) CHECK(RackOf(m, grown) == RackOf(m, data));
  for (uint32_t m = 600; m < 630; ++m) CHECK(RackOf(m, grown) == 20);  // the new rack
  REQUIRE(AddEmptyMachines({600, 20}, 0.1, &grown).empty());           // 0.1 x 20: exactly 2 racks
  CHECK(grown.machines == 660);
  CHECK(grown.racks == 22);
  REQUIRE(AddEmptyMachines({600, 20}, 0.001, &grown).empty());  // at least one rack
  CHECK(grown.machines == 630);
}

TEST_CASE("AddEmptyMachines: without racks, ceil(share x machines) machines") {
  ClusterShape grown;
  REQUIRE(AddEmptyMachines({3000, 0}, 0.1, &grown).empty());
  CHECK(grown.machines == 3300);
  CHECK(grown.racks == 0);
  REQUIRE(AddEmptyMachines({7, 1}, 0.5, &grown).empty());
  CHECK(grown.machines == 11);
  CHECK(grown.racks == 1);
}

TEST_CASE("AddEmptyMachines: refuses a share out of range and racks of unequal size") {
  ClusterShape grown;
  CHECK_THAT(AddEmptyMachines({600, 0}, 0, &grown), Catch::Contains("(0, 10]"));
  CHECK_THAT(AddEmptyMachines({600, 0}, 11, &grown), Catch::Contains("(0, 10]"));
  CHECK_THAT(AddEmptyMachines({600, 7}, 0.1, &grown), Catch::Contains("multiple of the racks"));
  CHECK_THAT(AddEmptyMachines({1u << 23, 0}, 2, &grown), Catch::Contains("2^24"));
}

// Jobs at 10, 20, 30, 40 s in queues 1, 2, 1, 2; job j has j + 1 tasks, task k of job j
// on machine 10 j + k; weights 1..4.
TraceWorkload FourJobs(std::vector<uint32_t>* leaves) {
  TraceWorkload w;
  for (uint32_t j = 0; j < 4; ++j) {
    w.AddJob(10.0 * (j + 1));
    for (uint32_t k = 0; k <= j; ++k) w.AddTask(TaskKind::kMap, {10 * j + k});
    w.weights.push_back(j + 1);
  }
  *leaves = {1, 2, 1, 2};
  return w;
}

TEST_CASE("Burst: the flooding queue's jobs come first at the start, the others later") {
  std::vector<uint32_t> leaves;
  TraceWorkload w = FourJobs(&leaves);
  REQUIRE(Burst(w, &leaves, 1, 300).empty());
  // Queue 1's jobs 0 and 2 at 10 s; queue 2's jobs 1 and 3 from 310 s, 20 s apart as before.
  REQUIRE(w.jobs.size() == 4);
  const std::vector<double> at = {w.jobs[0].submit_s, w.jobs[1].submit_s, w.jobs[2].submit_s,
                                  w.jobs[3].submit_s};
  CHECK(at == std::vector<double>{10, 10, 310, 330});
  CHECK(leaves == std::vector<uint32_t>{1, 1, 2, 2});
  CHECK(w.weights == std::vector<double>{1, 3, 2, 4});
  // Each job kept its tasks and their replicas: old job j is the one of j + 1 tasks.
  const std::vector<uint32_t> old = {0, 2, 1, 3};
  for (uint32_t i = 0; i < 4; ++i) {
    const TraceJob& job = w.jobs[i];
    REQUIRE(job.tasks == old[i] + 1);
    for (uint32_t k = 0; k < job.tasks; ++k) {
      const uint32_t t = job.first_task + k;
      REQUIRE(w.replica_begin[t + 1] - w.replica_begin[t] == 1);
      CHECK(w.replicas[w.replica_begin[t]] == 10 * old[i] + k);
    }
  }
  CHECK(w.num_tasks() == 10);
}

TEST_CASE("Burst: refuses a queue without jobs and a bad delay") {
  std::vector<uint32_t> leaves;
  TraceWorkload w = FourJobs(&leaves);
  CHECK(Burst(w, &leaves, 3, 60) == "the flooding queue has no job");
  CHECK(Burst(w, &leaves, 1, -1) == "the delay must be in [0, 1e6] seconds");
  CHECK(Burst(w, &leaves, 1, std::nan("")) == "the delay must be in [0, 1e6] seconds");
  CHECK(w.jobs[1].submit_s == 20);  // unchanged
}

}  // namespace
}  // namespace locsched
