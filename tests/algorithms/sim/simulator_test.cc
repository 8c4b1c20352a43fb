// Tests the simulator (algorithms/sim/simulator.h): determinism, parameter validation,
// exact mean job sizes, locality and a small stability comparison of JSQ+MaxWeight vs fair.
#include "algorithms/sim/simulator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace locsched {
namespace {

// 50 machines, data on the first 40, alpha 0.8, gamma 0.2: capacity 40*0.8 + 10*0.2 = 34
// tasks/slot. Jobs of 10 tasks on average keep runs short and the backlog smooth.
SimParams SmallCluster(double load, uint64_t slots, PolicyKind kind, uint64_t seed = 1) {
  SimParams p;
  p.machines = 50;
  p.data_machines = 40;
  p.replicas = 3;
  p.policy.kind = kind;
  p.policy.alpha = 0.8;
  p.policy.gamma = 0.2;
  p.load = load;
  p.slots = slots;
  p.seed = seed;
  p.job_size_mean = 10;
  return p;
}

void CheckSameResult(const SimResult& a, const SimResult& b) {
  CHECK(a.mean_tasks_in_system == b.mean_tasks_in_system);
  CHECK(a.mean_jobs_in_system == b.mean_jobs_in_system);
  CHECK(a.tasks_in_system_end == b.tasks_in_system_end);
  CHECK(a.measured == b.measured);
  CHECK(a.stable == b.stable);
  CHECK(a.stopped_early == b.stopped_early);
  CHECK(a.growth == b.growth);
  CHECK(a.mean_job_delay == b.mean_job_delay);
  CHECK(a.mean_task_delay == b.mean_task_delay);
  CHECK(a.locality == b.locality);
  CHECK(a.offered_load == b.offered_load);
  CHECK(a.mean_job_size == b.mean_job_size);
  CHECK(a.slots == b.slots);
  CHECK(a.capacity == b.capacity);
  CHECK(a.jobs_arrived == b.jobs_arrived);
  CHECK(a.jobs_done == b.jobs_done);
  CHECK(a.tasks_done == b.tasks_done);
  CHECK(a.trace == b.trace);
}

TEST_CASE("Simulate is deterministic per seed", "[simulator]") {
  const PolicyKind kind = GENERATE(PolicyKind::kJsqMaxWeight, PolicyKind::kDelay,
                                   PolicyKind::kLateBinding, PolicyKind::kBalancedPandas);
  CAPTURE(PolicyKindName(kind));
  const SimParams p = SmallCluster(20, 3000, kind, 7);
  const SimResult a = Simulate(p);
  const SimResult b = Simulate(p);
  CheckSameResult(a, b);
  CHECK(a.tasks_done > 10000);  // it really simulated something

  SimParams inline_arrivals = p;  // arrivals generated without the helper thread
  inline_arrivals.pipeline = !p.pipeline;
  CheckSameResult(a, Simulate(inline_arrivals));

  SimParams other = p;
  other.seed = 8;
  const SimResult c = Simulate(other);
  CHECK(c.trace != a.trace);
  CHECK(c.mean_tasks_in_system != a.mean_tasks_in_system);
  CHECK((c.jobs_arrived != a.jobs_arrived || c.tasks_done != a.tasks_done));
}

// The completion calendar spans 256 slots; a task due later waits in an overflow heap.
// With gamma 0.005 a remote run lasts 200 slots on average, so many go there. A lost
// completion would hold its slot for ever and the cluster would silt up.
TEST_CASE("Simulate finishes tasks that outlast the completion wheel", "[simulator]") {
  SimParams p = SmallCluster(5, 6000, PolicyKind::kJsqMaxWeight, 3);
  p.policy.gamma = 0.005;  // capacity 40 * 0.8 + 10 * 0.005 = 32.05 tasks/slot
  const SimResult r = Simulate(p);
  CHECK(r.stable);
  CHECK_FALSE(r.stopped_early);
  CHECK(r.locality < 0.99);  // some tasks did run remotely, most for over 100 slots
  CHECK(r.throughput == Approx(5).epsilon(0.1));
  SimParams inline_arrivals = p;
  inline_arrivals.pipeline = !p.pipeline;
  CheckSameResult(r, Simulate(inline_arrivals));
}

TEST_CASE("Simulate runs tasks whose run lengths do not fit the task's 16-bit tag", "[simulator]") {
  // At rate 1e-6 a run takes a million slots on average and nearly every one is above
  // 65,534, the most a task's tag holds: those wait in a side table. Read wrongly (cut to
  // 16 bits, or 0), runs would end within 65,536 slots and the mean delay would be far lower.
  SimParams p = SmallCluster(2.5e-5, 4000000, PolicyKind::kJsqMaxWeight, 5);
  p.policy.alpha = p.policy.gamma = 1e-6;  // capacity 1e-4 tasks/slot: 25% busy
  p.size_dist = JobSizeDist::kFixed;
  p.job_size_mean = 1;
  const SimResult r = Simulate(p);
  REQUIRE(r.jobs_done >= 20);
  CHECK(r.mean_task_delay > 200000);
  CHECK(r.mean_task_delay < 3200000);  // the window's length
}

TEST_CASE("Simulate reports progress about 200 times and once at the end", "[simulator]") {
  const SimParams p = SmallCluster(10, 2000, PolicyKind::kJsqMaxWeight);
  std::vector<SimSnapshot> seen;
  const SimResult r = Simulate(p, [&](const SimSnapshot& s) { seen.push_back(s); });
  REQUIRE(seen.size() >= 200);
  CHECK(seen.size() <= 202);
  for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].slot >= seen[i - 1].slot);
  CHECK(seen.back().slot == r.slots);
  CHECK(seen.back().total == p.slots);
}

