#include "daemon/request_counters.h"

namespace locsched {

namespace {

// One Prometheus counter family with a value per command.
template <typename Value>
void AppendFamily(std::string_view name, std::string_view help, Value value, std::string* text) {
  text->append("# HELP ").append(name).append(" ").append(help).append("\n");
  text->append("# TYPE ").append(name).append(" counter\n");
  for (const CommandSpec& c : CommandTable())
    text->append(name)
        .append("{op=\"")
        .append(c.name)
        .append("\"} ")
        .append(std::to_string(value(c.op)))
        .append("\n");
}

}  // namespace

void RequestCounters::AppendMetrics(std::string* text) const {
  AppendFamily(
      "locsched_requests_total", "Requests per command.", [this](Op op) { return of(op).calls; },
      text);
  AppendFamily(
      "locsched_request_errors_total", "Requests answered ok:false.",
      [this](Op op) { return of(op).errors; }, text);
}

}  // namespace locsched
