// Reply: what a route answers, independent of the transport (http/server.cpp turns it into a
// response on the connection). Thread-safety: a plain value.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

}  // namespace ocr::http