TEST_CASE("ValidateSimParams names each bad field", "[simulator]") {
  const SimParams good = SmallCluster(20, 1000, PolicyKind::kJsqMaxWeight);
  REQUIRE(ValidateSimParams(good).empty());
  REQUIRE(ValidateSimParams(SimParams{}).empty());  // the defaults are valid

  struct Bad {
    const char* field;  // the name the message must start with
    void (*spoil)(SimParams&);
  };
  const Bad cases[] = {
      {"machines", [](SimParams& p) { p.machines = 0; }},
      {"data-machines", [](SimParams& p) { p.data_machines = 0; }},
      {"data-machines", [](SimParams& p) { p.data_machines = p.machines + 1; }},
      {"replicas", [](SimParams& p) { p.replicas = 0; }},
      {"replicas", [](SimParams& p) { p.replicas = p.data_machines + 1; }},
      {"alpha", [](SimParams& p) { p.policy.alpha = 0; }},
      {"alpha", [](SimParams& p) { p.policy.alpha = 1.5; }},
      {"alpha", [](SimParams& p) { p.policy.alpha = std::numeric_limits<double>::quiet_NaN(); }},
      {"gamma", [](SimParams& p) { p.policy.gamma = 0; }},
      {"gamma", [](SimParams& p) { p.policy.gamma = p.policy.alpha + 0.1; }},
      {"gamma", [](SimParams& p) { p.policy.gamma = std::numeric_limits<double>::quiet_NaN(); }},
      {"load", [](SimParams& p) { p.load = 0; }},
      {"load", [](SimParams& p) { p.load = -3; }},
      {"load", [](SimParams& p) { p.load = std::numeric_limits<double>::infinity(); }},
      {"load", [](SimParams& p) { p.load = std::numeric_limits<double>::quiet_NaN(); }},
      {"slots", [](SimParams& p) { p.slots = 0; }},
      {"slots-per-machine", [](SimParams& p) { p.slots_per_machine = 0; }},
      {"job-size-mean", [](SimParams& p) { p.job_size_mean = 0.5; }},
      {"job-size-mean",
       [](SimParams& p) { p.job_size_mean = std::numeric_limits<double>::quiet_NaN(); }},
      {"job-size-mean",
       [](SimParams& p) { p.job_size_mean = std::numeric_limits<double>::infinity(); }},
      // Regression: a mean above 2^32 / 100 overflowed the uint32 size cap (UB).
      {"job-size-mean", [](SimParams& p) { p.job_size_mean = 5e7; }},
      {"job-size-max", [](SimParams& p) { p.job_size_max = 4000000000u; }},
      {"pareto-shape",
       [](SimParams& p) {
         p.size_dist = JobSizeDist::kPareto;
         p.pareto_shape = 1;
       }},
      {"warmup", [](SimParams& p) { p.warmup_fraction = -0.1; }},
      {"warmup", [](SimParams& p) { p.warmup_fraction = 1; }},
  };
  for (const Bad& bad : cases) {
    SimParams p = good;
    bad.spoil(p);
    const std::string msg = ValidateSimParams(p);
    CAPTURE(bad.field, msg);
    CHECK(msg.rfind(std::string(bad.field) + ":", 0) == 0);
  }
  // The shape only matters to the Pareto distribution.
  SimParams geometric = good;
  geometric.pareto_shape = 0.5;
  CHECK(ValidateSimParams(geometric).empty());
}

TEST_CASE("Capacity is K*alpha + (M-K)*gamma per slot of each machine", "[simulator]") {
  SimParams p = SmallCluster(20, 1000, PolicyKind::kJsqMaxWeight);
  CHECK(Capacity(p) == Approx(34));  // 40 * 0.8 + 10 * 0.2
  p.slots_per_machine = 3;
  CHECK(Capacity(p) == Approx(102));
  p.slots_per_machine = 1;
  p.data_machines = 50;
  CHECK(Capacity(p) == Approx(40));
}

