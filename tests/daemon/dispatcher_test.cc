// The Dispatcher and Engine driven line by line, without sockets: lifecycle,
// retries, dedupe, access rules and errors naming their field.
#include "daemon/dispatcher.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "io/store/journal.h"
#include "tests/daemon/harness.h"

namespace locsched {
namespace {

using nlohmann::json;

TEST_CASE("a job runs map tasks first, then its reduce, then is done") {
  Harness h;
  h.Machines(2);
  h.Ok(R"({"op":"job_submit","job":"wc","tasks":[{"task":"m0","replicas":["m0"]},)"
       R"({"task":"r0","replicas":["m1"],"kind":"reduce"}]})");
  json a = h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  REQUIRE(a["assign"].size() == 1);
  CHECK(a["assign"][0] == json{{"job", "wc"}, {"task", "m0"}, {"local", true}});
  a = h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})");
  CHECK(a["assign"].empty());  // the reduce waits for the map
  CHECK(h.Ok(R"({"op":"task_done","job":"wc","task":"m0","machine":"m0"})")["job_done"] == false);
  a = h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":3})");
  REQUIRE(a["assign"].size() == 1);
  CHECK(a["assign"][0]["task"] == "r0");
  CHECK(h.Ok(R"({"op":"task_done","job":"wc","task":"r0"})")["job_done"] == true);
  json j = h.Ok(R"({"op":"job","job":"wc"})");
  CHECK(j["state"] == "done");
  CHECK(h.Ok(R"({"op":"status"})")["jobs"]["done"] == 1);
}

TEST_CASE("a heartbeat never assigns more than the free slots or the machine's room") {
  Harness h;
  h.Machines(1, 2);
  std::string tasks;
  for (int i = 0; i < 5; ++i)
    tasks +=
        std::string(i ? "," : "") + R"({"task":"t)" + std::to_string(i) + R"(","replicas":["m0"]})";
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[)" + tasks + "]}");
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":9})")["assign"].size() == 1);
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":9})")["assign"].empty());
}

TEST_CASE("a machine that goes down has its running tasks requeued, none lost") {
  Harness h;
  h.Machines(2, 2);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]},)"
       R"({"task":"b","replicas":["m0"]}]})");
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":2})")["assign"].size() == 2);
  CHECK(h.Ok(R"({"op":"machine_down","machine":"m0"})", kAdmin)["requeued"] == 2);
  json s = h.Ok(R"({"op":"status"})");
  CHECK(s["tasks"]["queued"] == 2);
  CHECK(s["tasks"]["running"] == 0);
  json e = h.Send(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  CHECK(e["error"]["code"] == "failed_precondition");
  CHECK(e["error"]["field"] == "machine");
  // Both tasks still finish: m1 takes them remotely.
  json a = h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":2})");
  REQUIRE(a["assign"].size() == 2);
  CHECK(a["assign"][0]["local"] == false);
}

TEST_CASE("a draining machine gets nothing new until it is resumed") {
  Harness h;
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  h.Ok(R"({"op":"machine_drain","machine":"m0"})", kAdmin);
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].empty());
  h.Ok(R"({"op":"machine_drain","machine":"m0","drain":false})", kAdmin);
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"].size() == 1);
}

TEST_CASE("a failed task is retried up to max_task_retries, then its job fails") {
  Config cfg;
  cfg.scheduler.max_task_retries = 2;
  Harness h(cfg);
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  for (int attempt = 1; attempt <= 2; ++attempt) {
    h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
    json f = h.Ok(R"({"op":"task_failed","job":"j","task":"a","reason":"oom"})");
    CHECK(f["retry"] == true);
    CHECK(f["attempts"] == attempt);
  }
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  json f = h.Ok(R"({"op":"task_failed","job":"j","task":"a"})");
  CHECK(f["retry"] == false);
  CHECK(f["job_failed"] == true);
  CHECK(h.Ok(R"({"op":"job","job":"j"})")["state"] == "failed");
  CHECK(h.Ok(R"({"op":"status"})")["tasks"]["running"] == 0);
  CHECK(h.Ok(R"({"op":"status"})")["slots"]["busy"] == 0);
}

