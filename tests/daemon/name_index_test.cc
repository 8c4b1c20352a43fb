// NameIndex against std::unordered_map as the reference: same answers for
// present, absent and repeated names, through growth and reserve.
#include "daemon/name_index.h"

#include <catch2/catch.hpp>
#include <string>
#include <unordered_map>

#include "base/rng.h"

namespace locsched {
namespace {

std::string RandomName(Rng& rng) {
  std::string s;
  for (uint32_t n = rng.Below(12); n > 0; --n) s.push_back(static_cast<char>('a' + rng.Below(4)));
  return s;  // short names over a small alphabet: many repeats, and the empty name
}

TEST_CASE("NameIndex answers like an unordered_map, with and without Reserve") {
  for (const bool reserve : {false, true}) {
    Rng rng(reserve ? 3 : 4);
    NameIndex index;
    if (reserve) index.Reserve(5000);
    std::unordered_map<std::string, uint32_t> ref;
    for (int i = 0; i < 5000; ++i) {
      const std::string name = RandomName(rng);
      const bool fresh = !ref.count(name);
      CHECK(index.Add(name) == fresh);
      if (fresh) ref.emplace(name, static_cast<uint32_t>(ref.size()));
    }
    REQUIRE(index.size() == ref.size());
    for (const auto& [name, pos] : ref) {
      CHECK(index.Find(name) == pos);
      CHECK(index.Name(pos) == name);
    }
    CHECK_FALSE(index.Find("zzzz").has_value());
  }
}

TEST_CASE("NameIndex: names whose hashes share a first slot are told apart by tag or text") {
  // 4,000 names in a table of 8,192 slots (about half full): probes pass
  // other names, with equal or different tags; every answer must still match.
  NameIndex index;
  index.Reserve(4000);
  for (int i = 0; i < 4000; ++i) REQUIRE(index.Add("m" + std::to_string(i)));
  for (int i = 0; i < 4000; ++i) CHECK(index.Find("m" + std::to_string(i)) == uint32_t(i));
  for (int i = 4000; i < 8000; ++i) CHECK_FALSE(index.Find("m" + std::to_string(i)).has_value());
  CHECK_FALSE(index.Add("m17"));
}

TEST_CASE("an empty NameIndex finds nothing") {
  NameIndex index;
  CHECK_FALSE(index.Find("a").has_value());
  CHECK(index.size() == 0);
}

}  // namespace
}  // namespace locsched
