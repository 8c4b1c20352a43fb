// locschedctl: the operator's CLI on locschedd's control socket. Its verbs are
// the control-socket rows of the daemon's command table (plus the aliases
// drain/undrain/cancel, the local verbs watch and completion, and submit, a
// job_submit built from flags for hand tests and sent on the event socket), so
// a command added to the table appears here with its fields and help, unchanged.
#include <unistd.h>

#include <sys/stat.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/suggest.h"
#include "config/config_loader.h"
#include "io/wire/client.h"
#include "io/wire/command_table.h"
#include "tools/ctl/render.h"

namespace locsched {
namespace {

using nlohmann::json;

// Exit codes (also in --help and docs/operations.md).
constexpr int kExitRefused = 1;        // the daemon answered with an error
constexpr int kExitUsage = 2;          // bad command line
constexpr int kExitUnavailable = 69;   // the daemon is not running or not reachable
constexpr int kExitNoPermission = 77;  // the socket or the admin command is not allowed

struct Options {
  std::string socket, config;
  bool json = false;
  double timeout = 10;
  double interval = 2;
  uint64_t count = 0;  // watch: refreshes before exiting, 0 = until interrupted
};

// One verb: the command it sends, the values the user gave per field, fixed fields.
struct Verb {
  const CommandSpec* spec = nullptr;
  std::map<std::string, std::string> values;
  json fixed = json::object();
  std::map<std::string, const CLI::Option*> switches;  // true/false fields: --field alone is true
};

struct CtlError {
  int code;
  std::string message;
};

// The socket at config `key` (sockets.control_path or sockets.event_path): the config
// file's, else the built-in default `path`.
std::string ConfigSocket(const Options& o, const char* key, std::string path) {
  const std::string file = o.config.empty() ? "/etc/locsched/locsched.toml" : o.config;
  struct stat st {};
  // Only the socket path is read: a file the daemon would refuse (say, before a reload
  // that the daemon then refuses and explains) must not stop locschedctl.
  if (!o.config.empty() || stat(file.c_str(), &st) == 0) {
    if (Status s = ReadConfigString(file, key, &path); !s.ok())
      throw CtlError{kExitUsage, s.message()};
  }
  return path;
}

// The control socket: --socket, else the config file's, else the built-in default.
std::string SocketPath(const Options& o) {
  if (!o.socket.empty()) return o.socket;
  return ConfigSocket(o, "sockets.control_path", Config{}.sockets.control_path);
}

json FieldValue(const FieldSpec& f, const std::string& text) {
  const std::string name(f.name);
  try {
    switch (f.type) {
      case FieldType::kCount:
      case FieldType::kPositive:
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          throw std::invalid_argument("not a whole number");
        return std::stoull(text);
      case FieldType::kNumber:
        return std::stod(text);
      case FieldType::kBool:
        if (text == "true" || text == "false") return text == "true";
        throw std::invalid_argument("not true or false");
      default:
        return text;
    }
  } catch (const std::exception&) {
    throw CtlError{kExitUsage, name + ": '" + text + "' is not a valid " +
                                   (f.type == FieldType::kBool ? "true/false" : "number")};
  }
}

json BuildRequest(const Verb& v) {
  json req = v.fixed;
  req["op"] = std::string(v.spec->name);
  for (const FieldSpec& f : v.spec->fields) {
    const auto it = v.values.find(std::string(f.name));
    if (it != v.values.end() && !it->second.empty())
      req[std::string(f.name)] = FieldValue(f, it->second);
    else if (const auto sw = v.switches.find(std::string(f.name));
             sw != v.switches.end() && sw->second->count() > 0)
      req[std::string(f.name)] = true;
  }
  return req;
}

// Connects to `path`, locschedd's `socket` ("control" or "event"). A refused connection
// is an exit code: 77 where retrying cannot help (the socket's mode or group, or the
// shared secret of a tcp: address), else 69.
LineClient Connect(const Options& o, const std::string& path, std::string_view socket) {
  LineClient c;
  if (Status s = c.Connect(path, socket); !s.ok()) {
    const bool tcp = path.rfind("tcp:", 0) == 0;
    if (s.code() == Status::Code::kPermissionDenied)
      throw CtlError{kExitNoPermission, tcp ? s.message()
                                            : "permission denied on " + path +
                                                  " (is your user in the socket's group?)"};
    const std::string& m = s.message();
    throw CtlError{kExitUnavailable, tcp ? m
                                         : "locschedd is not running (cannot connect to " + path +
                                               ": " + m.substr(m.rfind(": ") + 2) + ")"};
  }
  c.set_timeout(std::chrono::milliseconds(static_cast<int64_t>(o.timeout * 1000)));
  return c;
}

LineClient Connect(const Options& o) {
  return Connect(o, SocketPath(o), "control");
}

json Call(LineClient& c, const json& req) {
  std::string line;
  if (Status s = c.Call(req.dump(), &line); !s.ok())
    throw CtlError{kExitUnavailable, "no reply from locschedd: " + s.message()};
  json reply = json::parse(line, nullptr, false);
  if (reply.is_discarded()) throw CtlError{kExitUnavailable, "unreadable reply: " + line};
  if (reply.value("ok", false)) return reply;
  const json& e = reply["error"];
  throw CtlError{e.value("code", "") == "permission_denied" ? kExitNoPermission : kExitRefused,
                 e.value("message", std::string("error"))};
}

int RunVerb(const Options& o, const Verb& v) {
  LineClient c = Connect(o);
  const json reply = Call(c, BuildRequest(v));
  if (o.json)
    std::cout << reply.dump() << "\n";
  else
    std::cout << RenderReply(v.spec->name, reply);
  return 0;
}

// submit's flags: one job of --tasks maps and --reduces reduces on --replicas.
struct SubmitOptions {
  std::string job, replicas, id, event_socket;
  uint64_t tasks = 1, reduces = 0;
  double weight = 1, duration = 0;
};

// The event socket: --event-socket; the instances of a tcp: --socket (their listener
// takes events too); else the config file's sockets.event_path.
std::string EventSocketPath(const Options& o, const SubmitOptions& s) {
  if (!s.event_socket.empty()) return s.event_socket;
  if (o.socket.starts_with("tcp:")) return o.socket;
  return ConfigSocket(o, "sockets.event_path", Config{}.sockets.event_path);
}

// --replicas as names; an empty name is a usage error naming the flag.
json ReplicaList(const std::string& text) {
  json names = json::array();
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma - start);
    if (name.empty())
      throw CtlError{kExitUsage,
                     "--replicas: '" + text + "' has an empty machine name (give m1,m2,...)"};
    names.push_back(name);
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

// The job_submit request: maps m0.., then reduces r0.., every task on the same replicas.
json SubmitRequest(const SubmitOptions& s) {
  if (s.tasks + s.reduces == 0) throw CtlError{kExitUsage, "--tasks: the job needs a task"};
  // One request line (limits.max_line_bytes) holds some 20,000 such tasks: a hand test's job.
  if (s.tasks > 100000 || s.reduces > 100000)
    throw CtlError{kExitUsage, "--tasks, --reduces: at most 100000 each in one submit"};
  const json replicas = ReplicaList(s.replicas);
  json tasks = json::array();
  for (uint64_t i = 0; i < s.tasks + s.reduces; ++i) {
    const bool reduce = i >= s.tasks;
    json t = {{"task", (reduce ? "r" : "m") + std::to_string(reduce ? i - s.tasks : i)},
              {"replicas", replicas}};
    if (reduce) t["kind"] = "reduce";
    if (s.duration > 0) t["duration"] = s.duration;
    tasks.push_back(std::move(t));
  }
  json req = {{"op", "job_submit"}, {"job", s.job}, {"weight", s.weight}, {"tasks", tasks}};
  if (!s.id.empty()) req["id"] = s.id;
  return req;
}

int RunSubmit(const Options& o, const SubmitOptions& s) {
  const json req = SubmitRequest(s);
  LineClient c = Connect(o, EventSocketPath(o, s), "event");
  const json reply = Call(c, req);
  if (o.json) {
    std::cout << reply.dump() << "\n";
  } else if (reply.value("duplicate", false)) {
    std::cout << "job " << s.job << ": id " << s.id
              << " was applied before; answered as a duplicate, not submitted again\n";
  } else {
    std::cout << "job " << s.job << " submitted: " << reply.value("tasks", uint64_t{0})
              << " tasks\n";
  }
  return 0;
}

// watch: status and machine queues every interval; the event rate is the request
// counter's growth between refreshes.
int RunWatch(const Options& o) {
  LineClient c = Connect(o);
  double last_requests = -1;
  auto last = std::chrono::steady_clock::now();
  for (uint64_t i = 0; o.count == 0 || i < o.count; ++i) {
    const json status = Call(c, {{"op", "status"}});
    const json queues = Call(c, {{"op", "machine_queues"}, {"top", 5}});
    const auto now = std::chrono::steady_clock::now();
    const double requests = status["daemon"]["requests"].get<double>();
    const double dt = std::chrono::duration<double>(now - last).count();
    const double rate = last_requests < 0 || dt <= 0 ? 0 : (requests - last_requests - 2) / dt;
    last_requests = requests;
    last = now;
    if (isatty(STDOUT_FILENO)) std::cout << "\x1b[H\x1b[2J";
    std::cout << RenderWatch(status, queues, std::max(rate, 0.0)) << std::flush;
    if (o.count == 0 || i + 1 < o.count)
      std::this_thread::sleep_for(std::chrono::duration<double>(o.interval));
  }
  return 0;
}

// A bash completion script listing every verb and its options, from the table.
std::string Completion(const std::vector<std::pair<std::string, std::vector<std::string>>>& verbs) {
  std::string words, cases;
  for (const auto& [verb, opts] : verbs) {
    words += verb + " ";
    std::string flags;
    for (const std::string& f : opts) flags += f + " ";
    cases += "    " + verb + ") opts=\"" + flags + "--json --socket --help\" ;;\n";
  }
  return "# bash completion for locschedctl (generated from the command table)\n"
         "_locschedctl() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} verb=${COMP_WORDS[1]} opts\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"" +
         words +
         "\" -- \"$cur\")); return\n"
         "  fi\n"
         "  case \"$verb\" in\n" +
         cases +
         "    *) opts=\"--json --socket --help\" ;;\n"
         "  esac\n"
         "  COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "}\n"
         "complete -F _locschedctl locschedctl\n";
}

}  // namespace
}  // namespace locsched

