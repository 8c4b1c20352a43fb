#include "daemon/http_routes.h"

#include <nlohmann/json.hpp>

#include "daemon/web_assets.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using json = nlohmann::json;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One job of one map task on m0, done after `seconds`.
void RunOneJob(Harness& h, double seconds) {
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"t","replicas":["m0"]}]})");
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  h.clock.Advance(seconds);
  h.Ok(R"({"op":"task_done","job":"j","task":"t"})");
}

TEST_CASE("GET /metrics is the metrics command's text, with the histograms and build_info") {
  Harness h;
  h.Machines(2);
  RunOneJob(h, 3);
  const HttpReply r = RouteHttp("GET", "/metrics", h.dispatcher);
  CHECK(r.status == 200);
  CHECK(r.content_type == "text/plain; version=0.0.4; charset=utf-8");
  const std::string text = r.body;
  CHECK(Has(text, "locsched_build_info{version=\""));
  const std::string policy(PolicyKindName(h.engine.scheduler().params().kind));
  CHECK(Has(text, "policy=\"" + policy + "\"} 1\n"));
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"node\"} 1\n"));
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"rack\"} 0\n"));
  CHECK(Has(text, "locsched_tasks_started_total{locality=\"off_rack\"} 0\n"));
  CHECK(Has(text, "locsched_job_completion_time_seconds_bucket{le=\"2\"} 0\n"));
  CHECK(Has(text, "locsched_job_completion_time_seconds_bucket{le=\"5\"} 1\n"));
  CHECK(Has(text, "locsched_job_completion_time_seconds_sum 3\n"));
  CHECK(Has(text, "locsched_heartbeat_assignment_latency_seconds_count 1\n"));
  // The same text as the control socket's metrics command (one source).
  const std::string op = h.Ok(R"({"op":"metrics"})")["text"];
  const HttpReply again = RouteHttp("GET", "/metrics", h.dispatcher);
  CHECK(op.substr(0, op.find("locsched_requests_total")) ==
        again.body.substr(0, again.body.find("locsched_requests_total")));
}

TEST_CASE("cancelled jobs are not job completion times") {
  Harness h;
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"c","tasks":[{"task":"t","replicas":["m0"]}]})");
  h.Ok(R"({"op":"job_cancel","job":"c"})", kAdmin);
  CHECK(h.engine.completion_times().count() == 0);
}

TEST_CASE("GET /status and /machine-queues answer the control ops' JSON") {
  Harness h;
  h.Machines(3);
  const json status = json::parse(RouteHttp("GET", "/status", h.dispatcher).body);
  CHECK(status["ok"] == true);
  CHECK(status["machines"]["up"] == 3);
  const HttpReply q = RouteHttp("GET", "/machine-queues?top=2", h.dispatcher);
  CHECK(q.content_type == "application/json");
  CHECK(json::parse(q.body)["longest"].size() == 2);
  CHECK(json::parse(RouteHttp("GET", "/machines", h.dispatcher).body)["machines"].size() == 3);
  const HttpReply bad = RouteHttp("GET", "/machine-queues?top=many", h.dispatcher);
  CHECK(bad.status == 400);
  CHECK(bad.body == "top: expected a count, got 'many'\n");
}

TEST_CASE("GET /queues is gone and names both replacements, never answering with data") {
  Harness h;
  h.Machines(2);
  for (const char* target : {"/queues", "/queues?top=2"}) {
    const HttpReply r = RouteHttp("GET", target, h.dispatcher);
    CHECK(r.status == 410);
    CHECK(r.body.find("machine_queues") != std::string::npos);
    CHECK(r.body.find("tenant queues are `queue`") != std::string::npos);
    CHECK(r.body.find("longest") == std::string::npos);
  }
}

TEST_CASE("/job, /jobs and /machines take the ops' fields as query parameters") {
  Harness h;
  h.Machines(2);
  h.Ok(R"({"op":"job_submit","job":"a b","tasks":[{"task":"t","replicas":["m0"]}]})");
  h.Ok(R"({"op":"job_submit","job":"c","tasks":[{"task":"t","replicas":["m1"]},)"
       R"({"task":"u","replicas":["m1"]}]})");
  const json job = json::parse(RouteHttp("GET", "/job?job=a%20b", h.dispatcher).body);
  CHECK(job["job"] == "a b");
  CHECK(job["task_list"][0]["wait"]["reason"] == "next_heartbeat");
  CHECK(job["task_list"][0]["holders"][0]["machine"] == "m0");
  const json jobs =
      json::parse(RouteHttp("GET", "/jobs?state=queued&sort=-queued&limit=1", h.dispatcher).body);
  REQUIRE(jobs["jobs"].size() == 1);
  CHECK(jobs["jobs"][0]["job"] == "c");
  CHECK(json::parse(RouteHttp("GET", "/jobs?finished", h.dispatcher).body)["kept"] == 1000);
  const HttpReply bad = RouteHttp("GET", "/machines?state=gone", h.dispatcher);
  CHECK(bad.status == 400);
  CHECK(Has(bad.body, "state: unknown state 'gone'"));
  const HttpReply unknown = RouteHttp("GET", "/machines?color=red", h.dispatcher);
  CHECK(unknown.status == 400);
  CHECK(unknown.body == "color: unknown parameter (one of: state, sort, limit)\n");
  CHECK(RouteHttp("GET", "/jobs?limit=x", h.dispatcher).status == 400);
  CHECK(RouteHttp("GET", "/job?job=%4", h.dispatcher).status == 400);
}

TEST_CASE("the dashboard's files are served from the binary") {
  Harness h;
  const HttpReply page = RouteHttp("GET", "/", h.dispatcher);
  CHECK(page.status == 200);
  CHECK(page.content_type == "text/html; charset=utf-8");
  CHECK(Has(page.body, "<script src=\"/dashboard.js\">"));
  CHECK(RouteHttp("GET", "/dashboard.js", h.dispatcher).content_type ==
        "text/javascript; charset=utf-8");
  CHECK(RouteHttp("GET", "/dashboard.css", h.dispatcher).status == 200);
  // Nothing external: no URL with a scheme in any embedded file.
  for (const WebAsset& a : WebAssets()) {
    INFO(a.path);
    CHECK(!Has(std::string(a.body), "http://"));
    CHECK(!Has(std::string(a.body), "https://"));
  }
}

TEST_CASE("unknown paths are 404 and other methods 405") {
  Harness h;
  CHECK(RouteHttp("GET", "/nope", h.dispatcher).status == 404);
  CHECK(RouteHttp("POST", "/metrics", h.dispatcher).status == 405);
  CHECK(RouteHttp("DELETE", "/", h.dispatcher).status == 405);
  CHECK(RouteHttp("POST", "/nope", h.dispatcher).status == 404);
}

}  // namespace
}  // namespace locsched
