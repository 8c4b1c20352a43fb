#include "daemon/metrics_text.h"

#include "daemon/dispatcher.h"
#include "daemon/event_log.h"

#ifndef LOCSCHED_VERSION
#define LOCSCHED_VERSION "unknown"
#endif

namespace locsched {

namespace {

// locsched_build_info: 1, labelled with what is running (Prometheus' info pattern).
void AppendBuildInfo(Dispatcher& d, std::string* out) {
  out->append("# HELP locsched_build_info The running version and policy (value 1).\n");
  out->append("# TYPE locsched_build_info gauge\n");
  out->append("locsched_build_info{version=\"")
      .append(LOCSCHED_VERSION)
      .append("\",policy=\"")
      .append(PolicyKindName(d.engine().scheduler().params().kind))
      .append("\"} 1\n");
}

}  // namespace

void AppendMetricsText(Dispatcher& d, std::string* out) {
  AppendBuildInfo(d, out);
  d.engine().AppendMetrics(out);
  d.heartbeat_latency().AppendMetrics(
      "locsched_heartbeat_assignment_latency_seconds",
      "Seconds from the event loop taking up a heartbeat to its assignments being decided.", out);
  if (const LpPlanner* planner = d.planner()) planner->AppendMetrics(out);
  d.counters().AppendMetrics(out);
  if (const EventLog* log = d.event_log()) log->AppendMetrics(out);
  d.AppendDaemonMetrics(out);
}

}  // namespace locsched