TEST_CASE("MeanJobSize for fixed and geometric sizes", "[simulator]") {
  SimParams p;
  p.size_dist = JobSizeDist::kFixed;
  p.job_size_mean = 7.4;
  CHECK(MeanJobSize(p) == 7);
  p.job_size_mean = 7.6;
  CHECK(MeanJobSize(p) == 8);
  p.job_size_mean = 1;
  CHECK(MeanJobSize(p) == 1);
  p.size_dist = JobSizeDist::kGeometric;
  p.job_size_mean = 12.5;
  CHECK(MeanJobSize(p) == 12.5);
  p.job_size_mean = 1;
  CHECK(MeanJobSize(p) == 1);
}

TEST_CASE("MeanJobSize for Pareto sizes matches a Monte Carlo estimate", "[simulator]") {
  // The documented distribution: S = min(ceil(X), cap), X ~ Pareto(xm, shape),
  // xm = mean * (shape - 1) / shape, cap = job_size_max or 100 x mean.
  struct Case {
    double mean, shape;
    uint32_t max;
  };
  const Case cases[] = {{10, 1.5, 0}, {10, 2.5, 0}, {5, 1.2, 50}, {1, 1.5, 0}, {30, 3, 40}};
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const Case& c : cases) {
    CAPTURE(c.mean, c.shape, c.max);
    SimParams p;
    p.size_dist = JobSizeDist::kPareto;
    p.job_size_mean = c.mean;
    p.pareto_shape = c.shape;
    p.job_size_max = c.max;
    const double xm = c.mean * (c.shape - 1) / c.shape;
    const double cap = c.max ? c.max : std::ceil(100 * c.mean);
    constexpr int kSamples = 400000;
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < kSamples; ++i) {
      const double u = 1 - unit(rng);  // (0, 1]
      const double s = std::min(std::ceil(xm * std::pow(u, -1 / c.shape)), cap);
      sum += s;
      sum_sq += s * s;
    }
    const double mc = sum / kSamples;
    const double se = std::sqrt((sum_sq / kSamples - mc * mc) / kSamples);
    const double exact = MeanJobSize(p);
    CAPTURE(mc, se, exact);
    CHECK(std::abs(exact - mc) < 5 * se + 1e-9);
  }
}

TEST_CASE("The simulator's Pareto arrivals have the mean MeanJobSize reports", "[simulator]") {
  // Unit service times and half the capacity: a stable run with ~50k jobs.
  SimParams p;
  p.machines = 200;
  p.data_machines = 200;
  p.policy.alpha = 1;
  p.policy.gamma = 1;
  p.load = 100;
  p.slots = 2000;
  p.size_dist = JobSizeDist::kPareto;
  p.job_size_mean = 4;
  p.pareto_shape = 1.5;
  REQUIRE(ValidateSimParams(p).empty());
  const SimResult r = Simulate(p);
  REQUIRE_FALSE(r.stopped_early);
  const double tasks = std::round(r.offered_load * static_cast<double>(r.slots));
  const double empirical = tasks / static_cast<double>(r.jobs_arrived);
  CAPTURE(empirical, r.mean_job_size, r.jobs_arrived);
  CHECK(r.jobs_arrived > 30000);
  CHECK(r.mean_job_size == MeanJobSize(p));
  CHECK(std::abs(empirical - r.mean_job_size) < 0.06 * r.mean_job_size);
  CHECK(std::abs(r.offered_load - p.load) < 0.06 * p.load);
}

TEST_CASE("JSQ+MaxWeight keeps most tasks local at moderate load", "[simulator]") {
  // Load 17 = half the capacity.
  const SimResult jsq = Simulate(SmallCluster(17, 5000, PolicyKind::kJsqMaxWeight));
  const SimResult fair = Simulate(SmallCluster(17, 5000, PolicyKind::kFair));
  CAPTURE(jsq.locality, fair.locality);
  CHECK(jsq.stable);
  CHECK(jsq.locality > 0.85);
  CHECK(jsq.locality > fair.locality + 0.3);
}

