// Status: the one error type of locsched (after leveldb's Status). Named
// factories build it; the message always names the subject (a field, a key,
// a flag). Plain value type, safe to copy across threads.
#pragma once

#include <string>
#include <utility>

namespace locsched {

/// Success, or an error code plus a message that names what was wrong.
class Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,
    kNotFound,
    kAlreadyExists,
    kFailedPrecondition,
    kResourceExhausted,
    kPermissionDenied,
    kIoError,
    kInternal,
    kConflict,
    kNotActive
  };

  /// The success value.
  Status() = default;
  /// Success.
  static Status Ok() { return Status(); }
  /// Bad input: `subject` names the field, key or flag.
  static Status InvalidArgument(std::string subject, std::string what) {
    return Status(Code::kInvalidArgument, std::move(subject), std::move(what));
  }
  /// An id that does not exist (job, task, machine).
  static Status NotFound(std::string subject, std::string what) {
    return Status(Code::kNotFound, std::move(subject), std::move(what));
  }
  /// An id that exists already.
  static Status AlreadyExists(std::string subject, std::string what) {
    return Status(Code::kAlreadyExists, std::move(subject), std::move(what));
  }
  /// The request is valid but the state does not allow it now.
  static Status FailedPrecondition(std::string subject, std::string what) {
    return Status(Code::kFailedPrecondition, std::move(subject), std::move(what));
  }
  /// A configured limit was hit.
  static Status ResourceExhausted(std::string subject, std::string what) {
    return Status(Code::kResourceExhausted, std::move(subject), std::move(what));
  }
  /// A repeated id with a different request: `subject` names the id's field.
  static Status Conflict(std::string subject, std::string what) {
    return Status(Code::kConflict, std::move(subject), std::move(what));
  }
  /// A state-changing request sent to a standby: `active` is the active instance's
  /// address ("" if none is known yet).
  static Status NotActive(std::string active, std::string what) {
    return Status(Code::kNotActive, active.empty() ? "unknown" : std::move(active),
                  std::move(what));
  }
  /// The caller may not do this (an admin command from an unauthorized peer).
  static Status PermissionDenied(std::string subject, std::string what) {
    return Status(Code::kPermissionDenied, std::move(subject), std::move(what));
  }
  /// A broken invariant or inconsistent data that is not the caller's fault.
  static Status Internal(std::string subject, std::string what) {
    return Status(Code::kInternal, std::move(subject), std::move(what));
  }
  /// A file or socket operation failed.
  static Status IoError(std::string subject, std::string what) {
    return Status(Code::kIoError, std::move(subject), std::move(what));
  }

  /// True on success.
  bool ok() const { return code_ == Code::kOk; }
  /// The error class.
  Code code() const { return code_; }
  /// The code's wire name ("invalid_argument"); "ok" on success.
  const char* code_name() const;
  /// The subject the message names (as given to the factory), "" on success.
  std::string subject() const;
  /// "subject: what", empty on success.
  const std::string& message() const { return message_; }
  /// The message without its subject: "what" ("" on success).
  std::string detail() const {
    return message_.size() > subject_size_ + 2 ? message_.substr(subject_size_ + 2) : "";
  }

 private:
  Status(Code code, std::string subject, std::string what)
      : code_(code), subject_size_(subject.size()), message_(std::move(subject) + ": " + what) {}
  Code code_ = Code::kOk;
  size_t subject_size_ = 0;  // the subject may itself contain ": " (a key named "a: b")
  std::string message_;
};

}  // namespace locsched
