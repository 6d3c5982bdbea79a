#include "http/stream_writer.h"

#include <cstdio>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "http/internal/hangup.h"

namespace ocr::http {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;

StreamWriter::StreamWriter(beast::tcp_stream& socket, std::shared_ptr<ReplyStream> body, Head head,
                           std::chrono::seconds write_timeout,
                           std::function<void(const Outcome&)> done)
    : socket_(socket),
      body_(std::move(body)),
      head_(std::move(head)),
      write_timeout_(write_timeout),
      done_(std::move(done)),
      heartbeat_(socket.get_executor()),
      chunked_(head_.chunked()) {}

void StreamWriter::Start() {
  serializer_.emplace(head_);
  socket_.expires_after(write_timeout_);
  bhttp::async_write_header(socket_, *serializer_,
                            beast::bind_front_handler(&StreamWriter::OnHeader, shared_from_this()));
}

void StreamWriter::OnHeader(beast::error_code ec, std::size_t bytes) {
  bytes_ += bytes;
  if (ec) {
    End(false, "writing a stream's header: " + ec.message());
    return;
  }
  std::weak_ptr<StreamWriter> weak = weak_from_this();
  body_->Start([weak] {
    if (auto self = weak.lock())
      net::post(self->socket_.get_executor(), [self] { self->Pump(); });
  });
  WatchHangup();
  Pump();
}

void StreamWriter::Pump() {
  if (!done_ || writing_)
    return;
  ReplyStream::Piece piece = body_->Next();
  if (piece.bytes.empty() && !piece.last) {
    socket_.expires_never();
    heartbeat_.expires_after(kHeartbeat);
    heartbeat_.async_wait([self = shared_from_this()](beast::error_code e) {
      if (e || !self->done_ || self->writing_)
        return;
      if (std::string beat = self->body_->Heartbeat(); !beat.empty())
        self->Write({std::move(beat), false});
      else
        self->Pump();
    });
    return;
  }
  heartbeat_.cancel();
  Write(std::move(piece));
}

void StreamWriter::Write(ReplyStream::Piece piece) {
  writing_ = true;
  last_ = piece.last;
  out_.clear();
  if (chunked_) {
    if (!piece.bytes.empty()) {
      char size[20];
      const int n = std::snprintf(size, sizeof(size), "%zx\r\n", piece.bytes.size());
      out_.append(size, static_cast<std::size_t>(n));
      out_ += piece.bytes;
      out_ += "\r\n";
    }
    if (piece.last)
      out_ += "0\r\n\r\n";
  } else {
    out_ = std::move(piece.bytes);
  }
  socket_.expires_after(write_timeout_);
  net::async_write(socket_, net::buffer(out_),
                   beast::bind_front_handler(&StreamWriter::OnWrite, shared_from_this()));
}

void StreamWriter::OnWrite(beast::error_code ec, std::size_t bytes) {
  writing_ = false;
  bytes_ += bytes;
  if (ec) {
    End(false, "writing a stream: " + ec.message());
    return;
  }
  if (!last_) {
    Pump();
    return;
  }
  End(true, "");
}

void StreamWriter::WatchHangup() {
  internal::WatchForHangup(
      socket_, [self = shared_from_this()] { return static_cast<bool>(self->done_); },
      [self = shared_from_this()] { self->End(false, "client hung up"); });
}

void StreamWriter::End(bool completed, std::string why) {
  if (!done_)
    return;
  heartbeat_.cancel();
  if (!completed)
    body_->Abort();
  body_.reset();
  // Moved out first: `done` may hold the last reference to the writer's owner.
  const std::function<void(const Outcome&)> done = std::move(done_);
  done_ = nullptr;
  done({completed, bytes_, std::move(why)});
}

}  // namespace ocr::http
