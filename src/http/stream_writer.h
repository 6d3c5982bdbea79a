// StreamWriter: writes a streamed answer (a ReplyStream: the NDJSON of a streamed document, the
// Server-Sent Events of a job) on a connection: its header, then its pieces as they become
// ready, chunked (HTTP/1.0: raw, and the connection closes at the end); a heartbeat comment when
// nothing was ready for kHeartbeat; and a client that closes its end is noticed at once (not at
// the next write, which may be a page away), so a stream's remaining pages are cancelled within
// milliseconds. No deadline applies: the job behind the stream has its own (--job-timeout).
// Thread-safety: runs on its connection's strand only.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include "http/reply.h"

namespace ocr::http {

class StreamWriter : public std::enable_shared_from_this<StreamWriter> {
 public:
  using Head = boost::beast::http::response<boost::beast::http::empty_body>;

  // How the stream ended: `completed` when its last piece was written; else `why` not.
  struct Outcome {
    bool completed = false;
    std::size_t bytes = 0;  // written, header included
    std::string why;
  };

  // How often an idle event stream sends a comment, under the 60 s that proxies commonly allow.
  static constexpr std::chrono::seconds kHeartbeat{15};

  // `head` is the answer's header (status, headers, keep-alive; chunked when HTTP/1.1). `done`
  // runs once, on the strand, when the stream ended either way; the writer aborts `body` when it
  // did not complete. REQUIRES: `socket` outlives the writer (`done` keeps its owner alive).
  StreamWriter(boost::beast::tcp_stream& socket, std::shared_ptr<ReplyStream> body, Head head,
               std::chrono::seconds write_timeout, std::function<void(const Outcome&)> done);

  void Start();

 private:
  void OnHeader(boost::beast::error_code ec, std::size_t bytes);
  // Sends what the stream has ready; when nothing is, waits for its wake-up (or the heartbeat).
  void Pump();
  void Write(ReplyStream::Piece piece);
  void OnWrite(boost::beast::error_code ec, std::size_t bytes);
  void WatchHangup();
  void End(bool completed, std::string why);

  boost::beast::tcp_stream& socket_;
  std::shared_ptr<ReplyStream> body_;
  Head head_;
  std::optional<boost::beast::http::response_serializer<boost::beast::http::empty_body>>
      serializer_;
  const std::chrono::seconds write_timeout_;
  std::function<void(const Outcome&)> done_;  // reset once it ran
  boost::asio::steady_timer heartbeat_;
  const bool chunked_;
  std::string out_;
  bool writing_ = false;
  bool last_ = false;
  std::size_t bytes_ = 0;
};

}  // namespace ocr::http
