// Small pieces the route files (api.cpp, ocr_routes.cpp, job_routes.cpp) share.
// Thread-safety: pure functions (FailureReply logs).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/text.h"
#include "http/api.h"
#include "http/error_mapping.h"

namespace ocr::http::internal {

// A reply now, with no work for a worker.
inline Routed Answer(std::string route, Reply reply) {
  return {std::move(route), std::move(reply), {}};
}

// Work for a worker on the request's route.
inline Routed Later(std::string route, Work work) {
  return {std::move(route), std::nullopt, std::move(work)};
}

// "Multipart/Form-Data; boundary=x" -> "multipart/form-data".
inline std::string MediaType(std::string_view content_type) {
  return AsciiLower(TrimOws(content_type.substr(0, content_type.find(';'))));
}

// Logs what a client must not see (internal errors) and maps the rest.
inline Reply FailureReply(const Status& status, const std::string& request_id) {
  if (HttpStatusFor(status.code()) == 500)
    spdlog::error("request_id={} {}", request_id, status.ToString());
  return StatusReply(status);
}

}  // namespace ocr::http::internal
