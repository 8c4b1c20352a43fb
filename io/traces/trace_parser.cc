#include "io/traces/trace_parser.h"

#include <algorithm>
#include <cstdlib>

#include "base/rng.h"
#include "io/traces/google_job_events_parser.h"
#include "io/traces/jobhistory_parser.h"
#include "io/traces/jsonl_parser.h"
#include "io/traces/rumen_parser.h"
#include "io/traces/swim_parser.h"

namespace locsched {

std::unique_ptr<TraceParser> MakeTraceParser(TraceFormat format, const SynthesisOptions& options) {
  switch (format) {
    case TraceFormat::kLocsched:
      return std::make_unique<JsonlParser>();
    case TraceFormat::kJobHistory:
      return std::make_unique<JobHistoryParser>();
    case TraceFormat::kRumen:
      return std::make_unique<RumenParser>();
    case TraceFormat::kSwim:
      return std::make_unique<SwimParser>(options);
    case TraceFormat::kGoogleJobEvents:
      return std::make_unique<GoogleJobEventsParser>(options);
  }
  return nullptr;
}

namespace {

// The first machine of rack r when machine i is in rack i * racks / machines.
uint32_t RackStart(uint64_t r, uint64_t racks, uint64_t machines) {
  return static_cast<uint32_t>((r * machines + racks - 1) / racks);
}

// HDFS's default placement: the first replica on a random machine, the second on a machine
// of another rack, the third on another machine of that second rack; any further ones on
// random machines. A rack of one machine takes no third replica (a random machine does).
void PlaceByRack(const SynthesisOptions& o, uint32_t want, Rng& rng,
                 std::vector<uint32_t>* picked) {
  const uint32_t first = rng.Below(o.machines);
  picked->push_back(first);
  const auto rack = static_cast<uint32_t>(uint64_t{first} * o.racks / o.machines);
  uint32_t other = rng.Below(o.racks - 1);
  other += other >= rack;
  const uint32_t begin = RackStart(other, o.racks, o.machines);
  const uint32_t size = RackStart(other + 1, o.racks, o.machines) - begin;
  if (want >= 2) picked->push_back(begin + rng.Below(size));
  if (want >= 3 && size > 1) {
    uint32_t third = begin + rng.Below(size - 1);
    third += third >= picked->back();
    picked->push_back(third);
  }
}

}  // namespace

namespace {

// FNV-1a of `name`, from `basis`.
uint64_t Fnv(std::string_view name, uint64_t basis) {
  uint64_t h = basis;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// `replication` distinct machines drawn from `rng` by the configured policy, named.
std::vector<std::string> Place(const SynthesisOptions& o, Rng rng) {
  const uint32_t want = std::min(o.replication, o.machines);
  std::vector<uint32_t> picked;
  if (o.racks > 1 && o.racks <= o.machines && want > 0) PlaceByRack(o, want, rng, &picked);
  while (picked.size() < want) {
    const uint32_t m = rng.Below(o.machines);
    if (std::find(picked.begin(), picked.end(), m) == picked.end()) picked.push_back(m);
  }
  std::vector<std::string> out;
  for (const uint32_t m : picked) out.push_back(o.machine_prefix + std::to_string(m));
  return out;
}

constexpr uint64_t kFnvBasis = 1469598103934665603ull;
constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

}  // namespace

std::vector<std::string> PlaceReplicas(const SynthesisOptions& o, std::string_view job,
                                       uint64_t index) {
  // Seeded by the job's name, so its placement does not depend on where it sits in the log.
  return Place(o, Rng(o.seed ^ Fnv(job, kFnvBasis) ^ (index * kGolden)));
}

std::vector<std::string> PlaceInputBlock(const SynthesisOptions& o, std::string_view input,
                                         uint64_t block) {
  // A hash of its own ("input:" before the name), so an input never shares a job's draws.
  return Place(o, Rng(o.seed ^ Fnv(input, Fnv("input:", kFnvBasis)) ^ (block * kGolden)));
}

Status ParseTenants(std::string_view text, std::vector<TenantShare>* out) {
  std::vector<TenantShare> tenants;
  double total = 0;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    rest = comma == rest.npos ? std::string_view() : rest.substr(comma + 1);
    const size_t colon = part.rfind(':');
    TenantShare t;
    if (colon != part.npos) t.name = std::string(part.substr(0, colon));
    const std::string share(colon == part.npos ? "" : part.substr(colon + 1));
    char* end = nullptr;
    t.share = share.empty() ? 0 : std::strtod(share.c_str(), &end);
    if (t.name.empty() || share.empty() || end != share.c_str() + share.size() ||
        !(t.share > 0 && t.share <= 1))
      return Status::InvalidArgument(
          "--tenants", "'" + std::string(part) + "' is not NAME:SHARE with a share in (0, 1]");
    total += t.share;
    tenants.push_back(std::move(t));
  }
  if (tenants.empty()) return Status::InvalidArgument("--tenants", "names no tenant");
  if (total > 1 + 1e-9)
    return Status::InvalidArgument("--tenants",
                                   "shares add up to " + std::to_string(total) + ", over 1");
  *out = std::move(tenants);
  return Status::Ok();
}

std::string_view DrawTenant(const SynthesisOptions& o, std::string_view job) {
  if (o.tenants.empty()) return {};
  // A hash of its own ("tenant:" before the name): independent of the replica draws.
  double u = Rng(o.seed ^ Fnv(job, Fnv("tenant:", kFnvBasis))).Unit();
  for (const TenantShare& t : o.tenants) {
    if (u <= t.share) return t.name;
    u -= t.share;
  }
  return {};
}

}  // namespace locsched
