// Reply: what a route answers, independent of the transport (http/server.cpp turns it into a
// response on the connection). Thread-safety: a plain value.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ocr::http {

// A body sent in pieces as they become ready, after a 200 header (chunked): the NDJSON of a
// streamed document, the Server-Sent Events of a job. The transport pulls; the producer wakes it.
class ReplyStream {
 public:
  struct Piece {
    std::string bytes;  // may be empty (nothing ready yet)
    bool last = false;  // the body ends after these bytes
  };

  virtual ~ReplyStream() = default;

  // Called once, before the first Next(). `wake` may be called from any thread, any number of
  // times, whenever Next() may have more; it is cheap and never blocks.
  virtual void Start(std::function<void()> wake) = 0;
  // What is ready now. Called on the transport's strand, never concurrently.
  virtual Piece Next() = 0;

  // Bytes to send when nothing was ready for a while, so proxies keep the connection ("" = none).
  virtual std::string Heartbeat() { return {}; }

  // The client went away or the server stops: stop watching (and stop the work, when the work
  // exists only for this client). Next() is not called afterwards.
  virtual void Abort() = 0;
};

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
  // Set: `body` is ignored and the answer's body comes from the stream, chunked.
  std::shared_ptr<ReplyStream> stream;
};

}  // namespace ocr::http
