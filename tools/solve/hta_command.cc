// locsched-solve hta: Fischer, Su and Yin's Hadoop task assignment on a JSON
// instance file (docs/hta.md): Algorithm 2 (flow), Algorithm 1 (round-robin) or
// the GLPK optimum (exact). Reads the file, validates it with field paths,
// solves, prints text or one JSON object. Single-threaded CLI code.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/hta/hta_exact.h"
#include "algorithms/hta/hta_flow.h"
#include "algorithms/hta/hta_instance.h"
#include "algorithms/hta/hta_lower_bound.h"
#include "algorithms/hta/round_robin.h"
#include "base/status.h"
#include "tools/solve/solve_command.h"

namespace locsched {

int RunHta(int argc, char** argv);

namespace {

using nlohmann::json;

constexpr int64_t kMaxServers = 1'000'000;  // a sanity cap before allocating per-server arrays

struct HtaOptions {
  std::string instance;
  std::string algorithm = "flow";
  bool json = false;
  int time_limit_ms = 20000;  // per GLPK MIP (exact only)
};

Status ReadText(const std::string& path, std::string* text) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IoError(path, "cannot open the instance file");
    buffer << in.rdbuf();
  }
  *text = buffer.str();
  return Status::Ok();
}

// A JSON integer as int64 (false if it is not an integer or does not fit).
bool AsInteger(const json& v, int64_t* out) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return true;
  }
  if (!v.is_number_integer()) return false;
  *out = v.get<int64_t>();
  return true;
}

Status ParseCosts(const json& j, HtaCosts* costs) {
  if (j.contains("w_loc")) {
    if (!j["w_loc"].is_number()) return Status::InvalidArgument("w_loc", "expected a number");
    costs->w_loc = j["w_loc"].get<double>();
  }
  if (!j.contains("w_rem"))
    return Status::InvalidArgument("w_rem", "missing (a number, or a table [w_rem(0), ...])");
  const json& w = j["w_rem"];
  costs->w_rem.clear();
  if (w.is_number()) {
    costs->w_rem.push_back(w.get<double>());
  } else if (w.is_array()) {
    for (size_t r = 0; r < w.size(); ++r) {
      if (!w[r].is_number())
        return Status::InvalidArgument("w_rem[" + std::to_string(r) + "]", "expected a number");
      costs->w_rem.push_back(w[r].get<double>());
    }
  } else {
    return Status::InvalidArgument("w_rem", "expected a number or an array of numbers");
  }
  return Status::Ok();
}

// Replica ids outside [0, servers) are kept (clamped into int) for the model's
// own range check, which names the field.
Status ParseTasks(const json& j, int servers, std::vector<std::vector<int>>* tasks) {
  if (!j.contains("tasks")) return Status::InvalidArgument("tasks", "missing");
  const json& list = j["tasks"];
  if (!list.is_array()) return Status::InvalidArgument("tasks", "expected an array of arrays");
  tasks->resize(list.size());
  for (size_t t = 0; t < list.size(); ++t) {
    const std::string path = "tasks[" + std::to_string(t) + "]";
    if (!list[t].is_array())
      return Status::InvalidArgument(path, "expected an array of server ids");
    for (size_t i = 0; i < list[t].size(); ++i) {
      int64_t s;
      if (!AsInteger(list[t][i], &s))
        return Status::InvalidArgument(path + "[" + std::to_string(i) + "]",
                                       "expected a server id (an integer)");
      if (s < 0 || s >= servers)
        return Status::InvalidArgument(
            path + "[" + std::to_string(i) + "]",
            "server " + std::to_string(s) + " out of range [0, " + std::to_string(servers) + ")");
      (*tasks)[t].push_back(static_cast<int>(s));
    }
  }
  return Status::Ok();
}

Status ParseInstance(const std::string& text, HtaInstance* in) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return Status::InvalidArgument("(json)", e.what());
  }
  if (!j.is_object()) return Status::InvalidArgument("(root)", "expected a JSON object");
  for (const auto& item : j.items())
    if (item.key() != "servers" && item.key() != "w_loc" && item.key() != "w_rem" &&
        item.key() != "tasks")
      return Status::InvalidArgument(item.key(),
                                     "unknown key (expected servers, w_loc, w_rem, tasks)");
  int64_t servers;
  if (!j.contains("servers")) return Status::InvalidArgument("servers", "missing");
  if (!AsInteger(j["servers"], &servers))
    return Status::InvalidArgument("servers", "expected an integer");
  if (servers < 1 || servers > kMaxServers)
    return Status::InvalidArgument("servers",
                                   "must be in [1, " + std::to_string(kMaxServers) + "]");
  in->servers = static_cast<int>(servers);
  if (Status s = ParseCosts(j, &in->costs); !s.ok()) return s;
  if (Status s = ParseTasks(j, in->servers, &in->tasks); !s.ok()) return s;
  return ValidateHtaInstance(*in);
}

// The solver's answer in one shape for all three algorithms.
struct Answer {
  std::vector<int> assignment;
  json extra = json::object();  // algorithm-specific figures
};