TEST_CASE("At 85% of capacity JSQ+MaxWeight is stable and naive fair sharing is not",
          "[simulator]") {
  // Load 29 of a 34 tasks/slot capacity. Checked with tools/locsched-sim over
  // seeds 1..20 (30000 slots): JSQ+MaxWeight always stable with ~105-115 tasks
  // in system; fair always hits the backlog cap within ~700 slots.
  REQUIRE(Capacity(SmallCluster(29, 1, PolicyKind::kFair)) == Approx(34));
  const SimResult jsq = Simulate(SmallCluster(29, 30000, PolicyKind::kJsqMaxWeight));
  CAPTURE(jsq.growth, jsq.mean_tasks_in_system, jsq.locality);
  CHECK(jsq.measured);
  CHECK(jsq.stable);
  CHECK_FALSE(jsq.stopped_early);
  CHECK(jsq.mean_tasks_in_system < 300);
  CHECK(std::abs(jsq.offered_load - 29) < 0.03 * 29);

  const SimResult fair = Simulate(SmallCluster(29, 30000, PolicyKind::kFair));
  CAPTURE(fair.growth, fair.mean_tasks_in_system, fair.slots);
  CHECK_FALSE(fair.stable);
}

TEST_CASE("weights: unit weights give the plain mean, others change only the weighting",
          "[simulator]") {
  SimParams p = SmallCluster(27, 3000, PolicyKind::kJsqMaxWeight, 4);
  const SimResult unit = Simulate(p);
  CHECK(unit.weighted_mean_job_delay == Approx(unit.mean_job_delay).epsilon(1e-12));
  p.weight_max = 10;
  const SimResult weighted = Simulate(p);
  CHECK(weighted.jobs_arrived == unit.jobs_arrived);  // weights take no draw from the workload
  CHECK(weighted.tasks_done == unit.tasks_done);      // nor change fair's decisions
  CHECK(weighted.mean_job_delay == unit.mean_job_delay);
  CHECK(weighted.weighted_mean_job_delay != unit.weighted_mean_job_delay);
  // Throughput counts every task finished in the window: the offered load when stable.
  CHECK(unit.throughput == Approx(unit.offered_load).epsilon(0.05));
}

TEST_CASE("No policy's slotted run goes below its job delay bound", "[simulator]") {
  // Each policy at half and at 82% of capacity (where fair's backlog grows, and jobs are
  // left unfinished), weighted, over seeds; the window counts only the jobs that arrived
  // in it and finished, and so does the bound.
  struct Case {
    PolicyKind kind;
    JobOrder order;
  };
  const Case cases[] = {
      {PolicyKind::kFifo, JobOrder::kFair},           {PolicyKind::kFair, JobOrder::kFair},
      {PolicyKind::kDelay, JobOrder::kFair},          {PolicyKind::kJsqMaxWeight, JobOrder::kFair},
      {PolicyKind::kBalancedPandas, JobOrder::kFair}, {PolicyKind::kLateBinding, JobOrder::kFair},
      {PolicyKind::kLateBinding, JobOrder::kSrpt},    {PolicyKind::kLateBinding, JobOrder::kSmith}};
  for (const Case& c : cases) {
    for (const double load : {17.0, 28.0}) {
      for (uint64_t seed = 1; seed <= 2; ++seed) {
        SimParams p = SmallCluster(load, 1500, c.kind, seed);
        p.policy.job_order = c.order;
        p.policy.delay_wait = 3;
        p.weight_max = 5;
        p.pipeline = false;
        const SimResult r = Simulate(p);
        INFO(PolicyKindName(c.kind)
             << " " << JobOrderName(c.order) << " load " << load << " seed " << seed);
        REQUIRE(r.measured);
        REQUIRE(r.jobs_done > 0);
        CHECK(r.lower_bound_critical_path >= 1);  // a job takes a slot at least
        CHECK(r.lower_bound_mean_job_delay ==
              std::max(r.lower_bound_critical_path, r.lower_bound_srpt));
        CHECK(r.mean_job_delay >= r.lower_bound_mean_job_delay * (1 - 1e-9));
        CHECK(r.weighted_mean_job_delay >= r.lower_bound_weighted_mean_job_delay * (1 - 1e-9));
      }
    }
  }
}

TEST_CASE("The slotted bound counts each job's waves over every slot", "[simulator]") {
  // Fixed jobs of 120 tasks on 50 machines: at least three waves of each job's local runs
  // (one slot each at alpha 1), and one slot per task on one machine each beyond that.
  SimParams p = SmallCluster(3, 2000, PolicyKind::kJsqMaxWeight);
  p.size_dist = JobSizeDist::kFixed;
  p.job_size_mean = 120;
  p.policy.alpha = 1;
  p.policy.gamma = 0.5;
  p.pipeline = false;
  const SimResult r = Simulate(p);
  REQUIRE(r.jobs_done > 0);
  CHECK(r.lower_bound_critical_path == 3);
  CHECK(r.mean_job_delay >= 3);
  p.slots_per_machine = 3;  // 150 slots: one wave
  CHECK(Simulate(p).lower_bound_critical_path == 1);
}

}  // namespace
}  // namespace locsched
