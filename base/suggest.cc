#include "base/suggest.h"

#include <algorithm>
#include <vector>

namespace locsched {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

namespace {

// The part after the last dot ("alpha" of "scheduler.alpha"), or all of `name`.
std::string_view LastPart(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

}  // namespace

std::string_view SuggestName(std::string_view name, std::span<const std::string_view> candidates) {
  const std::string_view last = LastPart(name);
  size_t best_distance = std::max<size_t>(2, last.size() / 3) + 1;  // no farther than the rule
  std::string_view best;
  for (std::string_view cand : candidates) {
    size_t d = EditDistance(name, cand);
    if (cand.find('.') != std::string_view::npos)
      d = std::min(d, EditDistance(last, LastPart(cand)) + 1);
    if (d < best_distance) best_distance = d, best = cand;
  }
  return best;
}

}  // namespace locsched
