#include "http/error_mapping.h"

#include "http/response_json.h"

namespace ocr::http {

unsigned HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kUnsupportedMediaType:
      return 415;
    case StatusCode::kUndecodableImage:
    case StatusCode::kImageTooLarge:
    case StatusCode::kInvalidPdf:
    case StatusCode::kEncryptedPdf:
    case StatusCode::kTooManyPages:
      return 422;
    case StatusCode::kResourceExhausted:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kOk:
    case StatusCode::kModelLoadFailed:
    case StatusCode::kIoError:
    case StatusCode::kCancelled:
    case StatusCode::kInternal:
      break;
  }
  return 500;
}

std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Reply ErrorReply(unsigned status, std::string_view code, std::string message) {
  return {status,
          DumpJson({{"success", false}, {"error", {{"code", code}, {"message", message}}}})};
}

Reply StatusReply(const Status& status) {
  if (status.code() == StatusCode::kInternal || status.code() == StatusCode::kIoError ||
      status.code() == StatusCode::kModelLoadFailed) {
    return InternalReply();  // details go to the log, not to the client
  }
  return {HttpStatusFor(status.code()), DumpJson(ErrorJson(status))};
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
