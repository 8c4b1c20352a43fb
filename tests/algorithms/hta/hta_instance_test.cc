// Tests the HTA model (algorithms/hta/hta_instance.h): validation names the field
// path of the first bad value, and EvaluateAssignment's loads use w_rem(r) of the
// assignment's own remote count r.
#include "algorithms/hta/hta_instance.h"

#include <catch2/catch.hpp>

#include <string>

namespace locsched {
namespace {

HtaInstance Good() {
  HtaInstance in;
  in.servers = 3;
  in.costs = {1, {2, 2, 4}};
  in.tasks = {{0, 1}, {2}, {1}};
  return in;
}

TEST_CASE("validation accepts a good instance and names the bad field", "[hta_instance]") {
  REQUIRE(ValidateHtaInstance(Good()).ok());
  struct Case {
    const char* subject;
    void (*mutate)(HtaInstance&);
  };
  const Case cases[] = {
      {"servers", [](HtaInstance& in) { in.servers = 0; }},
      {"w_loc", [](HtaInstance& in) { in.costs.w_loc = 0; }},
      {"w_rem", [](HtaInstance& in) { in.costs.w_rem.clear(); }},
      {"w_rem[1]", [](HtaInstance& in) { in.costs.w_rem[1] = 0.5; }},
      {"w_rem[2]", [](HtaInstance& in) { in.costs.w_rem[2] = 1.5; }},
      {"tasks[1]", [](HtaInstance& in) { in.tasks[1].clear(); }},
      {"tasks[2][1]", [](HtaInstance& in) { in.tasks[2].push_back(9); }},
      {"tasks[0][1]", [](HtaInstance& in) { in.tasks[0][1] = 0; }},
      {"tasks[2][0]", [](HtaInstance& in) { in.tasks[2][0] = -1; }},
  };
  for (const Case& c : cases) {
    HtaInstance in = Good();
    c.mutate(in);
    const Status s = ValidateHtaInstance(in);
    INFO(s.message());
    CHECK(s.code() == Status::Code::kInvalidArgument);
    CHECK(s.subject() == c.subject);
  }
  HtaInstance in = Good();
  in.tasks[2].push_back(9);
  CHECK(ValidateHtaInstance(in).message() == "tasks[2][1]: server 9 out of range [0, 3)");
}

TEST_CASE("loads charge w_rem of the assignment's remote count", "[hta_instance]") {
  const HtaInstance in = Good();
  const HtaLoads all_local = EvaluateAssignment(in, {0, 2, 1});
  CHECK(all_local.max_load == 1);
  CHECK(all_local.local_tasks == 3);
  const HtaLoads one_remote = EvaluateAssignment(in, {0, 0, 1});  // w_rem(1) = 2
  CHECK(one_remote.remote_tasks == 1);
  CHECK(one_remote.loads[0] == 1 + 2);
  const HtaLoads two_remote = EvaluateAssignment(in, {0, 0, 0});  // w_rem(2) = 4
  CHECK(two_remote.remote_tasks == 2);
  CHECK(two_remote.loads[0] == 1 + 2 * 4);
  CHECK(two_remote.max_load == 9);
  CHECK(in.costs.Remote(100) == 4);  // past the table: the last entry
}

}  // namespace
}  // namespace locsched
