// TomlError and ReportTomlErrors: how the config loaders (config_loader.cc,
// queue_config.cc) collect every problem of a TOML file and report them in file
// order, one "FILE:LINE:COL: key: problem" line each. Internal to locsched_config:
// the only header here that includes toml++, included only by its .cc files.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace locsched {

/// One problem found in a file, kept to report all of them in source order.
struct TomlError {
  toml::source_position pos;
  std::string text;  ///< "key: problem"
};

/// "FILE:LINE:COL" of pos in source.
std::string TomlWhere(std::string_view source, const toml::source_position& pos);
/// The errors (at least one) as one InvalidArgument, sorted by position, one line each;
/// control characters escaped (texts quote keys, values and parser input).
Status ReportTomlErrors(std::string_view source, std::vector<TomlError> errors);

}  // namespace locsched