namespace locsched {
namespace {

using VerbList = std::vector<std::pair<std::string, std::vector<std::string>>>;

// Adds one CLI verb for `spec`: required fields are positional, the rest --field.
CLI::App* AddVerb(CLI::App& app, const std::string& name, const std::string& help, Verb& v,
                  VerbList* verbs) {
  CLI::App* sub = app.add_subcommand(name, help);
  std::vector<std::string> flags;
  for (const FieldSpec& f : v.spec->fields) {
    if (v.fixed.contains(std::string(f.name))) continue;
    std::string& value = v.values[std::string(f.name)];
    if (f.required) {
      sub->add_option(std::string(f.name), value, std::string(f.help))->required();
    } else {
      CLI::Option* opt = sub->add_option("--" + std::string(f.name), value, std::string(f.help));
      if (f.type == FieldType::kBool)
        v.switches[std::string(f.name)] = opt->expected(0, 1)->type_name("[true|false]");
      flags.push_back("--" + std::string(f.name));
    }
  }
  verbs->emplace_back(name, flags);
  return sub;
}

// The verbs: every control-socket command, then machine_undrain.
void AddVerbs(CLI::App& app, std::deque<Verb>& store, std::map<CLI::App*, Verb*>& by_sub,
              VerbList* verbs) {
  for (const CommandSpec& spec : CommandTable()) {
    if (!(spec.flags & kControlSocket)) continue;
    Verb& v = store.emplace_back(Verb{&spec, {}, json::object(), {}});
    std::string help(spec.summary);
    if (spec.access == Access::kAdmin) help += " (admin)";
    by_sub[AddVerb(app, std::string(spec.name), help, v, verbs)] = &v;
  }
  struct Alias {
    const char* name;
    Op op;
    json fixed;
    const char* help;
  };
  const Alias aliases[] = {
      {"machine_undrain",
       Op::kMachineDrain,
       {{"drain", false}},
       "let MACHINE take tasks again (machine_drain --drain false) (admin)"},
  };
  for (const Alias& a : aliases) {
    Verb& v = store.emplace_back(Verb{&SpecOf(a.op), {}, a.fixed, {}});
    by_sub[AddVerb(app, a.name, a.help, v, verbs)] = &v;
  }
}

// submit: a job from flags, for hand tests (not a row of the table: job_submit is an
// event-socket command).
CLI::App* AddSubmit(CLI::App& app, SubmitOptions& s, VerbList* verbs) {
  CLI::App* sub = app.add_subcommand(
      "submit",
      "send a job built from flags, for hand tests, on the event socket (--event-socket, else "
      "the tcp: instances of --socket, else the config file's sockets.event_path)");
  sub->add_option("job", s.job, "the job's name")->required();
  sub->add_option("--replicas", s.replicas,
                  "comma-separated machines holding every task's input, e.g. m1,m2")
      ->required();
  sub->add_option("--tasks", s.tasks, "map tasks, named m0, m1, ...")->capture_default_str();
  sub->add_option("--reduces", s.reduces,
                  "reduce tasks, named r0, r1, ..., runnable once every map is done")
      ->capture_default_str();
  sub->add_option("--weight", s.weight, "the job's weight")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--duration", s.duration, "each task's expected seconds (default: none)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--id", s.id,
                  "request id: a resend with the same id is answered as a duplicate and not "
                  "applied twice (default: none)");
  sub->add_option("--event-socket", s.event_socket, "locschedd's event socket");
  verbs->emplace_back("submit",
                      std::vector<std::string>{"--replicas", "--tasks", "--reduces", "--weight",
                                               "--duration", "--id", "--event-socket"});
  return sub;
}

// Earlier spellings of verbs, still accepted (after '-' became '_').
constexpr std::pair<std::string_view, std::string_view> kOldVerbs[] = {
    {"drain", "machine_drain"}, {"undrain", "machine_undrain"}, {"cancel", "job_cancel"}};

// The index of the verb in args (0: none): the first word that is not an option or the
// value of one of the main options that take a value.
size_t VerbIndex(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-s" || a == "--socket" || a == "-c" || a == "--config" || a == "--timeout") {
      ++i;
    } else if (a.empty() || a[0] != '-') {
      return i;
    }
  }
  return 0;
}

