// HttpRoutes: what the HTTP listener answers, without the sockets: GET /metrics
// (Prometheus text), /status, /machine-queues, /queue, /machines, /jobs and /job (the control ops'
// JSON; query parameters are the op's fields, as /jobs?state=queued&limit=5),
// and the dashboard's static files; 404 and 405 otherwise. HttpServer calls it
// for each parsed request on the event-loop thread; it reads state, never blocks.
#pragma once

#include <string>
#include <string_view>

namespace locsched {

class Dispatcher;

/// One HTTP answer.
struct HttpReply {
  unsigned status = 200;          ///< 200, 404, 405
  std::string_view content_type;  ///< a static string
  std::string body;
  bool cacheable = false;  ///< a static file (the API answers are never cached)
};

/// Answers `method` `target` (path and query) from the daemon behind `d`.
HttpReply RouteHttp(std::string_view method, std::string_view target, Dispatcher& d);

}  // namespace locsched
