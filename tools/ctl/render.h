// CtlRender: turns locschedd's JSON replies into what an operator reads on a
// terminal (tables for status, machine_queues, jobs, job, machines, help; plain text
// for metrics; key: value for anything else). Used by locschedctl, including
// its `watch` view. Pure functions of the reply; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace locsched {

/// The human rendering of a successful reply to `command`, ending in a newline.
std::string RenderReply(std::string_view command, const nlohmann::json& reply);
/// The one-screen view of `watch`: status, the event rate, and the longest machine queues.
std::string RenderWatch(const nlohmann::json& status, const nlohmann::json& queues,
                        double events_per_second);
/// A table: header row, then rows, columns padded to their widest cell.
std::string RenderTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace locsched