TEST_CASE("a repeated event id is acknowledged with the same reply and applied once") {
  Harness h;
  h.Machines(1, 4);
  const std::string submit =
      R"({"op":"job_submit","id":7,"job":"j","tasks":[{"task":"a","replicas":["m0"]},)"
      R"({"task":"b","replicas":["m0"]}]})";
  h.Ok(submit);
  json again = h.Ok(submit);
  CHECK(again["duplicate"] == true);
  CHECK(again["id"] == 7);  // an integer id is echoed as an integer
  const std::string beat = R"({"op":"heartbeat","id":"hb-1","machine":"m0","free_slots":1})";
  json first = h.Ok(beat);
  json retry = h.Ok(beat);
  CHECK(retry["assign"] == first["assign"]);
  CHECK(h.Ok(R"({"op":"status"})")["tasks"]["running"] == 1);
  CHECK(h.Ok(R"({"op":"status"})")["jobs"]["submitted"] == 1);
}

TEST_CASE("an id sent again with a different request is a conflict naming the id") {
  Harness h;
  h.Machines(2);
  const std::string submit =
      R"({"op":"job_submit","id":"jt-1","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})";
  h.Ok(submit);
  // Same request, other spelling (spaces, key order): still the same request.
  CHECK(
      h.Ok(R"({"id":"jt-1", "op":"job_submit","tasks":[{"replicas":["m0"],"task":"a"}],"job":"j"})")
          ["duplicate"] == true);
  json e = h.Send(
      R"({"op":"job_submit","id":"jt-1","job":"k","tasks":[{"task":"a","replicas":["m1"]}]})");
  CHECK(e["ok"] == false);
  CHECK(e["id"] == "jt-1");
  CHECK(e["error"]["code"] == "conflict");
  CHECK(e["error"]["field"] == "id");
  CHECK(e["error"]["message"].get<std::string>().find("\"jt-1\" was already used") !=
        std::string::npos);
  CHECK(h.Ok(R"({"op":"status"})")["jobs"]["submitted"] == 1);  // the second one was not applied
  // An integer id and another op under it: a conflict too.
  h.Ok(R"({"op":"heartbeat","id":5,"machine":"m0","free_slots":1})");
  CHECK(h.Send(R"({"op":"heartbeat","id":5,"machine":"m1","free_slots":1})")["error"]["message"] ==
        "id: 5 was already used by a different request (that one was applied; send this one "
        "with a new id)");
}

TEST_CASE("a request that fails does not use up its id") {
  Harness h;
  const std::string up = R"({"op":"heartbeat","id":"x","machine":"m0","free_slots":1})";
  CHECK(h.Send(up)["ok"] == false);  // m0 unknown yet
  h.Machines(1);
  json r = h.Ok(up);
  CHECK(!r.contains("duplicate"));
}

TEST_CASE("errors name the field: unknown machines, jobs, tasks, duplicates, limits") {
  Config cfg;
  cfg.limits.max_tasks_per_job = 2;
  Harness h(cfg);
  h.Machines(2);
  auto err = [&](const std::string& line) { return h.Send(line)["error"]; };
  CHECK(err(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0","zz"]}]})")
            ["message"] == "tasks[0].replicas[1]: unknown machine 'zz'");
  CHECK(err(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0","m0"]}]})")
            ["field"] == "tasks[0].replicas[1]");
  CHECK(err(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]},)"
            R"({"task":"a","replicas":["m1"]}]})")["message"] ==
        "tasks[1].task: duplicate task 'a'");
  json big = err(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]},)"
                 R"({"task":"b","replicas":["m0"]},{"task":"c","replicas":["m0"]}]})");
  CHECK(big["code"] == "resource_exhausted");
  CHECK(big["field"] == "tasks");
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  CHECK(err(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})")["code"] ==
        "already_exists");
  CHECK(err(R"({"op":"task_done","job":"nope","task":"a"})")["message"] ==
        "job: unknown job 'nope'");
  CHECK(err(R"({"op":"task_done","job":"j","task":"b"})")["message"] ==
        "task: job 'j' has no task 'b'");
  CHECK(err(R"({"op":"task_done","job":"j","task":"a"})")["code"] == "failed_precondition");
  CHECK(err(R"({"op":"heartbeat","machine":"ghost","free_slots":1})")["message"] ==
        "machine: unknown machine 'ghost'");
}

