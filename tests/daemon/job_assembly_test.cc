// JobAssembly through the Dispatcher: a job sent as job_submit with tasks_total
// and task_add parts is scheduled once whole, checked part by part, cancellable,
// and kept across a snapshot.
#include "daemon/job_assembly.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

// A part of job j: tasks first..first+n-1, each on machine m<i % 2>.
std::string Part(const std::string& op, int first, int n, const std::string& extra = "") {
  json tasks = json::array();
  for (int i = first; i < first + n; ++i)
    tasks.push_back(
        {{"task", "t" + std::to_string(i)}, {"replicas", {"m" + std::to_string(i % 2)}}});
  json r = {{"op", op}, {"job", "j"}, {"tasks", tasks}};
  if (!extra.empty()) r.update(json::parse(extra));
  return r.dump();
}

TEST_CASE("a job sent in parts is scheduled once its last part arrives") {
  Harness h;
  h.Machines(2, 4);
  json r = h.Ok(Part("job_submit", 0, 3, R"({"tasks_total":7})"));
  CHECK(r["tasks"] == 3);
  CHECK(r["pending"] == 4);
  CHECK(h.Ok(R"({"op":"status"})")["daemon"]["assembling"] == 1);
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":4})")["assign"].empty());
  r = h.Ok(Part("task_add", 3, 2));
  CHECK(r["pending"] == 2);
  CHECK(r["submitted"] == false);
  r = h.Ok(Part("task_add", 5, 2));
  CHECK(r["pending"] == 0);
  CHECK(r["submitted"] == true);
  json s = h.Ok(R"({"op":"status"})");
  CHECK(s["daemon"]["assembling"] == 0);
  CHECK(s["tasks"]["queued"] == 7);
  CHECK(h.Ok(R"({"op":"job","job":"j"})")["tasks"] == 7);
}

TEST_CASE("each part is checked: names across parts, the total, unknown jobs and machines") {
  Harness h;
  h.Machines(2);
  h.Ok(Part("job_submit", 0, 2, R"({"tasks_total":4})"));
  json e = h.Send(Part("task_add", 1, 1));
  CHECK(e["error"]["field"] == "tasks[0].task");
  CHECK(e["error"]["message"].get<std::string>().find("earlier part") != std::string::npos);
  e = h.Send(Part("task_add", 2, 3));
  CHECK(e["error"]["field"] == "tasks");
  e = h.Send(R"({"op":"task_add","job":"nope","tasks":[{"task":"a","replicas":["m0"]}]})");
  CHECK(e["error"]["code"] == "not_found");
  e = h.Send(R"({"op":"task_add","job":"j","tasks":[{"task":"z","replicas":["m9"]}]})");
  CHECK(e["error"]["field"] == "tasks[0].replicas[0]");
  e = h.Send(Part("job_submit", 0, 1));
  CHECK(e["error"]["code"] == "already_exists");
  e = h.Send(Part("job_submit", 0, 3, R"({"tasks_total":2})"));
  CHECK(e["error"]["field"] == "tasks_total");
  // A failed part changes nothing: the right parts still complete the job.
  CHECK(h.Ok(Part("task_add", 2, 2))["submitted"] == true);
}

TEST_CASE("tasks_total is held to limits.max_tasks_per_job, and a job in parts can be cancelled") {
  Config cfg;
  cfg.limits.max_tasks_per_job = 5;
  Harness h(cfg);
  h.Machines(2);
  json e = h.Send(Part("job_submit", 0, 2, R"({"tasks_total":6})"));
  CHECK(e["error"]["field"] == "tasks_total");
  h.Ok(Part("job_submit", 0, 2, R"({"tasks_total":5})"));
  CHECK(h.Send(R"({"op":"job_cancel","job":"j"})", kAgent)["error"]["code"] == "permission_denied");
  CHECK(h.Ok(R"({"op":"job_cancel","job":"j"})", kAdmin)["tasks"] == 5);
  CHECK(h.Send(Part("task_add", 2, 1))["error"]["code"] == "not_found");
}

TEST_CASE("a job half sent survives a snapshot and completes after it") {
  Harness a;
  a.Machines(2);
  a.Ok(Part("job_submit", 0, 2, R"({"tasks_total":5})"));
  a.Ok(Part("task_add", 2, 1));
  std::vector<std::string> snapshot;
  a.dispatcher.Save([&](std::string_view r) { snapshot.emplace_back(r); });
  Harness b;
  REQUIRE(b.dispatcher.Load(snapshot).ok());
  CHECK(b.Ok(R"({"op":"status"})")["daemon"]["assembling"] == 1);
  CHECK(b.Send(Part("task_add", 2, 1))["error"]["field"] == "tasks[0].task");
  CHECK(b.Ok(Part("task_add", 3, 2))["submitted"] == true);
  CHECK(b.Ok(R"({"op":"status"})")["tasks"]["queued"] == 5);
}

}  // namespace
}  // namespace locsched
