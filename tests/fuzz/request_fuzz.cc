// Fuzz target for the wire protocol's request decoder (io/wire/request.h): any line
// either decodes to a Request that keeps the CommandTable's promises or is
// rejected with "field: problem", and a line the fast path (io/wire/flat_request.h)
// takes decodes the same through the general decoder. Run by libFuzzer (tools/fuzz.sh) and, over
// the seed corpus, by fuzz_replay in every ctest run (fuzz/request_corpus).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "io/wire/flat_request.h"
#include "io/wire/request.h"

namespace locsched {
namespace {

// Reports a broken invariant and aborts, which libFuzzer records as a crash.
[[noreturn]] void Fail(const char* invariant, std::string_view detail) {
  std::fprintf(stderr, "request_fuzz: broken invariant: %s [%.*s]\n", invariant,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void Expect(bool holds, const char* invariant, std::string_view detail) {
  if (!holds) Fail(invariant, detail);
}

// The Request member that holds a name/string field, or nullptr for other fields.
const std::string* StringMember(const Request& r, std::string_view field) {
  if (field == "machine") return &r.machine;
  if (field == "job") return &r.job;
  if (field == "task") return &r.task;
  if (field == "rack") return &r.rack;
  if (field == "reason") return &r.reason;
  if (field == "command") return &r.command;
  if (field == "state") return &r.state;
  if (field == "sort") return &r.sort;
  if (field == "queue") return &r.queue;
  if (field == "user") return &r.user;
  return nullptr;
}

// A rejection is an InvalidArgument reading "subject: problem", both parts non-empty.
// The subject may itself hold ": " (an unknown key is echoed as sent), so any
// non-empty prefix followed by ": " counts as one.
void CheckError(const Status& s) {
  const std::string& m = s.message();
  Expect(!m.empty(), "an error has a message", m);
  Expect(s.code() == Status::Code::kInvalidArgument, "a decode error is invalid_argument", m);
  const size_t colon = m.find(": ", 1);
  Expect(colon != std::string::npos, "the message starts with a subject and ': '", m);
  Expect(colon + 2 < m.size(), "the message says what is wrong after the subject", m);
}

// Every task of a job_submit has a name, at least one replica, named, and sane numbers.
void CheckTasks(const Request& r) {
  for (const TaskRequest& t : r.tasks) {
    Expect(!t.task.empty(), "a task has a name", t.task);
    Expect(!t.replicas.empty(), "a task has a replica", t.task);
    for (const std::string& m : t.replicas) Expect(!m.empty(), "a replica is named", t.task);
    Expect(std::isfinite(t.size) && t.size >= 0, "task size is a number >= 0", t.task);
    Expect(std::isfinite(t.duration) && t.duration >= 0, "duration is a number >= 0", t.task);
  }
}

// Numbers are in their field's range, and at their defaults when the op lacks the field.
void CheckNumbers(const Request& r, const CommandSpec& spec) {
  auto lacks = [&](std::string_view field) { return FindField(spec.fields, field) == nullptr; };
  Expect(r.slots >= 1, "slots >= 1", spec.name);
  Expect(std::isfinite(r.weight) && r.weight >= 0, "weight is a number >= 0", spec.name);
  Expect(!lacks("slots") || r.slots == 1, "slots keeps its default", spec.name);
  Expect(!lacks("free_slots") || r.free_slots == 0, "free_slots keeps its default", spec.name);
  Expect(!lacks("top") || r.top == 10, "top keeps its default", spec.name);
  Expect(!lacks("weight") || r.weight == 1, "weight keeps its default", spec.name);
  Expect(!lacks("drain") || r.drain, "drain keeps its default", spec.name);
  Expect(!lacks("tasks_total") || r.tasks_total == 0, "tasks_total keeps its default", spec.name);
  Expect(!lacks("limit") || r.limit == 0, "limit keeps its default", spec.name);
  Expect(!lacks("finished") || !r.finished, "finished keeps its default", spec.name);
}

// A decoded request: a valid op, required names filled, unused fields at their defaults.
void CheckRequest(const Request& r) {
  Expect(static_cast<size_t>(r.op) < CommandTable().size(), "op is a valid Op", "");
  const CommandSpec& spec = SpecOf(r.op);
  Expect(spec.op == r.op, "SpecOf(op) is op's row", spec.name);
  Expect(r.has_id == !r.id.empty(), "has_id iff a non-empty id", r.id);
  for (std::string_view field :
       {"machine", "job", "task", "rack", "reason", "command", "state", "sort", "queue", "user"}) {
    const FieldSpec* f = FindField(spec.fields, field);
    const std::string& value = *StringMember(r, field);
    if (f == nullptr) Expect(value.empty(), "a field the op lacks keeps its default", field);
    if (f != nullptr && f->required && f->type == FieldType::kName)
      Expect(!value.empty(), "a required name is non-empty", field);
  }
  const bool submit = FindField(spec.fields, "tasks") != nullptr;
  Expect(submit != r.tasks.empty(), "only job_submit has tasks, and at least one", spec.name);
  CheckTasks(r);
  CheckNumbers(r, spec);
}

}  // namespace
}  // namespace locsched

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  locsched::Request r;
  const locsched::Status s = locsched::DecodeRequest(line, &r);
  if (s.ok()) {
    locsched::CheckRequest(r);
  } else {
    locsched::CheckError(s);
  }
  // The fast path for flat lines decodes exactly what the general decoder does.
  locsched::Request general;
  if (locsched::DecodeFlatRequest(line, &r)) {
    const locsched::Status g = locsched::DecodeRequestGeneral(line, &general);
    locsched::Expect(g.ok() && general == r, "the fast path agrees with the general decoder", line);
  }
  return 0;
}
