#include "daemon/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/sinks/systemd_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>

namespace locsched {

namespace {

spdlog::level::level_enum ToSpdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

bool UseJournal(LogTarget target) {
  if (target == LogTarget::kJournal) return true;
  return target == LogTarget::kAuto && std::getenv("JOURNAL_STREAM") != nullptr;
}

}  // namespace

void SetUpLogging(const LogConfig& cfg) {
  std::shared_ptr<spdlog::logger> logger;
  if (UseJournal(cfg.target)) {
    logger = std::make_shared<spdlog::logger>("locschedd",
                                              std::make_shared<spdlog::sinks::systemd_sink_st>());
    logger->set_pattern("%v");  // the journal stamps time and priority itself
  } else {
    logger = std::make_shared<spdlog::logger>("locschedd",
                                              std::make_shared<spdlog::sinks::stderr_sink_st>());
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  }
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
  SetLogLevel(cfg.level);
}

void SetLogLevel(LogLevel level) {
  spdlog::set_level(ToSpdlog(level));
}

}  // namespace locsched
