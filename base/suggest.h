// SuggestName and EditDistance: the one "did you mean" rule behind every
// suggestion for an unknown name (wire ops, config keys and sections,
// locsched-solve commands). Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace locsched {

/// Insertions, deletions, substitutions and swaps of two neighbours, each costing 1.
size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate closest to `name` by EditDistance, or "" when none is close:
/// a suggestion is at most max(2, n / 3) edits away, n being the length of
/// `name`'s last dot-separated part. For a dotted candidate, its last part
/// under any other prefix counts one edit more than that part alone, so a
/// known key in the wrong section is one edit away. Ties go to the earliest
/// candidate. The result views into `candidates`.
std::string_view SuggestName(std::string_view name, std::span<const std::string_view> candidates);

}  // namespace locsched
