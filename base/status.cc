#include "base/status.h"

namespace locsched {

const char* Status::code_name() const {
  switch (code_) {
    case Code::kOk:
      return "ok";
    case Code::kInvalidArgument:
      return "invalid_argument";
    case Code::kNotFound:
      return "not_found";
    case Code::kAlreadyExists:
      return "already_exists";
    case Code::kFailedPrecondition:
      return "failed_precondition";
    case Code::kResourceExhausted:
      return "resource_exhausted";
    case Code::kPermissionDenied:
      return "permission_denied";
    case Code::kIoError:
      return "io_error";
    case Code::kInternal:
      return "internal";
    case Code::kConflict:
      return "conflict";
    case Code::kNotActive:
      return "not_active";
  }
  return "internal";
}

std::string Status::subject() const {
  return message_.substr(0, subject_size_);
}

}  // namespace locsched
