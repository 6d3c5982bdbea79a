// The access log: one line per answered request (text or JSON, as --log-format), and the request
// ids that tie a line to the server's other logs (X-Request-Id, taken from the client when sane,
// else made here). Thread-safety: all functions are safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

namespace ocr::http {

// What the access log says of one answered request.
struct AccessEntry {
  std::string_view request_id;
  std::string_view method;
  std::string_view path;
  unsigned status = 0;
  std::size_t bytes = 0;  // the response as written
  double ms = 0;          // from receipt to the written answer
  int lines = -1;         // text lines found (-1: not an OCR answer)
};

// Writes `entry` to `log` at info level, in the process's log format (common/log.h).
void LogAccess(spdlog::logger& log, const AccessEntry& entry);

// A client's X-Request-Id is kept when it is 1-128 characters of [A-Za-z0-9._-] (safe in logs).
bool SaneRequestId(std::string_view id);

// 16 random hex digits.
std::string NewRequestId();

}  // namespace ocr::http