// One name per verb: '-' and '_' are the same, earlier spellings map to theirs, and an
// unknown verb gets the closest known one as a hint (CtlError, exit 2).
void NormalizeVerb(const VerbList& verbs, std::vector<std::string>* args) {
  const size_t i = VerbIndex(*args);
  if (i == 0) return;
  std::string& verb = (*args)[i];
  std::replace(verb.begin(), verb.end(), '-', '_');
  for (const auto& [old_name, name] : kOldVerbs)
    if (verb == old_name) verb = name;
  if (IsRetiredQueuesOp(verb)) throw CtlError{kExitUsage, std::string(kQueuesSplit)};
  std::vector<std::string_view> names;
  for (const auto& v : verbs) {
    if (v.first == verb) return;
    names.push_back(v.first);
  }
  const std::string_view hint = SuggestName(verb, names);
  throw CtlError{kExitUsage,
                 "unknown command '" + verb + "'" +
                     (hint.empty() ? "" : " (did you mean '" + std::string(hint) + "'?)") +
                     "; locschedctl --help lists them"};
}

// The CLI's own verbs (aliases, watch, completion): help shows their --help text.
bool IsLocalVerb(const VerbList& verbs, const std::string& name) {
  const CommandSpec* spec = FindCommand(name);
  if (spec && (spec->flags & kControlSocket)) return false;
  return std::any_of(verbs.begin(), verbs.end(), [&](const auto& v) { return v.first == name; });
}

