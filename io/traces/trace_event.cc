#include "io/traces/trace_event.h"

namespace locsched {

void TraceCounts::Add(const TraceEvent& e) {
  ++events;
  switch (e.kind) {
    case TraceEventKind::kJobSubmit:
      ++jobs;
      tasks += e.tasks.size();
      break;
    case TraceEventKind::kTaskSubmit:
      tasks += e.tasks.size();
      break;
    case TraceEventKind::kAttemptStart:
      ++attempts;
      break;
    case TraceEventKind::kAttemptFinish:
      break;
    case TraceEventKind::kRequest:
      if (e.op == "job_submit") {
        ++jobs;
        tasks += e.tasks.size();
      } else if (e.op == "task_started") {
        ++attempts;
      }
      break;
  }
}

namespace {
constexpr std::pair<TraceFormat, const char*> kFormats[] = {
    {TraceFormat::kLocsched, "locsched"},
    {TraceFormat::kJobHistory, "jobhistory"},
    {TraceFormat::kRumen, "rumen"},
    {TraceFormat::kSwim, "swim"},
    {TraceFormat::kGoogleJobEvents, "google"},
};
}  // namespace

Status ParseTraceFormat(std::string_view name, TraceFormat* out) {
  for (const auto& [format, text] : kFormats) {
    if (name == text) {
      *out = format;
      return Status::Ok();
    }
  }
  return Status::InvalidArgument("--format",
                                 "unknown format '" + std::string(name) +
                                     "' (one of locsched, jobhistory, rumen, swim, google)");
}

const char* TraceFormatName(TraceFormat f) {
  for (const auto& [format, text] : kFormats)
    if (format == f) return text;
  return "?";
}

}  // namespace locsched