TEST_CASE("a task done from the wrong machine is refused and changes nothing") {
  Harness h;
  h.Machines(2);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  json e = h.Send(R"({"op":"task_done","job":"j","task":"a","machine":"m1"})");
  CHECK(e["error"]["message"] == "machine: task 'a' runs on 'm0', not 'm1'");
  CHECK(h.Ok(R"({"op":"status"})")["tasks"]["running"] == 1);
}

TEST_CASE("commands are held to their sockets and admin commands to authorized peers") {
  Harness h;
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  json e =
      h.Send(R"({"op":"job_submit","job":"k","tasks":[{"task":"a","replicas":["m0"]}]})", kAdmin);
  CHECK(e["error"]["message"] == "op: 'job_submit' is not accepted on the control socket");
  e = h.Send(R"({"op":"job_cancel","job":"j"})", kStranger);
  CHECK(e["error"]["code"] == "permission_denied");
  CHECK(h.Ok(R"({"op":"jobs"})", kStranger)["count"] == 1);  // read-only is fine
  h.Ok(R"({"op":"job_cancel","job":"j"})", kAdmin);
  CHECK(h.Ok(R"({"op":"job","job":"j"})")["state"] == "cancelled");
}

// The error code of a reply, "" if it succeeded.
std::string ErrorCode(const json& reply) {
  return reply.contains("error") ? reply["error"]["code"].get<std::string>() : "";
}

// A request of spec's op with each required field set to a valid value of its type.
std::string MinimalRequest(const CommandSpec& spec) {
  json r = {{"op", spec.name}};
  for (const FieldSpec& f : spec.fields) {
    if (!f.required) continue;
    const std::string name(f.name);
    switch (f.type) {
      case FieldType::kTasks:
        r[name] = json::array({{{"task", "t"}, {"replicas", {"m0"}}}});
        break;
      case FieldType::kNames:
        r[name] = json::array({"m0"});
        break;
      case FieldType::kCount:
      case FieldType::kPositive:
      case FieldType::kNumber:
        r[name] = 1;
        break;
      case FieldType::kBool:
        r[name] = true;
        break;
      case FieldType::kKind:
        r[name] = "map";
        break;
      default:
        r[name] = "x";
    }
  }
  return r.dump();
}

TEST_CASE("one access rule per op: admin commands need an authorized peer on either socket") {
  Harness h;
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  // The admin ops the event socket accepts are refused to an agent that is no operator...
  for (const char* line :
       {R"({"op":"machine_drain","machine":"m0"})", R"({"op":"machine_down","machine":"m0"})",
        R"({"op":"job_cancel","job":"j"})"}) {
    INFO(line);
    json e = h.Send(line, kAgent);
    CHECK(e["error"]["code"] == "permission_denied");
    CHECK(e["error"]["message"].get<std::string>().find("uid 1000") != std::string::npos);
  }
  CHECK(h.Ok(R"({"op":"status"})")["machines"]["draining"] == 0);  // nothing was applied
  CHECK(h.Ok(R"({"op":"jobs"})", kAgent)["count"] == 1);
  // ...and accepted from an authorized peer on the same socket.
  CHECK(h.Ok(R"({"op":"machine_drain","machine":"m0"})", kLocal)["running"] == 0);
  // The rule comes from the table, row by row: every admin op, on each socket that
  // accepts it, is refused to an unauthorized peer and never to an authorized one.
  for (const CommandSpec& spec : CommandTable()) {
    for (bool control : {false, true}) {
      if (!(spec.flags & (control ? kControlSocket : kEventSocket))) continue;
      INFO(spec.name << (control ? " on the control socket" : " on the event socket"));
      const std::string line = MinimalRequest(spec);
      const json refused = h.Send(line, Caller{control, false, 7});
      CHECK((ErrorCode(refused) == "permission_denied") == (spec.access == Access::kAdmin));
      CHECK(ErrorCode(h.Send(line, Caller{control, true, 0})) != "permission_denied");
    }
  }
}