// The daemon's command list cut to the verbs this CLI runs, then its own verbs.
json CliCommands(const json& commands, CLI::App& app, const VerbList& verbs) {
  json listed = json::array();
  for (const json& cmd : commands)
    if (std::find(cmd["sockets"].begin(), cmd["sockets"].end(), "control") != cmd["sockets"].end())
      listed.push_back(cmd);
  for (const auto& [verb, flags] : verbs)
    if (IsLocalVerb(verbs, verb))
      listed.push_back(
          {{"command", verb}, {"summary", app.get_subcommand(verb)->get_description()}});
  return listed;
}

// help: the daemon's commands cut to the verbs this CLI runs, then its own verbs; or one
// verb: a daemon command's fields, a local verb's --help. An agent's command (event
// socket only) is described too, saying that the CLI does not send it.
int RunHelp(const Options& o, const Verb& v, CLI::App& app, const VerbList& verbs) {
  std::string name = v.values.at("command");
  std::replace(name.begin(), name.end(), '-', '_');
  for (const auto& [old_name, new_name] : kOldVerbs)
    if (name == old_name) name = new_name;
  if (IsRetiredQueuesOp(name)) throw CtlError{kExitUsage, std::string(kQueuesSplit)};
  if (!name.empty() && IsLocalVerb(verbs, name)) {
    std::cout << app.get_subcommand(name)->help();
    return 0;
  }
  const CommandSpec* spec = name.empty() ? nullptr : FindCommand(name);
  if (!name.empty() && !spec) {
    std::vector<std::string_view> names;
    for (const auto& verb : verbs) names.push_back(verb.first);
    const std::string_view hint = SuggestName(name, names);
    throw CtlError{kExitUsage,
                   "'" + name + "' is not a locschedctl command" +
                       (hint.empty() ? "" : " (did you mean '" + std::string(hint) + "'?)") +
                       "; locschedctl help lists them"};
  }
  LineClient c = Connect(o);
  json req = {{"op", "help"}};
  if (spec) req["command"] = name;
  json reply = Call(c, req);
  if (o.json) {
    std::cout << reply.dump() << "\n";
    return 0;
  }
  if (reply.contains("commands")) reply["commands"] = CliCommands(reply["commands"], app, verbs);
  std::cout << RenderReply("help", reply);
  if (spec && !(spec->flags & kControlSocket))
    std::cout << "\n(not a locschedctl verb: agents send " << name
              << " on the event socket; see docs/protocol.md)\n";
  return 0;
}