// Runs the chosen algorithm; exit code 0 ok, 1 solver failure, 2 input too large.
int Solve(const HtaOptions& o, const HtaInstance& in, Answer* out) {
  if (o.algorithm == "flow") {
    HtaSolution s = SolveHtaFlow(in);
    out->assignment = std::move(s.assignment);
    out->extra = {{"tau", s.tau}, {"iterations", s.iterations}};
  } else if (o.algorithm == "round-robin") {
    out->assignment = RoundRobin(in);
  } else {
    HtaExact exact;
    const Status s = SolveHtaExact(in, &exact, o.time_limit_ms);
    if (!s.ok()) {
      std::fprintf(stderr, "locsched-solve hta: %s\n", s.message().c_str());
      return s.subject() == "tasks" ? 2 : 1;
    }
    out->assignment = std::move(exact.assignment);
    out->extra = {{"optimal", true}, {"min_remote_tasks", exact.min_remote}};
  }
  return 0;
}

void Print(const HtaOptions& o, const HtaInstance& in, const Answer& a, double seconds) {
  const HtaLoads loads = EvaluateAssignment(in, a.assignment);
  const double lower_bound = HtaLowerBound(in);
  const double w_rem = in.costs.Remote(static_cast<size_t>(loads.remote_tasks));
  if (o.json) {
    json out = {{"algorithm", o.algorithm},
                {"servers", in.servers},
                {"tasks", in.tasks.size()},
                {"max_load", loads.max_load},
                {"local_tasks", loads.local_tasks},
                {"remote_tasks", loads.remote_tasks},
                {"w_rem", w_rem},
                {"lower_bound", lower_bound},
                {"assignment", a.assignment},
                {"loads", loads.loads},
                {"seconds", seconds}};
    out.update(a.extra);
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  const size_t m = in.tasks.size();
  std::printf("hta %s: %zu tasks on %d servers\n", o.algorithm.c_str(), m, in.servers);
  std::printf("  max load     %g (lower bound %g)\n", loads.max_load, lower_bound);
  std::printf("  local tasks  %d of %zu (%.1f%%)\n", loads.local_tasks, m,
              m == 0 ? 100.0 : 100.0 * loads.local_tasks / static_cast<double>(m));
  std::printf("  remote tasks %d, each costing w_rem(%d) = %g\n", loads.remote_tasks,
              loads.remote_tasks, w_rem);
  for (const auto& item : a.extra.items())
    std::printf("  %-12s %s\n", item.key().c_str(), item.value().dump().c_str());
  std::printf("  solved in    %.3f s\n", seconds);
}

constexpr const char* kHelpFooter =
    "Instance (JSON): {\"servers\": n, \"w_loc\": 1, \"w_rem\": 3 or [w_rem(0), w_rem(1), ...],\n"
    "                  \"tasks\": [[server ids holding task 0's data], ...]}\n"
    "  w_loc defaults to 1; w_rem(r) is what each remote task costs when r tasks are\n"
    "  remote (past the table's end: its last entry); it must be nondecreasing and\n"
    "  >= w_loc. Every task needs at least one server; ids are 0..n-1. FILE - is stdin.\n"
    "Algorithms: flow (Algorithm 2: max-cover + bal-assign; within (1-1/(n-1))*w_rem\n"
    "  of optimal when w_rem > w_loc), round-robin (Algorithm 1, the Hadoop-like\n"
    "  baseline), exact (GLPK MIP; at most 400 task x server pairs, --time-limit per MIP).\n"
    "Output: max_load, local_tasks, remote_tasks, lower_bound, assignment (server per\n"
    "  task, input order), loads (per server); --json prints them as one object.\n"
    "Exit codes: 0 ok, 1 solver failure (exact timed out), 2 usage or input error.\n"
    "See docs/hta.md.";

}  // namespace

int RunHta(int argc, char** argv) {
  CLI::App app{
      "locsched-solve hta: assign tasks to servers minimizing the maximum load\n"
      "(Fischer, Su and Yin's Hadoop task assignment model).",
      "locsched-solve hta"};
  HtaOptions o;
  app.add_option("--instance", o.instance, "instance file (JSON, see below; - for stdin)")
      ->required();
  app.add_option("--algorithm", o.algorithm, "flow (default), round-robin or exact")
      ->check(CLI::IsMember({"flow", "round-robin", "exact"}));
  app.add_flag("--json", o.json, "print one JSON object instead of text");
  app.add_option("--time-limit", o.time_limit_ms,
                 "exact: milliseconds GLPK may spend on each MIP (default 20000); past it, exit 1")
      ->check(CLI::Range(1, 3'600'000));
  app.footer(kHelpFooter);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "locsched-solve hta: %s\nRun 'locsched-solve hta --help'.\n", e.what());
    return 2;
  }
  std::string text;
  HtaInstance in;
  Status s = ReadText(o.instance, &text);
  if (s.ok()) s = ParseInstance(text, &in);
  if (!s.ok()) {
    if (s.code() == Status::Code::kIoError)  // the message names the file already
      std::fprintf(stderr, "locsched-solve hta: %s\n", s.message().c_str());
    else
      std::fprintf(stderr, "locsched-solve hta: %s: %s\n", o.instance.c_str(), s.message().c_str());
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  Answer answer;
  if (int rc = Solve(o, in, &answer); rc != 0) return rc;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Print(o, in, answer, seconds);
  return 0;
}

}  // namespace locsched