TEST_CASE("alpha and gamma are learnt from task durations and reported in status") {
  Harness h;
  h.Machines(2);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]},)"
       R"({"task":"b","replicas":["m0"]}]})");
  const std::string task =
      h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})")["assign"][0]["task"];
  h.clock.Advance(0.5);
  h.Ok(R"({"op":"task_done","job":"j","task":")" + task + R"("})");
  json r = h.Ok(R"({"op":"status"})")["rates"];
  CHECK(r["local_samples"] == 1);
  // Prior: 10 pseudo-durations of 1/0.8 s; one observation of 0.5 s.
  CHECK(r["alpha"].get<double>() == Approx(11.0 / (10 / 0.8 + 0.5)));
  // No remote sample yet: gamma keeps the configured 1:4 ratio to the learnt alpha.
  CHECK(r["gamma"].get<double>() == Approx(r["alpha"].get<double>() / 4));
}

TEST_CASE("help lists every command, and one command with its fields") {
  Harness h;
  json all = h.Ok(R"({"op":"help"})");
  CHECK(all["commands"].size() == CommandTable().size());
  json one = h.Ok(R"({"op":"help","command":"job_submit"})");
  CHECK(one["fields"].size() == SpecOf(Op::kJobSubmit).fields.size());
  CHECK(one["task_fields"].size() == TaskFields().size());
  CHECK(h.Send(R"({"op":"help","command":"job_sumbit"})")["error"]["message"] ==
        "command: unknown command 'job_sumbit'; did you mean 'job_submit'?");
}

TEST_CASE("metrics count requests and errors per command") {
  Harness h;
  h.Send(R"({"op":"heartbeat","machine":"x","free_slots":1})");
  const std::string text = h.Ok(R"({"op":"metrics"})")["text"];
  CHECK(text.find("locsched_requests_total{op=\"heartbeat\"} 1\n") != std::string::npos);
  CHECK(text.find("locsched_request_errors_total{op=\"heartbeat\"} 1\n") != std::string::npos);
  CHECK(text.find("locsched_tasks_queued 0\n") != std::string::npos);
}

// A daemon whose reload changes log.level.
struct ReloadingControl final : DaemonControl {
  Status Reload(std::vector<std::string>* changed) override {
    changed->push_back("log.level");
    return Status::Ok();
  }
  Status Snapshot(JsonWriter&) override { return Status::Ok(); }
  Status Rebalance(JsonWriter&) override { return Status::Ok(); }
  uint64_t clients() const override { return 3; }
};

TEST_CASE("reload without a daemon is a clear error, with one reports the changed keys") {
  Harness h;
  CHECK(h.Send(R"({"op":"reload"})", kAdmin)["error"]["field"] == "reload");
  ReloadingControl control;
  HarnessOptions options;
  options.control = &control;
  Harness d(Config{}, options);
  CHECK(d.Ok(R"({"op":"reload"})", kAdmin)["changed"] == json::array({"log.level"}));
  CHECK(d.Ok(R"({"op":"status"})")["daemon"]["clients"] == 3);
}

