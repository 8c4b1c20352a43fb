// The daemon's Prometheus text exposition, one source for the `metrics` command
// and GET /metrics: the Engine's gauges, counters and histograms, the LP
// planner's, the request counters, the heartbeat latency and build_info.
// Event-loop thread only (it reads the Dispatcher's state).
#pragma once

#include <string>

namespace locsched {

class Dispatcher;

/// Appends every metric family of the daemon behind `d` to *out.
void AppendMetricsText(Dispatcher& d, std::string* out);

}  // namespace locsched
