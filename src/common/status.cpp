#include "common/status.h"

namespace ocr {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kUnsupportedMediaType:
      return "unsupported_media_type";
    case StatusCode::kUndecodableImage:
      return "undecodable_image";
    case StatusCode::kImageTooLarge:
      return "image_too_large";
    case StatusCode::kInvalidPdf:
      return "invalid_pdf";
    case StatusCode::kEncryptedPdf:
      return "encrypted_pdf";
    case StatusCode::kTooManyPages:
      return "too_many_pages";
    case StatusCode::kModelLoadFailed:
      return "model_load_failed";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kIoError:
      return "io_error";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kDeadlineExceeded:
      return "deadline_exceeded";
    case StatusCode::kCancelled:
      return "cancelled";
    case StatusCode::kInternal:
      return "internal";
  }
  return "unknown";
}

std::optional<StatusCode> StatusCodeFromName(std::string_view name) {
  for (int c = 0; c <= static_cast<int>(StatusCode::kInternal); ++c) {
    const auto code = static_cast<StatusCode>(c);
    if (StatusCodeName(code) == name)
      return code;
  }
  return std::nullopt;
}

std::string Status::ToString() const {
  if (ok())
    return "ok";
  std::string s(StatusCodeName(code_));
  s += ": ";
  s += message_;
  return s;
}

}  // namespace ocr
