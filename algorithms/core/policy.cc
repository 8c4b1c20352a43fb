#include "algorithms/core/policy.h"

#include <array>
#include <utility>

#include "algorithms/core/baseline_policy.h"
#include "algorithms/core/jsq_maxweight.h"

namespace locsched {
namespace {

constexpr std::array<std::pair<PolicyKind, std::string_view>, 4> kPolicyNames{{
    {PolicyKind::kJsqMaxWeight, "jsq-maxweight"},
    {PolicyKind::kFair, "fair"},
    {PolicyKind::kFifo, "fifo"},
    {PolicyKind::kDelay, "delay"},
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

std::vector<std::string_view> PolicyKindNames() {
  std::vector<std::string_view> names;
  for (const auto& [kind, text] : kPolicyNames) names.push_back(text);
  return names;
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

}  // namespace locsched
