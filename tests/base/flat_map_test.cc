// Tests FlatMap64 (base/flat_map.h) against std::unordered_map: random
// Put/Erase/Find sequences through growth, and backward-shift deletion in probe runs.

#include "base/flat_map.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace locsched {
namespace {

// Every key of `model` maps to its value in `map`, and the sizes agree.
void ExpectSame(const FlatMap64& map, const std::unordered_map<uint64_t, uint32_t>& model) {
  REQUIRE(map.size() == model.size());
  for (const auto& [key, value] : model) REQUIRE(map.Find(key) == value);
}

TEST_CASE("FlatMap64 basic put, overwrite, find and erase", "[flat_map]") {
  FlatMap64 map;
  CHECK(map.size() == 0);
  CHECK(map.Find(0) == FlatMap64::kMissing);
  CHECK(map.Find(42) == FlatMap64::kMissing);

  map.Put(0, 7);
  map.Put(42, 8);
  map.Put(FlatMap64::kEmpty - 1, 9);  // the largest usable key
  CHECK(map.size() == 3);
  CHECK(map.Find(0) == 7);
  CHECK(map.Find(42) == 8);
  CHECK(map.Find(FlatMap64::kEmpty - 1) == 9);

  map.Put(42, 80);  // overwrite keeps the size
  CHECK(map.size() == 3);
  CHECK(map.Find(42) == 80);

  map.Erase(1234);  // absent: no-op
  CHECK(map.size() == 3);
  map.Erase(42);
  CHECK(map.size() == 2);
  CHECK(map.Find(42) == FlatMap64::kMissing);
  map.Erase(42);  // twice: no-op
  CHECK(map.size() == 2);
  CHECK(map.Find(0) == 7);
  CHECK(map.Find(FlatMap64::kEmpty - 1) == 9);
}

TEST_CASE("FlatMap64 grows through many rehashes and empties again", "[flat_map]") {
  FlatMap64 map;
  std::unordered_map<uint64_t, uint32_t> model;
  for (uint32_t i = 0; i < 20000; ++i) {
    const uint64_t key = uint64_t{i} * 0x100000001ULL;  // spread over both halves of the word
    map.Put(key, i);
    model[key] = i;
  }
  ExpectSame(map, model);
  for (uint32_t i = 0; i < 20000; i += 2) {
    const uint64_t key = uint64_t{i} * 0x100000001ULL;
    map.Erase(key);
    model.erase(key);
  }
  ExpectSame(map, model);
  for (uint32_t i = 0; i < 20000; i += 2)
    REQUIRE(map.Find(uint64_t{i} * 0x100000001ULL) == FlatMap64::kMissing);
  for (const auto& entry : model) map.Erase(entry.first);
  CHECK(map.size() == 0);
  for (uint32_t i = 0; i < 20000; ++i)
    REQUIRE(map.Find(uint64_t{i} * 0x100000001ULL) == FlatMap64::kMissing);
}

TEST_CASE("FlatMap64 matches std::unordered_map on a long random sequence", "[flat_map]") {
  std::mt19937_64 rng(20240601);
  FlatMap64 map;
  std::unordered_map<uint64_t, uint32_t> model;
  // A small key space makes erases hit and probe runs long; a few wide keys
  // mix in high-bit patterns. The target size swings so the table grows and
  // then runs sparse with many deletions.
  auto draw_key = [&]() -> uint64_t {
    if (rng() % 8 == 0) {
      const uint64_t k = rng();
      return k == FlatMap64::kEmpty ? 0 : k;
    }
    return rng() % 3000;
  };
  size_t max_size = 0;
  for (int step = 0; step < 200000; ++step) {
    const bool growing = (step / 25000) % 2 == 0;
    const uint64_t roll = rng() % 100;
    const uint64_t key = draw_key();
    if (roll < (growing ? 60u : 25u)) {
      const uint32_t value = static_cast<uint32_t>(rng() % 1000000);
      map.Put(key, value);
      model[key] = value;
    } else if (roll < 90) {
      // Erase mostly keys that are present, to exercise the backward shift.
      uint64_t victim = key;
      if (!model.empty() && rng() % 4 != 0) {
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % std::min<size_t>(model.size(), 16)));
        victim = it->first;
      }
      map.Erase(victim);
      model.erase(victim);
      REQUIRE(map.Find(victim) == FlatMap64::kMissing);
    } else {
      const auto it = model.find(key);
      REQUIRE(map.Find(key) == (it == model.end() ? FlatMap64::kMissing : it->second));
    }
    REQUIRE(map.size() == model.size());
    max_size = std::max(max_size, model.size());
    if (step % 5000 == 0) ExpectSame(map, model);
  }
  ExpectSame(map, model);
  CHECK(max_size > 1000);  // the sequence really did grow the table many times
}

TEST_CASE("FlatMap64 backward-shift deletion keeps colliding probe runs findable", "[flat_map]") {
  // The map's home slot is the top bits of key * 0x9e3779b97f4a7c15. Keys are
  // picked by the top 6 bits of that product, so in a table of 16, 32 or 64
  // slots (whatever the growth policy leaves us with for 8 keys) four of them
  // share the last slot, their run wraps past the end into slots 0, 1, ...,
  // where three more keys live at home 0 and one further on.
  auto prefix = [](uint64_t key) { return (key * 0x9e3779b97f4a7c15ULL) >> 58; };
  const uint64_t wanted[] = {0b111111, 0b111111, 0b111111, 0b111110,
                             0b000000, 0b000000, 0b000001, 0b000100};
  std::vector<uint64_t> keys;
  for (uint64_t want : wanted) {
    for (uint64_t k = 1;; ++k) {
      if (prefix(k) == want && std::find(keys.begin(), keys.end(), k) == keys.end()) {
        keys.push_back(k);
        break;
      }
    }
  }
  REQUIRE(keys.size() == 8);

  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint64_t> order = keys;
    std::shuffle(order.begin(), order.end(), rng);
    FlatMap64 map;
    std::unordered_map<uint64_t, uint32_t> model;
    for (size_t i = 0; i < order.size(); ++i) {
      map.Put(order[i], static_cast<uint32_t>(i));
      model[order[i]] = static_cast<uint32_t>(i);
    }
    ExpectSame(map, model);
    std::shuffle(order.begin(), order.end(), rng);
    const size_t erase_count = 1 + rng() % order.size();
    for (size_t i = 0; i < erase_count; ++i) {
      map.Erase(order[i]);
      model.erase(order[i]);
      ExpectSame(map, model);
      for (size_t e = 0; e <= i; ++e) REQUIRE(map.Find(order[e]) == FlatMap64::kMissing);
    }
    // Re-inserting after deletions must not create duplicates.
    for (uint64_t k : keys) {
      map.Put(k, 99);
      model[k] = 99;
    }
    ExpectSame(map, model);
  }
}

}  // namespace
}  // namespace locsched