TEST_CASE("a heartbeat that changes nothing adds no journal bytes") {
  Harness h;
  std::string disk;
  MemJournal journal(&disk);
  h.log.Attach(&journal);
  h.Machines(2);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  REQUIRE(h.log.Sync().ok());
  const uint64_t bytes = journal.size(), records = h.log.records();
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");  // takes j's task
  const uint64_t after_assign = journal.size();
  CHECK(after_assign > bytes);
  // A full machine, and one offering a slot when nothing can run: 2,000 heartbeats
  // that assign nothing cost nothing.
  for (int i = 0; i < 1000; ++i) {
    h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":0})");
    h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1})");
  }
  REQUIRE(h.log.Sync().ok());
  CHECK(journal.size() == after_assign);
  CHECK(h.log.records() == records + 1);
  CHECK(h.log.skipped() == 2000);
  CHECK(h.log.bytes() == journal.size());
  // One with an id neither: its id is not remembered, so a retry runs it again, and
  // may be given what has become runnable since (the first run changed nothing).
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1,"id":9})")["assign"].empty());
  CHECK(h.log.records() == records + 1);
  h.Ok(R"({"op":"job_submit","job":"k","tasks":[{"task":"b","replicas":["m1"]}]})");
  const json again = h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1,"id":9})");
  CHECK(!again.contains("duplicate"));
  CHECK(again["assign"].size() == 1);
  CHECK(h.Ok(R"({"op":"heartbeat","machine":"m1","free_slots":1,"id":9})").contains("duplicate"));
  const json status = h.Ok(R"({"op":"status"})")["daemon"]["journal"];
  CHECK(status["skipped_heartbeats"] == 2001);
  CHECK(status["records"] == records + 3);
}

TEST_CASE("every admin op leaves one audit line naming the op, its target and the peer") {
  std::vector<std::string> lines;
  HarnessOptions o;
  o.audit = [&](const std::string& line) { lines.push_back(line); };
  Harness h(Config{}, std::move(o));
  h.Machines(1);
  h.Ok(R"({"op":"job_submit","job":"j","tasks":[{"task":"a","replicas":["m0"]}]})");
  h.Ok(R"({"op":"heartbeat","machine":"m0","free_slots":1})");
  CHECK(lines.empty());  // agents' events are not audited
  const Caller operator_peer{true, true, 1000, false, 4242};
  h.Ok(R"({"op":"machine_drain","machine":"m0","drain":false})", operator_peer);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        R"(audit op=machine_drain machine="m0" drain=false socket=control uid=1000 pid=4242 )"
        "result=ok");
  h.Send(R"({"op":"job_cancel","job":"j"})", Caller{false, false, 1001, false, 77});
  CHECK(lines.back() ==
        R"(audit op=job_cancel job="j" socket=event uid=1001 pid=77 result=permission_denied)");
  Caller tcp{true, true, 0};
  tcp.address = "127.0.0.1:40312";
  h.Send(R"({"op":"machine_down","machine":"m0"})", tcp);
  CHECK(lines.back() ==
        R"(audit op=machine_down machine="m0" socket=tcp-control address=127.0.0.1:40312 )"
        "result=ok");
  // Row by row: each admin op of the command table, run or refused, is one line; no
  // other op is audited, and replayed records are not.
  for (const CommandSpec& spec : CommandTable()) {
    INFO(spec.name);
    const size_t before = lines.size();
    const bool control = (spec.flags & kControlSocket) != 0;
    h.Send(MinimalRequest(spec), Caller{control, true, 5, false, 6});
    h.Send(MinimalRequest(spec), Caller::Journal());
    REQUIRE(lines.size() == before + (spec.access == Access::kAdmin ? 1 : 0));
    if (spec.access != Access::kAdmin) continue;
    CHECK(lines.back().rfind("audit op=" + std::string(spec.name) + " ", 0) == 0);
    CHECK(lines.back().find(" uid=5 pid=6 result=") != std::string::npos);
  }
}

}  // namespace
TEST_CASE("scheduler.job_order auto is srpt for late binding and fair for the others") {
  const std::pair<PolicyKind, JobOrder> cases[] = {{PolicyKind::kLateBinding, JobOrder::kSrpt},
                                                   {PolicyKind::kDelay, JobOrder::kFair},
                                                   {PolicyKind::kFair, JobOrder::kFair}};
  for (const auto& [kind, order] : cases) {
    CAPTURE(PolicyKindName(kind));
    Config c;
    c.scheduler.policy = kind;
    Harness h(c);
    CHECK(h.engine.scheduler().params().job_order == order);
  }
  Config c;
  c.scheduler.policy = PolicyKind::kDelay;
  c.scheduler.job_order = JobOrder::kSrpt;  // a set order wins over the policy's own
  Harness h(c);
  CHECK(h.engine.scheduler().params().job_order == JobOrder::kSrpt);
}

}  // namespace locsched
