// Request: one decoded line of the wire protocol, and DecodeRequest, which
// turns a JSON line into it using the CommandTable. Every rejection is a
// Status naming the offending field by its path ("tasks[2].replicas[0]").
// Pure: called by connections on the event-loop thread; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/core/cluster.h"
#include "base/status.h"
#include "io/wire/command_table.h"

namespace locsched {

/// A task inside job_submit.
struct TaskRequest {
  std::string task;
  std::vector<std::string> replicas;
  TaskKind kind = TaskKind::kMap;
  double size = 0;
  double duration = 0;
  /// Field by field (tests compare the decoder's two paths).
  bool operator==(const TaskRequest&) const = default;
};

/// A decoded request; fields the op does not use keep their defaults.
struct Request {
  Op op = Op::kStatus;
  bool has_id = false;        ///< the request carried an "id" (mutating ops are deduplicated by it)
  std::string id;             ///< the "id" as text (a string, or an integer's digits)
  bool id_is_number = false;  ///< the "id" was an integer (replies echo it as one)
  std::string machine, job, task, rack, reason, command;
  std::string queue, user;  ///< job_submit: the tenant queue asked for and the user; queue: one
  std::string state, sort;  ///< jobs, machines: the state to list and the field to sort by
  uint64_t limit = 0;       ///< jobs, machines: most entries listed (0: all)
  bool finished = false;    ///< jobs: the finished-job history instead of the live jobs
  uint64_t slots = 1;
  uint64_t free_slots = 0;
  uint64_t top = 10;
  double weight = 1;
  bool drain = true;
  uint64_t tasks_total = 0;  ///< job_submit: the job's task count when task_add sends the rest
  std::vector<TaskRequest> tasks;
  /// Field by field (tests compare the decoder's two paths).
  bool operator==(const Request&) const = default;
  /// Back to a default-constructed request, keeping the strings' capacity.
  void Clear();
};

/// The string member that a field named `key` fills (machine, job, task, rack,
/// reason, command, state, sort), or nullptr. Both decoders map fields through it (the fuzz target
/// keeps its own map, as an independent check).
std::string* StringField(Request& r, std::string_view key);
/// The unsigned integer member that a field named `key` fills (free_slots, slots, top, limit),
/// or nullptr.
uint64_t* CountField(Request& r, std::string_view key);

/// A hash of everything a request asks for except its "id" (64-bit FNV-1a over the
/// decoded fields, the same in every build and run): two requests under one id
/// with different hashes are different requests.
uint64_t RequestHash(const Request& r);

/// Decodes one protocol line (without its newline) into *out.
Status DecodeRequest(std::string_view line, Request* out);
/// DecodeRequest without its fast path for compact flat lines (io/wire/flat_request.h):
/// simdjson and the command table's checks for every line.
Status DecodeRequestGeneral(std::string_view line, Request* out);

}  // namespace locsched
