#include "daemon/http_routes.h"

#include <charconv>

#include "daemon/dispatcher.h"
#include "daemon/metrics_text.h"
#include "daemon/web_assets.h"
#include "io/wire/command_table.h"
#include "io/wire/json_writer.h"

namespace locsched {

namespace {

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kText = "text/plain; charset=utf-8";
// The version of the text exposition format Prometheus negotiates.
constexpr std::string_view kPrometheus = "text/plain; version=0.0.4; charset=utf-8";

// The value of `key` in a query string ("top=20&x=1"), or "".
std::string_view QueryValue(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=')
      return pair.substr(key.size() + 1);
    query = amp == query.npos ? std::string_view() : query.substr(amp + 1);
  }
  return {};
}

// A read-only control op, answered as on the control socket (no admin rights).
HttpReply ControlOp(Dispatcher& d, std::string_view line) {
  HttpReply reply{200, kJson, {}, false};
  Caller caller;
  caller.control = true;
  d.HandleLine(line, caller, &reply.body);
  if (reply.body.rfind("{\"ok\":false", 0) == 0) reply.status = 400;
  return reply;
}

// /machine-queues?top=N lists the N longest local queues (default 10, as the op).
HttpReply MachineQueues(Dispatcher& d, std::string_view query) {
  const std::string_view top = QueryValue(query, "top");
  uint64_t n = 10;
  const auto r = std::from_chars(top.data(), top.data() + top.size(), n);
  if (!top.empty() && (r.ec != std::errc() || r.ptr != top.data() + top.size()))
    return {400, kText, "top: expected a count, got '" + std::string(top) + "'\n", false};
  return ControlOp(d, "{\"op\":\"machine_queues\",\"top\":" + std::to_string(n) + "}");
}

// %XX escapes and '+' as a space, as a form encodes them; false on a broken escape.
bool PercentDecode(std::string_view in, std::string* out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') {
      out->push_back(' ');
    } else if (in[i] != '%') {
      out->push_back(in[i]);
    } else {
      unsigned value = 0;
      if (i + 2 >= in.size()) return false;
      const auto r = std::from_chars(in.data() + i + 1, in.data() + i + 3, value, 16);
      if (r.ptr != in.data() + i + 3) return false;
      out->push_back(static_cast<char>(value));
      i += 2;
    }
  }
  return true;
}

// The read-only op `op` with the query's parameters as its fields ("/jobs?state=queued&
// limit=5"), typed by the command table; the op checks the values as on the socket.
HttpReply OpWithQuery(Dispatcher& d, Op op, std::string_view query) {
  const CommandSpec& spec = SpecOf(op);
  std::string line;
  JsonWriter w(&line);
  w.BeginObject().Field("op", spec.name);
  for (std::string_view rest = query; !rest.empty();) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == rest.npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    std::string value;
    const FieldSpec* f = FindField(spec.fields, key);
    if (f == nullptr) {
      std::string valid;
      for (const FieldSpec& x : spec.fields)
        valid += (valid.empty() ? "" : ", ") + std::string(x.name);
      return {400, kText, std::string(key) + ": unknown parameter (one of: " + valid + ")\n",
              false};
    }
    if (!PercentDecode(eq == pair.npos ? std::string_view() : pair.substr(eq + 1), &value))
      return {400, kText, std::string(key) + ": a broken %-escape\n", false};
    w.Key(f->name);
    uint64_t n = 0;
    const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
    if (f->type == FieldType::kCount || f->type == FieldType::kPositive) {
      if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size())
        return {400, kText, std::string(key) + ": expected a count, got '" + value + "'\n", false};
      w.Uint(n);
    } else if (f->type == FieldType::kBool) {
      w.Bool(value.empty() || value == "true" || value == "1");
    } else {
      w.String(value);
    }
  }
  w.EndObject();
  return ControlOp(d, line);
}

HttpReply Api(std::string_view path, std::string_view query, Dispatcher& d) {
  if (path == "/metrics") {
    HttpReply reply{200, kPrometheus, {}, false};
    AppendMetricsText(d, &reply.body);
    return reply;
  }
  if (path == "/status") return ControlOp(d, R"({"op":"status"})");
  if (path == "/machine-queues") return MachineQueues(d, query);
  if (path == "/machines") return OpWithQuery(d, Op::kMachines, query);
  if (path == "/jobs") return OpWithQuery(d, Op::kJobs, query);
  if (path == "/job") return OpWithQuery(d, Op::kJob, query);
  if (path == "/queue") return OpWithQuery(d, Op::kQueue, query);
  return {404, kText, {}, false};
}

}  // namespace

HttpReply RouteHttp(std::string_view method, std::string_view target, Dispatcher& d) {
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query = q == target.npos ? std::string_view() : target.substr(q + 1);
  const WebAsset* asset = nullptr;
  for (const WebAsset& a : WebAssets())
    if (a.path == path) asset = &a;
  const bool api = path == "/metrics" || path == "/status" || path == "/machine-queues" ||
                   path == "/machines" || path == "/jobs" || path == "/job" || path == "/queue";
  // The retired route: never answered with either kind of queue's data.
  if (path == "/queues") return {410, kText, std::string(kQueuesSplit) + "\n", false};
  if (!asset && !api) return {404, kText, "no such page: " + std::string(path) + "\n", false};
  if (method != "GET")
    return {405, kText, "only GET is served; got " + std::string(method) + "\n", false};
  if (asset) return {200, asset->content_type, std::string(asset->body), true};
  return Api(path, query, d);
}

}  // namespace locsched
