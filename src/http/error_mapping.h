// The one place where a Status becomes an HTTP answer, in the error shape of spec/API.md
// section 3: {"success": false, "error": {"code": "...", "message": "..."}}.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace ocr::http {

// What a handler answers; the transport turns it into a response on the connection.
struct Reply {
  Reply() = default;

  Reply(unsigned s, std::string b, std::string type = "application/json")
      : status(s), body(std::move(b)), content_type(std::move(type)) {}

  unsigned status = 200;
  std::string body;
  std::string content_type = "application/json";
  bool retry_after = false;  // 503: "Retry-After: 1"
  std::string allow;         // 405: the methods the route accepts
  int lines = -1;            // text lines found, for the access log (-1: not an OCR answer)
  std::vector<std::pair<std::string, std::string>> headers;  // any others (ETag, CSP, ...)
};

// The HTTP status of a Status code: 400, 404, 415, 422, 503, 504, or 500 for the rest.
unsigned HttpStatusFor(StatusCode code);

// The API error code of a Status code ("undecodable_image", "image_too_large", ...).
std::string_view ErrorCode(StatusCode code);

// {"success": false, "error": {"code": ..., "message": ...}}.
nlohmann::json ErrorJson(const Status& status);

Reply ErrorReply(unsigned status, std::string_view code, std::string message);

Reply StatusReply(const Status& status);

// 500 internal, with a message pointing at the request id in the log.
Reply InternalReply();

// 503 server_busy with Retry-After.
Reply BusyReply();

// Serializes JSON, replacing invalid UTF-8 (for example in a client's file name) rather than
// throwing.
std::string DumpJson(const nlohmann::json& j);

}  // namespace ocr::http
