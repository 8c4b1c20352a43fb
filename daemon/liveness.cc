#include "daemon/liveness.h"

#include <spdlog/spdlog.h>

#include "io/wire/json_writer.h"

namespace locsched {

namespace {

std::string MachineLostLine(const std::string& machine) {
  std::string line;
  JsonWriter(&line).BeginObject().Field("op", "machine_lost").Field("machine", machine).EndObject();
  return line;
}

std::string TimedOutLine(const Engine::RunningTask& t) {
  std::string line;
  JsonWriter(&line)
      .BeginObject()
      .Field("op", "task_failed")
      .Field("job", t.job)
      .Field("task", t.task)
      .Field("machine", t.machine)
      .Field("reason", "timed out: ran past scheduler.task_timeout_s")
      .EndObject();
  return line;
}

}  // namespace

Liveness::Liveness(Dispatcher& dispatcher, const Config& cfg) : dispatcher_(dispatcher) {
  ApplyConfig(cfg);
}

void Liveness::ApplyConfig(const Config& cfg) {
  // Silence is a wall-clock matter (a killed agent, a cut network) whatever the workload's
  // speed; a task's length is the workload's, so its timeout runs workload_speed times faster.
  expiry_s_ = cfg.machines.expiry_s;
  task_timeout_s_ = cfg.scheduler.task_timeout_s / cfg.scheduler.workload_speed;
}

size_t Liveness::Check(bool may_write) {
  Engine& engine = dispatcher_.engine();
  if (!may_write) {
    armed_ = false;
    return 0;
  }
  if (!armed_) {
    engine.HearAll();
    armed_ = true;
    return 0;
  }
  const double now = engine.Now();
  size_t sent = 0;
  if (expiry_s_ > 0)
    for (const std::string& m : engine.SilentSince(now - expiry_s_))
      sent += Send(MachineLostLine(m));
  if (task_timeout_s_ > 0)
    for (const Engine::RunningTask& t : engine.StartedBefore(now - task_timeout_s_))
      sent += Send(TimedOutLine(t));
  return sent;
}

// An event refused (the journal unavailable, say) is tried again at the next check.
size_t Liveness::Send(const std::string& line) {
  std::string reply;
  dispatcher_.HandleLine(line, Caller::Daemon(), &reply);
  if (reply.rfind("{\"ok\":true", 0) == 0) return 1;
  spdlog::error("liveness: {} was refused: {}", line, reply.substr(0, reply.size() - 1));
  return 0;
}

}  // namespace locsched
