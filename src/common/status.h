// Status and Result<T>: how every expected failure travels through the codebase.
// A Status is a code plus a message a person can act on. Codes map one-to-one onto the error
// codes of the HTTP API (spec section 3) in http/error_mapping and onto CLI exit codes in cli/.
// Thread-safety: plain values; safe to copy between threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ocr {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,       // a caller's option is out of range or malformed (invalid_option)
  kUnsupportedMediaType,  // bytes are neither a supported image nor a PDF (unsupported_media_type)
  kUndecodableImage,   // an image format we know, but the bytes do not decode (undecodable_image)
  kImageTooLarge,      // width x height over the pixel limit, read from the header
  kInvalidPdf,         // not a readable PDF (invalid_pdf)
  kEncryptedPdf,       // the PDF needs a password (encrypted_pdf)
  kTooManyPages,       // more pages than allowed (too_many_pages)
  kModelLoadFailed,    // a model file is missing, corrupt, or does not fit its dictionary
  kNotFound,           // a named thing (file, model set) does not exist
  kIoError,            // reading a local file failed
  kResourceExhausted,  // a bounded queue is full (server_busy)
  kUnavailable,        // not taking this kind of work now: starting or draining (not_ready)
  kDeadlineExceeded,   // the request ran past its deadline (deadline_exceeded)
  kCancelled,          // the client went away; nobody waits for the result
  kInternal,           // a bug or an inference failure; never caused by client input
};

std::string_view StatusCodeName(StatusCode code);
// The code StatusCodeName names `name`; nullopt for any other text (a stored status).
std::optional<StatusCode> StatusCodeFromName(std::string_view name);

class [[nodiscard]] Status {
 public:
  Status() = default;

  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }

  StatusCode code() const { return code_; }

  const std::string& message() const { return message_; }

  // "kind: message", for logs and the CLI.
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}

inline Status Internal(std::string m) {
  return {StatusCode::kInternal, std::move(m)};
}

inline Status Cancelled() {
  return {StatusCode::kCancelled, "the request was cancelled"};
}

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)

  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }

  // REQUIRES: !ok() for a meaningful status; returns Ok() when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // REQUIRES: ok().
  T& value() & { return std::get<T>(v_); }

  const T& value() const& { return std::get<T>(v_); }

  T&& value() && { return std::get<T>(std::move(v_)); }

  T& operator*() & { return value(); }

  const T& operator*() const& { return value(); }

  T* operator->() { return &value(); }

  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ocr

#define OCR_STATUS_CONCAT_INNER(a, b) a##b
#define OCR_STATUS_CONCAT(a, b) OCR_STATUS_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define OCR_RETURN_IF_ERROR(expr)       \
  do {                                  \
    ::ocr::Status ocr_status_ = (expr); \
    if (!ocr_status_.ok())              \
      return ocr_status_;               \
  } while (0)

// `OCR_ASSIGN_OR_RETURN(auto x, MakeX());` assigns the value or returns the Status.
#define OCR_ASSIGN_OR_RETURN(lhs, expr) \
  OCR_ASSIGN_OR_RETURN_IMPL(OCR_STATUS_CONCAT(ocr_result_, __LINE__), lhs, expr)
// `lhs` is a declaration and `tmp` a name: neither can take parentheses.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define OCR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok())                                  \
    return tmp.status();                          \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
