#include "io/request.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace locsched {
namespace {

using json = nlohmann::json;

Status Bad(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(path, what);
}

// Checks that v has the JSON shape `type` asks for (arrays are checked element-wise later).
Status CheckType(FieldType type, const json& v, const std::string& path) {
  switch (type) {
    case FieldType::kName:
      if (!v.is_string() || v.get_ref<const std::string&>().empty())
        return Bad(path, "must be a non-empty string");
      return Status::Ok();
    case FieldType::kString:
      return v.is_string() ? Status::Ok() : Bad(path, "must be a string");
    case FieldType::kCount:
      return v.is_number_unsigned() ? Status::Ok() : Bad(path, "must be an integer >= 0");
    case FieldType::kPositive:
      return v.is_number_unsigned() && v.get<uint64_t>() >= 1
                 ? Status::Ok()
                 : Bad(path, "must be an integer >= 1");
    case FieldType::kNumber:
      return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0
                 ? Status::Ok()
                 : Bad(path, "must be a number >= 0");
    case FieldType::kBool:
      return v.is_boolean() ? Status::Ok() : Bad(path, "must be true or false");
    case FieldType::kKind:
      return v == "map" || v == "reduce" ? Status::Ok()
                                         : Bad(path, "must be \"map\" or \"reduce\"");
    case FieldType::kNames:
    case FieldType::kTasks:
      return v.is_array() ? Status::Ok() : Bad(path, "must be an array");
  }
  return Status::Ok();
}

// Rejects unknown keys, wrong types and missing required keys of one object.
Status CheckObject(const json& obj, std::span<const FieldSpec> fields, const std::string& prefix,
                   bool top_level) {
  for (const auto& [key, value] : obj.items()) {
    if (top_level && (key == "op" || key == "id")) continue;
    const FieldSpec* f = FindField(fields, key);
    if (f == nullptr) return Bad(prefix + (key.empty() ? "\"\"" : key), "unknown field");
    if (Status s = CheckType(f->type, value, prefix + key); !s.ok()) return s;
  }
  for (const FieldSpec& f : fields)
    if (f.required && !obj.contains(f.name))
      return Bad(prefix + std::string(f.name), "is required");
  return Status::Ok();
}

Status DecodeNames(const json& arr, const std::string& path, std::vector<std::string>* out) {
  if (arr.empty()) return Bad(path, "must name at least one machine");
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (Status s = CheckType(FieldType::kName, arr[i], item); !s.ok()) return s;
    out->push_back(arr[i].get<std::string>());
  }
  return Status::Ok();
}

Status DecodeTask(const json& v, const std::string& path, TaskRequest* t) {
  if (!v.is_object()) return Bad(path, "must be an object");
  if (Status s = CheckObject(v, TaskFields(), path + ".", false); !s.ok()) return s;
  t->task = v["task"].get<std::string>();
  if (Status s = DecodeNames(v["replicas"], path + ".replicas", &t->replicas); !s.ok()) return s;
  if (v.contains("kind") && v["kind"] == "reduce") t->kind = TaskKind::kReduce;
  t->size = v.value("size", 0.0);
  t->duration = v.value("duration", 0.0);
  return Status::Ok();
}

Status DecodeTasks(const json& arr, Request* out) {
  if (arr.empty()) return Bad("tasks", "must hold at least one task");
  out->tasks.resize(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    Status s = DecodeTask(arr[i], "tasks[" + std::to_string(i) + "]", &out->tasks[i]);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status DecodeId(const json& obj, Request* out) {
  const auto it = obj.find("id");
  if (it == obj.end()) return Status::Ok();
  if (it->is_string() && !it->get_ref<const std::string&>().empty()) {
    out->id = it->get<std::string>();
  } else if (it->is_number_unsigned()) {
    out->id = std::to_string(it->get<uint64_t>());
    out->id_is_number = true;
  } else {
    return Bad("id", "must be a non-empty string or an integer >= 0");
  }
  out->has_id = true;
  return Status::Ok();
}

// Copies the checked fields of obj into *out.
Status Fill(const json& obj, Request* out) {
  out->machine = obj.value("machine", std::string());
  out->job = obj.value("job", std::string());
  out->task = obj.value("task", std::string());
  out->rack = obj.value("rack", std::string());
  out->reason = obj.value("reason", std::string());
  out->command = obj.value("command", std::string());
  out->slots = obj.value("slots", uint64_t{1});
  out->free_slots = obj.value("free_slots", uint64_t{0});
  out->top = obj.value("top", uint64_t{10});
  out->weight = obj.value("weight", 1.0);
  out->drain = obj.value("drain", true);
  if (obj.contains("tasks")) return DecodeTasks(obj["tasks"], out);
  return Status::Ok();
}

Status DecodeOp(const json& obj, const CommandSpec** spec) {
  const auto it = obj.find("op");
  if (it == obj.end()) return Bad("op", "is required");
  if (!it->is_string()) return Bad("op", "must be a string");
  const std::string& name = it->get_ref<const std::string&>();
  *spec = FindCommand(name);
  if (*spec != nullptr) return Status::Ok();
  const std::string_view guess = SuggestCommand(name);
  return Bad("op", "unknown operation '" + name + "'" +
                       (guess.empty() ? std::string(" (try \"help\")")
                                      : "; did you mean '" + std::string(guess) + "'?"));
}

}  // namespace

Status DecodeRequest(std::string_view line, Request* out) {
  *out = Request{};
  // The JSON parser stops at a NUL byte, which would hide whatever follows it.
  if (line.find('\0') != std::string_view::npos) return Bad("request", "contains a NUL byte");
  json obj = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded()) return Bad("request", "is not valid JSON");
  if (!obj.is_object()) return Bad("request", "must be a JSON object");
  const CommandSpec* spec = nullptr;
  if (Status s = DecodeOp(obj, &spec); !s.ok()) return s;
  out->op = spec->op;
  if (Status s = DecodeId(obj, out); !s.ok()) return s;
  if (Status s = CheckObject(obj, spec->fields, "", true); !s.ok()) return s;
  return Fill(obj, out);
}

}  // namespace locsched
