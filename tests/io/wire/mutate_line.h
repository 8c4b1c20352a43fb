// MutateLine: seeded byte edits of a protocol line, shared by the decoder
// tests (request_test, flat_request_test). Each edit replaces, inserts or
// deletes one byte; new bytes come from an alphabet. Test-only; one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/rng.h"

namespace locsched {

/// `line` after 1..max_edits random one-byte edits drawn from `rng`.
inline std::string MutateLine(std::string line, Rng& rng, std::string_view alphabet,
                              uint32_t max_edits) {
  for (uint32_t k = 1 + rng.Below(max_edits); k > 0 && !line.empty(); --k) {
    const size_t at = rng.Below(static_cast<uint32_t>(line.size()));
    const char c = alphabet[rng.Below(static_cast<uint32_t>(alphabet.size()))];
    switch (rng.Below(3)) {
      case 0:
        line[at] = c;
        break;
      case 1:
        line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        line.erase(at, 1);
    }
  }
  return line;
}

}  // namespace locsched
