// EditDistance: the optimal-string-alignment distance between two strings,
// behind every "did you mean" suggestion (unknown wire ops, unknown config
// keys). Pure function; safe from any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace locsched {

/// Insertions, deletions, substitutions and swaps of two neighbours, each costing 1.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace locsched
