// JobNames against std::unordered_map as the reference, through random adds,
// erases and finds, with the real hash and with poor ones that force every
// collision path: names sharing a hash, and the hash the flat map reserves.
#include "daemon/job_names.h"

#include <catch2/catch.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/rng.h"

namespace locsched {
namespace {

uint64_t LengthHash(std::string_view name) {
  return name.size();
}
uint64_t ReservedHash(std::string_view name) {
  return name.size() % 2 ? FlatMap64::kEmpty : 7;
}

std::string RandomName(Rng& rng) {
  std::string s;
  for (uint32_t n = 1 + rng.Below(6); n > 0; --n)
    s.push_back(static_cast<char>('a' + rng.Below(3)));
  return s;  // a small alphabet: names repeat, and many share a length
}

TEST_CASE("JobNames answers like an unordered_map, whatever the hash collides on") {
  for (const JobNames::HashFn hash : {JobNames::HashFn{nullptr}, &LengthHash, &ReservedHash}) {
    JobNames names = hash ? JobNames(hash) : JobNames();
    std::unordered_map<std::string, JobId> ref;
    std::vector<std::string> name_of(64);  // by job id, as the Engine's records
    std::vector<JobId> free_ids;
    for (JobId j = 0; j < name_of.size(); ++j) free_ids.push_back(j);
    const auto lookup = [&](JobId j) -> std::string_view { return name_of[j]; };
    Rng rng(11);
    for (int step = 0; step < 20000; ++step) {
      const std::string name = RandomName(rng);
      const auto it = ref.find(name);
      const std::optional<JobId> found = names.Find(name, lookup);
      REQUIRE(found.has_value() == (it != ref.end()));
      if (found) REQUIRE(*found == it->second);
      if (it != ref.end() && rng.Below(2) == 0) {  // the job ends
        names.Erase(name, it->second);
        free_ids.push_back(it->second);
        ref.erase(it);
      } else if (it == ref.end() && !free_ids.empty()) {  // a job with a new name arrives
        const JobId j = free_ids.back();
        free_ids.pop_back();
        name_of[j] = name;
        names.Add(name, j);
        ref.emplace(name, j);
      }
      REQUIRE(names.size() == ref.size());
    }
  }
}

}  // namespace
}  // namespace locsched
