// A session writes its answer, plain or streamed (StreamWriter), logs it, then reads the next
// request or closes, lingering so that the kernel does not reset the answer away.
#include <string>
#include <utility>

#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "http/access_log.h"
#include "http/internal/session.h"

namespace ocr::http::internal {

namespace {

// After an answer that closes the connection, what the client still sends (the rest of a refused
// body) is read and dropped this long at most: closing with unread bytes makes the kernel send a
// reset, which can destroy the answer before the client has read it.
constexpr std::chrono::seconds kLingerTime{2};
constexpr std::size_t kLingerBytes = 4 << 20;

}  // namespace

void Session::Send(Reply reply) {
  // HEAD: GET's status and headers, no body (RFC 9110 9.3.2); a stream is not started at all.
  const bool head = method_ == "HEAD";
  const bool streamed = reply.stream != nullptr;
  if (streamed && !head) {
    SendStream(std::move(reply));
    return;
  }
  if (streamed) {
    reply.stream->Abort();
    reply.stream.reset();
  }
  answered_ = true;
  lines_ = reply.lines;
  // Recorded before the write, so a client that scrapes right after its answer sees it.
  shared_.service.metrics().RecordRequest(
      route_, method_label_, reply.status,
      std::chrono::duration<double>(Clock::now() - received_).count());
  shared_.service.api().Decorate(reply, request_);
  res_ = Response(static_cast<bhttp::status>(reply.status), version_);
  res_.set(bhttp::field::server, "onnxocr");
  if (!reply.content_type.empty())
    res_.set(bhttp::field::content_type, reply.content_type);
  res_.set("X-Request-Id", request_id_);
  for (auto& [name, value] : reply.headers)
    res_.set(name, value);
  if (reply.retry_after)
    res_.set(bhttp::field::retry_after, "1");
  if (!reply.allow.empty())
    res_.set(bhttp::field::allow, reply.allow);
  res_.keep_alive(keep_alive_ && !shared_.service.draining());
  stream_.expires_after(config().read_timeout);
  if (head) {
    if (!streamed && reply.status != 204 && reply.status != 304)
      res_.content_length(reply.body.size());  // what GET would send
    head_only_.emplace(res_);
    bhttp::async_write_header(stream_, *head_only_,
                              beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
    return;
  }
  res_.body() = std::move(reply.body);
  // 204 and 304 have no body and carry no Content-Length (RFC 9110 8.6); prepare_payload would
  // add "0".
  if (reply.status != 204 && reply.status != 304)
    res_.prepare_payload();
  bhttp::async_write(stream_, res_,
                     beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
}

void Session::SendStream(Reply reply) {
  answered_ = true;
  shared_.service.metrics().RecordRequest(
      route_, method_label_, reply.status,
      std::chrono::duration<double>(Clock::now() - received_).count());
  shared_.service.api().Decorate(reply, request_);
  StreamWriter::Head head{static_cast<bhttp::status>(reply.status), version_};
  head.set(bhttp::field::server, "onnxocr");
  head.set(bhttp::field::content_type, reply.content_type);
  head.set("X-Request-Id", request_id_);
  for (auto& [name, value] : reply.headers)
    head.set(name, value);
  if (version_ < 11)
    keep_alive_ = false;  // HTTP/1.0: raw, and the end of the body is the connection's
  head.keep_alive(keep_alive_ && !shared_.service.draining());
  head.chunked(version_ >= 11);
  const unsigned status = reply.status;
  const bool keep_alive = head.keep_alive();
  writer_ = std::make_shared<StreamWriter>(
      stream_, std::move(reply.stream), std::move(head), config().read_timeout,
      [self = shared_from_this(), status, keep_alive](const StreamWriter::Outcome& outcome) {
        self->OnStreamEnd(outcome, status, keep_alive);
      });
  writer_->Start();
}

void Session::OnStreamEnd(const StreamWriter::Outcome& outcome, unsigned status, bool keep_alive) {
  writer_.reset();
  busy_ = false;
  if (!outcome.completed) {
    spdlog::info("request_id={} stream ended early: {}", request_id_, outcome.why);
    Close(outcome.why);
    return;
  }
  LogAccess(*shared_.access_log,
            {request_id_, method_, path_, status, outcome.bytes,
             std::chrono::duration<double, std::milli>(Clock::now() - received_).count(), -1});
  if (!keep_alive) {
    LingerClose();
    return;
  }
  DoRead();
}

void Session::OnWrite(beast::error_code ec, std::size_t bytes) {
  LogAccess(*shared_.access_log,
            {request_id_, method_, path_, res_.result_int(), bytes,
             std::chrono::duration<double, std::milli>(Clock::now() - received_).count(), lines_});
  busy_ = false;
  if (ec) {
    Close("writing the answer: " + ec.message());
    return;
  }
  if (!res_.keep_alive()) {
    LingerClose();
    return;
  }
  res_ = {};
  head_only_.reset();
  DoRead();
}

void Session::LingerClose() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream_.socket().cancel(ignored);
  linger_bytes_ = 0;
  linger_buffer_.resize(16 << 10);
  stream_.expires_after(kLingerTime);
  DoLinger();
}

void Session::DoLinger() {
  stream_.async_read_some(net::buffer(linger_buffer_),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                            self->linger_bytes_ += n;
                            if (ec || self->linger_bytes_ > kLingerBytes) {
                              self->Close("closed after the answer");
                              return;
                            }
                            self->DoLinger();
                          });
}

}  // namespace ocr::http::internal
