// Rng: the seeded pseudo-random generator used by every randomized decision in
// the core (JSQ tie-breaks, the simulator's arrivals and service times).
// Pure and header-only; one instance per owner, never shared across threads.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

namespace locsched {

/// xoshiro256** seeded through splitmix64: fast, small and reproducible everywhere.
class Rng {
 public:
  using result_type = uint64_t;

  /// Seeds the four state words from one 64-bit seed.
  explicit Rng(uint64_t seed = 1) {
    for (auto& word : s_) word = SplitMix(seed);
  }

  /// Next 64 random bits.
  uint64_t operator()() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  /// Uniform integer in [0, n) for n >= 1 (Lemire's multiply-shift, bias < 2^-32 for n < 2^32).
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>(((*this)() >> 32) * static_cast<uint64_t>(n) >> 32);
  }

  /// Uniform double in (0, 1]; never 0, so log() of it is finite.
  double Unit() { return (static_cast<double>((*this)() >> 11) + 1.0) * 0x1.0p-53; }

  /// The four state words (a snapshot saves them).
  std::array<uint64_t, 4> state() const { return {s_[0], s_[1], s_[2], s_[3]}; }
  /// Continues from saved state words.
  void set_state(const std::array<uint64_t, 4>& s) {
    for (size_t i = 0; i < 4; ++i) s_[i] = s[i];
  }

  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace locsched
