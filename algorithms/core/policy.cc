#include "algorithms/core/policy.h"

#include <array>
#include <utility>

#include "algorithms/core/balanced_pandas.h"
#include "algorithms/core/baseline_policy.h"
#include "algorithms/core/jsq_maxweight.h"
#include "algorithms/core/late_binding.h"
#include "algorithms/core/quincy_policy.h"
#include "algorithms/core/yarn_policy.h"

namespace locsched {
namespace {

constexpr std::array<std::pair<PolicyKind, std::string_view>, 9> kPolicyNames{{
    {PolicyKind::kJsqMaxWeight, "jsq-maxweight"},
    {PolicyKind::kFair, "fair"},
    {PolicyKind::kFifo, "fifo"},
    {PolicyKind::kDelay, "delay"},
    {PolicyKind::kLateBinding, "late-binding"},
    {PolicyKind::kBalancedPandas, "balanced-pandas"},
    {PolicyKind::kQuincy, "quincy"},
    {PolicyKind::kCapacityScheduler, "capacity-scheduler"},
    {PolicyKind::kFairScheduler, "fair-scheduler"},
}};
constexpr std::array<std::string_view, kPolicyNames.size()> kNamesOnly = [] {
  std::array<std::string_view, kPolicyNames.size()> out{};
  for (size_t i = 0; i < kPolicyNames.size(); ++i) out[i] = kPolicyNames[i].second;
  return out;
}();
constexpr std::array<std::pair<JobOrder, std::string_view>, 5> kJobOrderNames{{
    {JobOrder::kFair, "fair"},
    {JobOrder::kSrpt, "srpt"},
    {JobOrder::kSmith, "smith"},
    {JobOrder::kLp, "lp"},
    {JobOrder::kFifo, "fifo"},
}};
constexpr std::array<std::pair<IntraQueue, std::string_view>, 3> kIntraNames{{
    {IntraQueue::kFair, "fair"},
    {IntraQueue::kFifo, "fifo"},
    {IntraQueue::kPriority, "priority"},
}};

}  // namespace

std::unique_ptr<Policy> MakePolicy(const PolicyParams& params, Cluster& cluster) {
  if (params.kind == PolicyKind::kJsqMaxWeight) {
    return std::make_unique<JsqMaxWeight>(params, cluster);
  }
  if (params.kind == PolicyKind::kLateBinding) {
    return std::make_unique<LateBinding>(params, cluster);
  }
  if (params.kind == PolicyKind::kBalancedPandas) {
    return std::make_unique<BalancedPandas>(params, cluster);
  }
  if (params.kind == PolicyKind::kQuincy) return std::make_unique<QuincyPolicy>(params, cluster);
  if (params.kind == PolicyKind::kCapacityScheduler || params.kind == PolicyKind::kFairScheduler)
    return std::make_unique<YarnPolicy>(params, cluster);
  return std::make_unique<BaselinePolicy>(params, cluster);
}

std::optional<PolicyKind> ParsePolicyKind(std::string_view name) {
  for (const auto& [kind, text] : kPolicyNames)
    if (text == name) return kind;
  return std::nullopt;
}

std::string_view PolicyKindName(PolicyKind kind) {
  for (const auto& [k, text] : kPolicyNames)
    if (k == kind) return text;
  return "?";
}

std::optional<IntraQueue> ParseIntraQueue(std::string_view name) {
  for (const auto& [intra, text] : kIntraNames)
    if (text == name) return intra;
  return std::nullopt;
}

std::string_view IntraQueueName(IntraQueue intra) {
  for (const auto& [i, text] : kIntraNames)
    if (i == intra) return text;
  return "?";
}

std::span<const std::string_view> PolicyNames() {
  return kNamesOnly;
}

std::optional<JobOrder> ParseJobOrder(std::string_view name) {
  for (const auto& [order, text] : kJobOrderNames)
    if (text == name) return order;
  return std::nullopt;
}

std::string_view JobOrderName(JobOrder order) {
  for (const auto& [o, text] : kJobOrderNames)
    if (o == order) return text;
  return "?";
}

JobOrder DefaultJobOrder(PolicyKind kind) {
  if (kind == PolicyKind::kCapacityScheduler) return JobOrder::kFifo;
  return kind == PolicyKind::kLateBinding ? JobOrder::kSrpt : JobOrder::kFair;
}

std::string CheckYarnLocality(const PolicyParams& params) {
  if (params.rack_locality_delay < -1)
    return "rack-locality-delay: must be -1 (derived per job, YARN's default) or at least 0";
  auto fraction = [](double v) { return v >= -1 && v <= 1; };  // false for NaN
  if (!fraction(params.locality_threshold_node))
    return "locality-threshold-node: must be a fraction of the machines in [-1, 1] (negative: "
           "off, YARN's default)";
  if (!fraction(params.locality_threshold_rack))
    return "locality-threshold-rack: must be a fraction of the machines in [-1, 1] (negative: "
           "off, YARN's default)";
  return "";
}

}  // namespace locsched
