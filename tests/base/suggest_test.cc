// Tests algorithms/edit_distance: the optimal-string-alignment distance.
#include "base/suggest.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("EditDistance counts insertions, deletions, substitutions and swaps", "[edit]") {
  CHECK(EditDistance("", "") == 0);
  CHECK(EditDistance("abc", "abc") == 0);
  CHECK(EditDistance("", "abc") == 3);
  CHECK(EditDistance("abc", "") == 3);
  CHECK(EditDistance("hearbeat", "heartbeat") == 1);  // one insertion
  CHECK(EditDistance("status", "statsu") == 1);       // one swap of neighbours
  CHECK(EditDistance("alpha", "alpah") == 1);
  CHECK(EditDistance("kitten", "sitting") == 3);
  CHECK(EditDistance("ca", "abc") == 3);  // OSA: no edit of a swapped pair
}

TEST_CASE("EditDistance is symmetric", "[edit]") {
  const char* words[] = {"queues", "queue", "jobs", "job", "machine_up", "machines", "metrics"};
  for (const char* a : words)
    for (const char* b : words) CHECK(EditDistance(a, b) == EditDistance(b, a));
}

}  // namespace
}  // namespace locsched
