// A session reads a request: the header, 100-continue, the body; what does not parse, and an
// over-cap connection's request, are answered here.
#include <exception>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "http/bad_requests.h"
#include "http/error_mapping.h"
#include "http/internal/session.h"
#include "http/request_path.h"

namespace ocr::http::internal {

void Session::DoRead() {
  if (shared_.service.draining()) {
    Close("draining");
    return;
  }
  parser_.emplace();
  parser_->header_limit(kMaxHeaderBytes);
  parser_->body_limit(config().max_body_bytes);
  if (over_cap_) {
    // The deadline answers 503; the stream's own expiry (which closes the socket) is a backstop.
    stream_.expires_after(kProbeDeadline + kProbeDeadline);
    deadline_.expires_after(kProbeDeadline);
    deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec)
        self->RefuseOverCap(/*evicted=*/false);
    });
  } else {
    stream_.expires_after(config().read_timeout);
  }
  bhttp::async_read_header(stream_, buffer_, *parser_,
                           beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
}

void Session::AnswerUnparsable(beast::error_code ec) {
  std::optional<Reply> reply = UnparsableReply(ec, FirstLine(buffer_));
  if (!reply || busy_) {
    Close("reading a request: " + ec.message());  // nobody to answer
    return;
  }
  Begin(nullptr);
  keep_alive_ = false;
  Send(std::move(*reply));
}

void Session::OnHeader(beast::error_code ec, std::size_t bytes) {
  if (over_cap_ && busy_)
    return;  // refused while the header came in
  if (ec && ec != bhttp::error::body_limit) {
    AnswerUnparsable(ec);
    return;
  }
  if (over_cap_) {
    AnswerOverCap();
    return;
  }
  if (!ec && parser_->get().count(bhttp::field::transfer_encoding) != 0 && !parser_->chunked()) {
    // RFC 9112 6.3: a Transfer-Encoding other than chunked last leaves the body's length
    // unknown. Framing it by Content-Length instead is how requests get smuggled past proxies.
    Begin(&parser_->get());
    keep_alive_ = false;
    Send(ErrorReply(400, "invalid_request",
                    "Transfer-Encoding must end with chunked; the connection is closed"));
    return;
  }
  if (ec || parser_->is_done()) {
    OnRead(ec, bytes);
    return;
  }
  if (beast::iequals(parser_->get()[bhttp::field::expect], "100-continue")) {
    // Clients such as curl wait for this before sending a large body.
    continue_ = {bhttp::status::continue_, parser_->get().version()};
    stream_.expires_after(config().read_timeout);
    bhttp::async_write(stream_, continue_,
                       beast::bind_front_handler(&Session::OnContinueWritten, shared_from_this()));
    return;
  }
  ReadBody();
}

void Session::OnContinueWritten(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) {
    Close("writing 100 Continue: " + ec.message());
    return;
  }
  ReadBody();
}

void Session::ReadBody() {
  stream_.expires_after(config().read_timeout);
  bhttp::async_read(stream_, buffer_, *parser_,
                    beast::bind_front_handler(&Session::OnRead, shared_from_this()));
}

void Session::OnRead(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec == bhttp::error::body_limit) {
    // The header is parsed; the body is not read. Answer and close the connection.
    Begin(&parser_->get());
    keep_alive_ = false;
    Send(ErrorReply(413, "payload_too_large",
                    "request body is over the limit of " +
                        std::to_string(config().max_body_bytes >> 20) + " MB (--max-body-mb)"));
    return;
  }
  if (ec) {
    AnswerUnparsable(ec);
    return;
  }
  Request req = parser_->release();
  Begin(&req);
  keep_alive_ = req.keep_alive();
  request_.content_type = std::string(req[bhttp::field::content_type]);
  request_.if_none_match = std::string(req[bhttp::field::if_none_match]);
  request_.origin = std::string(req[bhttp::field::origin]);
  request_.last_event_id = std::string(req["Last-Event-ID"]);
  request_.body = std::move(req.body());
  Routed routed;
  try {
    routed = shared_.service.api().Route(request_);
  } catch (const std::exception& e) {
    spdlog::error("request_id={} unhandled exception: {}", request_id_, e.what());
    routed.reply = InternalReply();
  }
  route_ = routed.route.empty() ? "other" : routed.route;
  if (routed.reply) {
    Send(std::move(*routed.reply));
    return;
  }
  Enqueue(std::move(routed.work));
}

void Session::AnswerOverCap() {
  deadline_.cancel();
  const Request& req = parser_->get();
  Begin(&req);
  keep_alive_ = false;
  const Result<std::string> path = NormalizePath(path_);
  const bool probe = (req.method() == bhttp::verb::get || req.method() == bhttp::verb::head) &&
                     path.ok() && (*path == "/healthz" || *path == "/readyz");
  if (!probe) {
    Send(TooManyConnectionsReply());
    return;
  }
  Routed routed = shared_.service.api().Route(request_);
  route_ = routed.route;
  Send(routed.reply ? std::move(*routed.reply) : InternalReply());
}

}  // namespace ocr::http::internal
