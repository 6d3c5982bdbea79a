#include "http/error_mapping.h"

namespace ocr::http {

namespace {

struct Mapping {
  unsigned http_status;
  std::string_view code;  // the API's error code (spec/API.md section 3)
};

// Codes a client never causes (load failures, local I/O, cancellation, bugs) are 500 internal.
Mapping MappingFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return {400, "invalid_option"};
    case StatusCode::kNotFound:
      return {404, "not_found"};
    case StatusCode::kUnsupportedMediaType:
      return {415, "unsupported_media_type"};
    case StatusCode::kUndecodableImage:
      return {422, "undecodable_image"};
    case StatusCode::kImageTooLarge:
      return {422, "image_too_large"};
    case StatusCode::kInvalidPdf:
      return {422, "invalid_pdf"};
    case StatusCode::kEncryptedPdf:
      return {422, "encrypted_pdf"};
    case StatusCode::kTooManyPages:
      return {422, "too_many_pages"};
    case StatusCode::kResourceExhausted:
      return {503, "server_busy"};
    case StatusCode::kUnavailable:
      return {503, "not_ready"};
    case StatusCode::kDeadlineExceeded:
      return {504, "deadline_exceeded"};
    case StatusCode::kOk:
    case StatusCode::kModelLoadFailed:
    case StatusCode::kIoError:
    case StatusCode::kCancelled:
    case StatusCode::kInternal:
      break;
  }
  return {500, "internal"};
}

}  // namespace

unsigned HttpStatusFor(StatusCode code) {
  return MappingFor(code).http_status;
}

std::string_view ErrorCode(StatusCode code) {
  return MappingFor(code).code;
}

nlohmann::json ErrorJson(const Status& status) {
  return {{"success", false}, {"error", status.message()}, {"code", ErrorCode(status.code())}};
}

std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Reply ErrorReply(unsigned status, std::string_view code, std::string message) {
  // In the order of spec/API.md, for people reading answers.
  const nlohmann::ordered_json body = {{"success", false}, {"error", message}, {"code", code}};
  return {status, body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)};
}

Reply StatusReply(const Status& status) {
  if (status.code() == StatusCode::kInternal || status.code() == StatusCode::kIoError ||
      status.code() == StatusCode::kModelLoadFailed) {
    return InternalReply();  // details go to the log, not to the client
  }
  Reply reply =
      ErrorReply(HttpStatusFor(status.code()), ErrorCode(status.code()), status.message());
  reply.retry_after = status.code() == StatusCode::kResourceExhausted;  // busy: come back soon
  return reply;
}

Reply InternalReply() {
  return ErrorReply(500, "internal",
                    "internal server error; the X-Request-Id of this response identifies it in "
                    "the server log");
}

Reply BusyReply() {
  Reply r = ErrorReply(503, "server_busy",
                       "all workers are busy and the queue is full; retry after a second");
  r.retry_after = true;
  return r;
}

}  // namespace ocr::http
