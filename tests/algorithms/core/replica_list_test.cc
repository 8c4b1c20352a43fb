// Tests ReplicaList (algorithms/core/replica_list.h): inline and heap contents,
// copies, moves, and assigning a list its own contents. Run under ASan, these
// also catch a leaked or doubly freed heap block.
#include "algorithms/core/replica_list.h"

#include <catch2/catch.hpp>

#include <numeric>
#include <utility>
#include <vector>

namespace locsched {
namespace {

std::vector<uint32_t> Ids(size_t n) {
  std::vector<uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 100);
  return ids;
}

std::vector<uint32_t> Contents(const ReplicaList& r) {
  return {r.begin(), r.end()};
}

TEST_CASE("ReplicaList holds 0 to 6 ids, inline or on the heap", "[replica_list]") {
  for (size_t n = 0; n <= 6; ++n) {
    CAPTURE(n);
    ReplicaList r;
    r.Assign(Ids(n));
    CHECK(r.size() == n);
    CHECK(r.empty() == (n == 0));
    CHECK(Contents(r) == Ids(n));
    if (n > 0) CHECK(r[n - 1] == 100 + n - 1);
    for (size_t m = 0; m <= 6; ++m) {  // every size after every size
      r.Assign(Ids(m));
      CHECK(Contents(r) == Ids(m));
      r.Assign(Ids(n));
    }
    r.clear();
    CHECK(r.empty());
    r.Assign(Ids(n));
    CHECK(Contents(r) == Ids(n));
  }
}

// Contains reads the inline words without a loop bound on size, so the words a shorter
// list no longer uses (stale ids, or a heap pointer's bits after a spill) must not count.
TEST_CASE("ReplicaList::Contains sees exactly the current ids", "[replica_list]") {
  for (size_t before = 0; before <= 6; ++before) {
    for (size_t n = 0; n <= 6; ++n) {
      CAPTURE(before, n);
      ReplicaList r;
      r.Assign(Ids(before));
      r.Assign(Ids(n));
      for (uint32_t id = 95; id < 110; ++id) CHECK(r.Contains(id) == (id >= 100 && id < 100 + n));
    }
  }
  ReplicaList spilled;
  spilled.Assign(Ids(5));
  spilled.clear();  // the inline words still hold the freed block's address
  for (uint32_t id = 0; id < 8; ++id) CHECK_FALSE(spilled.Contains(id));
}

TEST_CASE("ReplicaList copies and moves own their ids", "[replica_list]") {
  for (size_t n : {2u, 3u, 5u}) {
    CAPTURE(n);
    ReplicaList a;
    a.Assign(Ids(n));
    ReplicaList b(a);  // copy: a second block when on the heap
    a.Assign(Ids(1));
    CHECK(Contents(b) == Ids(n));
    ReplicaList c(std::move(b));
    CHECK(Contents(c) == Ids(n));
    CHECK(b.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty
    ReplicaList d;
    d.Assign(Ids(4));
    d = std::move(c);  // frees d's own block first
    CHECK(Contents(d) == Ids(n));
    ReplicaList e;
    e = d;
    CHECK(Contents(e) == Ids(n));
    e = e;  // self-assignment keeps the contents
    CHECK(Contents(e) == Ids(n));
  }
}

TEST_CASE("ReplicaList can be assigned a view of itself", "[replica_list]") {
  for (size_t n : {2u, 3u, 4u, 6u}) {
    CAPTURE(n);
    ReplicaList r;
    r.Assign(Ids(n));
    r.Assign(r.view());  // on the heap, the old block is read before it is freed
    CHECK(Contents(r) == Ids(n));
    r.Assign(r.view().first(1));  // shrinks from the heap to inline
    CHECK(Contents(r) == Ids(1));
  }
}

}  // namespace
}  // namespace locsched
