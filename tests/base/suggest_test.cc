// Tests base/suggest: the optimal-string-alignment distance and the one
// "did you mean" rule built on it.
#include "base/suggest.h"

#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

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

TEST_CASE("SuggestName picks the closest candidate", "[suggest]") {
  const std::vector<std::string_view> ops = {"heartbeat", "job_submit", "status", "stats"};
  CHECK(SuggestName("hearbeat", ops) == "heartbeat");
  CHECK(SuggestName("job_sumbit", ops) == "job_submit");
  CHECK(SuggestName("sttaus", ops) == "status");  // one swap of neighbours
  CHECK(SuggestName("status", ops) == "status");
}

TEST_CASE("SuggestName allows max(2, n/3) edits, n the length of the last part", "[suggest]") {
  // 8 letters: 2 edits are close, 3 are not.
  const std::vector<std::string_view> eight = {"abcdefgh"};
  CHECK(SuggestName("abcdefXY", eight) == "abcdefgh");
  CHECK(SuggestName("abcdeXYZ", eight).empty());
  // 15 letters: 5 edits are close, 6 are not.
  const std::vector<std::string_view> longer = {"abcdefghijklmno"};
  CHECK(SuggestName("abcdefghijVWXYZ", longer) == "abcdefghijklmno");
  CHECK(SuggestName("abcdefghiUVWXYZ", longer).empty());
  // Short names still get 2 edits.
  CHECK(SuggestName("ab", std::vector<std::string_view>{"xy"}) == "xy");
  CHECK(SuggestName("ab", std::vector<std::string_view>{"xyz"}).empty());
  // The prefix of a dotted name does not widen the rule: "x.ab" allows 2 edits.
  CHECK(SuggestName("x.ab", std::vector<std::string_view>{"y.xyz"}).empty());
}

TEST_CASE("SuggestName: a dotted name's last part under another prefix is one edit", "[suggest]") {
  const std::vector<std::string_view> keys = {"scheduler", "scheduler.alpha", "limits",
                                              "limits.max_clients"};
  CHECK(SuggestName("limits.alpha", keys) == "scheduler.alpha");
  CHECK(SuggestName("alpha", keys) == "scheduler.alpha");
  CHECK(SuggestName("scheduler.alpah", keys) == "scheduler.alpha");
  CHECK(SuggestName("schedular", keys) == "scheduler");
  CHECK(SuggestName("completely.unrelated_thing", keys).empty());
}

TEST_CASE("SuggestName: no candidates or a tie", "[suggest]") {
  CHECK(SuggestName("anything", std::vector<std::string_view>{}).empty());
  // "cat" is one edit from both; the earlier candidate wins.
  CHECK(SuggestName("cat", std::vector<std::string_view>{"bat", "car"}) == "bat");
  CHECK(SuggestName("cat", std::vector<std::string_view>{"car", "bat"}) == "car");
}

}  // namespace
}  // namespace locsched
