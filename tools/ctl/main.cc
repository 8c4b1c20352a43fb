// locschedctl: the operator's CLI on locschedd's control socket. Its verbs are
// the control-socket rows of the daemon's command table (plus the aliases
// drain/undrain/cancel and the local verbs watch and completion), so a command
// added to the table appears here with its fields and help, unchanged.
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

// The control socket: --socket, else the config file's, else the built-in default.
std::string SocketPath(const Options& o) {
  if (!o.socket.empty()) return o.socket;
  Config cfg;
  const std::string file = o.config.empty() ? "/etc/locsched/locsched.toml" : o.config;
  struct stat st {};
  std::string path = cfg.sockets.control_path;
  // Only the socket path is read: a file the daemon would refuse (say, before a reload
  // that the daemon then refuses and explains) must not stop locschedctl.
  if (!o.config.empty() || stat(file.c_str(), &st) == 0) {
    if (Status s = ReadConfigString(file, "sockets.control_path", &path); !s.ok())
      throw CtlError{kExitUsage, s.message()};
  }
  return path;
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

LineClient Connect(const Options& o) {
  const std::string path = SocketPath(o);
  LineClient c;
  if (Status s = c.Connect(path, "control"); !s.ok()) {
    const std::string& m = s.message();
    if (m.find("ermission denied") != std::string::npos)
      throw CtlError{kExitNoPermission,
                     "permission denied on " + path + " (is your user in the socket's group?)"};
    throw CtlError{kExitUnavailable, "locschedd is not running (cannot connect to " + path + ": " +
                                         m.substr(m.rfind(": ") + 2) + ")"};
  }
  c.set_timeout(std::chrono::milliseconds(static_cast<int64_t>(o.timeout * 1000)));
  return c;
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

// watch: status and queues every interval; the event rate is the request
// counter's growth between refreshes.
int RunWatch(const Options& o) {
  LineClient c = Connect(o);
  double last_requests = -1;
  auto last = std::chrono::steady_clock::now();
  for (uint64_t i = 0; o.count == 0 || i < o.count; ++i) {
    const json status = Call(c, {{"op", "status"}});
    const json queues = Call(c, {{"op", "queues"}, {"top", 5}});
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
      "Each verb has its own --help. See docs/operations.md.\n\n"
      "Exit codes:\n"
      "  0    ok\n"
      "  1    the daemon refused the request (the message says why)\n"
      "  2    bad command line\n"
      "  69   locschedd is not running or not reachable\n"
      "  77   permission denied (the socket, or an admin command)");
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
  CLI::App* watch = app.add_subcommand("watch", "a live view of status and queues, like top");
  watch->add_option("-n,--interval", o.interval, "seconds between refreshes")
      ->check(CLI::PositiveNumber);
  watch->add_option("--count", o.count, "refreshes before exiting (default: until Ctrl-C)");
  verbs.emplace_back("watch", std::vector<std::string>{"--interval", "--count"});
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
    for (const auto& [sub, verb] : by_sub)
      if (sub->parsed()) return RunVerb(o, *verb);
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
