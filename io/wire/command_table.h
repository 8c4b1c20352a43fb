// CommandTable: every operation of the wire protocol, as data: its name, the
// sockets that accept it, who may run it (its access rule), its flags, its
// fields with types, and a one-line summary. The request decoder, the daemon's dispatcher and
// `help`, and locschedctl's verbs and completion all read this one table, so
// they cannot drift. Immutable; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace locsched {

/// The operations, in table order.
enum class Op : uint8_t {
  kMachineUp,
  kMachineDown,
  kMachineDrain,
  kJobSubmit,
  kHeartbeat,
  kTaskStarted,
  kTaskDone,
  kTaskFailed,
  kJobCancel,
  kStatus,
  kMachineQueues,
  kJobs,
  kJob,
  kMachines,
  kHelp,
  kMetrics,
  kReload,
  kSnapshot,
  kRebalance,
  kResolveLp,
  kTaskAdd,
  kMachineLost,
  kQueue,
  kTaskPreempted,
};

/// How many ops there are (the command table has one row each, in Op order).
inline constexpr size_t kOpCount = static_cast<size_t>(Op::kTaskPreempted) + 1;

/// The JSON type a field must have.
enum class FieldType : uint8_t {
  kName,      ///< a non-empty string (machine, job or task name)
  kString,    ///< any string
  kCount,     ///< an integer >= 0
  kPositive,  ///< an integer >= 1
  kNumber,    ///< a finite number >= 0
  kBool,      ///< true or false
  kKind,      ///< "map" or "reduce"
  kNames,     ///< an array of names
  kTasks,     ///< an array of task objects (job_submit)
};

struct FieldSpec {
  std::string_view name;
  FieldType type;
  bool required;
  std::string_view help;
};

/// Flags of a command.
enum CommandFlags : uint32_t {
  kMutating = 1u << 0,       ///< changes scheduling state; journaled; may carry an "id"
  kEventSocket = 1u << 2,    ///< accepted on the event socket (agents, tailer)
  kControlSocket = 1u << 3,  ///< accepted on the control socket (locschedctl)
};

/// Who may run a command, whatever socket it arrives on (the socket flags say
/// where it is accepted at all).
enum class Access : uint8_t {
  kRead,   ///< any peer that can connect: read-only views
  kEvent,  ///< any peer that can connect to the event socket: cluster events
  kAdmin,  ///< an authorized peer only: root, the daemon's user, or a member of
           ///< sockets.control_group (supplementary groups count)
};

/// The access rule's name as the docs and `help` write it ("read", "event", "admin").
std::string_view AccessName(Access a);

struct CommandSpec {
  std::string_view name;
  Op op;
  uint32_t flags;
  Access access;
  std::span<const FieldSpec> fields;
  std::string_view summary;
};

/// Every command, in Op order.
std::span<const CommandSpec> CommandTable();
/// The command named `name`, or nullptr.
const CommandSpec* FindCommand(std::string_view name);
/// The spec of op.
const CommandSpec& SpecOf(Op op);
/// The answer to the retired op `queues` (op, CLI verb and HTTP route alike): the word
/// was split between the policies' per-machine queues and the tenant queues.
inline constexpr std::string_view kQueuesSplit =
    "`queues` was split: per-machine queues are `machine_queues`, tenant queues are `queue`";
/// True for the retired op name `queues` (answered with kQueuesSplit, never with data).
inline bool IsRetiredQueuesOp(std::string_view name) {
  return name == "queues";
}
/// The closest command name to `name` by SuggestName's rule, or "" if none is close.
std::string_view SuggestCommand(std::string_view name);
/// The fields of task objects inside job_submit's "tasks".
std::span<const FieldSpec> TaskFields();
/// A field named `name` in `fields`, or nullptr.
const FieldSpec* FindField(std::span<const FieldSpec> fields, std::string_view name);

}  // namespace locsched
