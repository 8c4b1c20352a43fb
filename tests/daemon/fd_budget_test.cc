// FitClientLimits: the client limits against RLIMIT_NOFILE.
#include "daemon/fd_budget.h"

#include <catch2/catch.hpp>

namespace locsched {
namespace {

TEST_CASE("limits that fit the descriptor limit are kept") {
  LimitsConfig limits;
  std::string note = "x";
  const ClientLimits fit = FitClientLimits(limits, 65536, &note);
  CHECK(fit.event == limits.max_clients);
  CHECK(fit.control == limits.max_control_clients);
  CHECK(note.empty());
}

TEST_CASE("limits past the descriptor limit are clamped, the control socket keeps a share") {
  LimitsConfig limits;
  limits.max_clients = 1000;
  limits.max_control_clients = 16;
  std::string note;
  const ClientLimits fit = FitClientLimits(limits, 64, &note);
  CHECK(fit.event + fit.control + kReservedFds <= 64);
  CHECK(fit.control >= 1);
  CHECK(fit.event >= 1);
  CHECK(note.find("limits.max_clients (1000)") != std::string::npos);
  CHECK(note.find("RLIMIT_NOFILE is 64") != std::string::npos);
  // Far too few descriptors still leaves one client per socket.
  const ClientLimits tiny = FitClientLimits(limits, 8, &note);
  CHECK(tiny.event == 1);
  CHECK(tiny.control == 1);
}

}  // namespace
}  // namespace locsched
