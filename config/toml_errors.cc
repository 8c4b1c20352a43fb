#include "config/toml_errors.h"

#include <algorithm>
#include <utility>

#include "config/config.h"

namespace locsched {

std::string TomlWhere(std::string_view source, const toml::source_position& pos) {
  return std::string(source) + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

Status ReportTomlErrors(std::string_view source, std::vector<TomlError> errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const TomlError& a, const TomlError& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  std::string rest;
  for (size_t i = 1; i < errors.size(); ++i)
    rest += "\n" + TomlWhere(source, errors[i].pos) + ": " + EscapeControlChars(errors[i].text);
  return Status::InvalidArgument(TomlWhere(source, errors[0].pos),
                                 EscapeControlChars(errors[0].text) + rest);
}

}  // namespace locsched
