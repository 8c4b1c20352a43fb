// alu_spin: a fixed amount of register-only arithmetic (no memory traffic), timed.
// bench/vm_noise.sh runs it between simulator runs: if its time holds while the
// simulator's moves, the machine's noise is in the memory system, not the core.
#include <chrono>
#include <cstdint>
#include <cstdio>

int main() {
  const auto start = std::chrono::steady_clock::now();
  uint64_t x = 1;
  // 1.5 billion rounds of a 64-bit LCG step and an xorshift: one dependent chain.
  for (uint64_t i = 0; i < 1'500'000'000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    x ^= x >> 29;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::printf("%.3f %d\n", took.count(), static_cast<int>(x & 1));  // x kept live
  return 0;
}