// `--sort -field` sorts descending: joined into `--sort=-field` so the parser does not take
// the value for an option.
void JoinSortValues(std::vector<std::string>* args) {
  for (size_t i = 0; i + 1 < args->size(); ++i)
    if ((*args)[i] == "--sort" && (*args)[i + 1].size() > 1 && (*args)[i + 1][0] == '-' &&
        (*args)[i + 1][1] != '-') {
      (*args)[i] += "=" + (*args)[i + 1];
      args->erase(args->begin() + static_cast<ptrdiff_t>(i) + 1);
    }
}

int Main(int argc, char** argv) {
  CLI::App app{"locschedctl: inspect and steer a running locschedd over its control socket.",
               "locschedctl"};
  app.footer(
      "Each verb has its own --help. See docs/operations.md (installed in "
      "share/doc/locsched/docs/).\n\n"
      "Exit codes:\n"
      "  0    ok\n"
      "  1    the daemon refused the request (the message says why)\n"
      "  2    bad command line\n"
      "  69   locschedd is not running or not reachable\n"
      "  77   permission denied (the socket, an admin command, or with tcp: the shared\n"
      "       secret: $LOCSCHED_SECRET_FILE unset, its file unreadable, or refused)");
  app.require_subcommand(1);
  app.fallthrough();  // `locschedctl status --json` as well as `locschedctl --json status`
  Options o;
  app.add_option(
      "-s,--socket", o.socket,
      "control socket (default: from the config file), or tcp:HOST:PORT,... the "
      "instances of a high-availability cluster ($LOCSCHED_SECRET_FILE holds its secret)");
  app.add_option("-c,--config", o.config,
                 "config file to read the socket path from (default /etc/locsched/locsched.toml)");
  app.add_flag("--json", o.json, "print the daemon's JSON reply instead of a table");
  app.add_option("--timeout", o.timeout, "seconds to wait for a reply")->check(CLI::PositiveNumber);
  std::deque<Verb> store;
  std::map<CLI::App*, Verb*> by_sub;
  VerbList verbs;
  AddVerbs(app, store, by_sub, &verbs);
  Verb* help = nullptr;  // `help X` as well as `help --command X`
  for (const auto& [sub, verb] : by_sub) {
    if (verb->spec->op != Op::kHelp) continue;
    help = verb;
    sub->add_option("COMMAND", verb->values["command"], "a command to describe (default: all)");
  }
  for (const auto& [sub, verb] : by_sub)  // `queue NAME` as well as `queue --queue NAME`
    if (verb->spec->op == Op::kQueue)
      sub->add_option("NAME", verb->values["queue"], "one tenant queue (default: all)");
  CLI::App* watch =
      app.add_subcommand("watch", "a live view of status and machine queues, like top");
  watch->add_option("-n,--interval", o.interval, "seconds between refreshes")
      ->check(CLI::PositiveNumber);
  watch->add_option("--count", o.count, "refreshes before exiting (default: until Ctrl-C)");
  verbs.emplace_back("watch", std::vector<std::string>{"--interval", "--count"});
  SubmitOptions so;
  CLI::App* submit = AddSubmit(app, so, &verbs);
  CLI::App* completion = app.add_subcommand("completion", "print the bash completion script");
  verbs.emplace_back("completion", std::vector<std::string>{});
  app.set_version_flag("--version", std::string("locschedctl ") + LOCSCHED_VERSION);
  std::vector<std::string> args(argv, argv + argc);
  try {
    NormalizeVerb(verbs, &args);
    JoinSortValues(&args);
  } catch (const CtlError& e) {
    std::cerr << "locschedctl: " << e.message << "\n";
    return e.code;
  }
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  try {
    app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  try {
    if (completion->parsed()) {
      std::cout << Completion(verbs);
      return 0;
    }
    if (watch->parsed()) return RunWatch(o);
    if (submit->parsed()) return RunSubmit(o, so);
    for (const auto& [sub, verb] : by_sub)
      if (sub->parsed()) return verb == help ? RunHelp(o, *verb, app, verbs) : RunVerb(o, *verb);
  } catch (const CtlError& e) {
    std::cerr << "locschedctl: " << e.message << "\n";
    return e.code;
  }
  return kExitUsage;
}

}  // namespace
}  // namespace locsched

int main(int argc, char** argv) {
  return locsched::Main(argc, argv);
}
