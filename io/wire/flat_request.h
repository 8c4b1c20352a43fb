// FlatRequest: the fast path of DecodeRequest for the lines agents send most
// (heartbeat, task_done, machine_up...): a compact, flat JSON object of ASCII
// strings, unsigned integers and booleans. It accepts only lines the general
// decoder accepts, decoding them to the same Request; anything else (an error
// included) is left to the general decoder, which words the reply. Pure.
#pragma once

#include <string_view>

#include "io/wire/request.h"

namespace locsched {

/// Decodes `line` into *out if it is a valid compact flat request; false (with
/// *out unspecified) if the general decoder must handle it.
bool DecodeFlatRequest(std::string_view line, Request* out);

}  // namespace locsched
