// DedupeWindow: bounded, FIFO forgetting, bodies and request hashes returned as recorded.
#include "daemon/dedupe.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("the dedupe window forgets the oldest id first") {
  DedupeWindow w(2);
  w.Remember("a", 7, ",\"x\":1");
  w.Remember("b", 8, "");
  REQUIRE(w.Find("a") != nullptr);
  CHECK(w.Find("a")->body == ",\"x\":1");
  CHECK(w.Find("a")->hash == 7);
  w.Remember("c", 9, "");
  CHECK(w.Find("a") == nullptr);
  CHECK(w.Find("b") != nullptr);
  CHECK(w.size() == 2);
  w.SetCapacity(1);
  CHECK(w.Find("b") == nullptr);
  CHECK(w.Find("c") != nullptr);
}

TEST_CASE("a zero-capacity window remembers nothing") {
  DedupeWindow w(0);
  w.Remember("a", 1, "");
  CHECK(w.Find("a") == nullptr);
}

TEST_CASE("remembering an id twice keeps the first body and hash") {
  DedupeWindow w(4);
  w.Remember("a", 1, "1");
  w.Remember("a", 2, "2");
  CHECK(w.Find("a")->body == "1");
  CHECK(w.Find("a")->hash == 1);
  CHECK(w.size() == 1);
}

}  // namespace
}  // namespace locsched
