// A session's connection: its start, the listener's calls (refused over the cap, drained), a
// request's beginning and the close. Reading, working and writing are session_read.cpp,
// session_work.cpp and session_write.cpp (the class: internal/session.h).
#include "http/session.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "http/access_log.h"
#include "http/bad_requests.h"
#include "http/internal/session.h"

namespace ocr::http {
namespace internal {
namespace {

// The method as a metrics label: one of the methods HTTP names, never a client's free text.
std::string_view MethodLabel(bhttp::verb verb) {
  return verb == bhttp::verb::unknown ? "OTHER" : Sv(bhttp::to_string(verb));
}

}  // namespace

void Session::Start() {
  net::dispatch(stream_.get_executor(),
                beast::bind_front_handler(&Session::DoRead, shared_from_this()));
}

void Session::RefuseOverCap(bool evicted) {
  net::post(stream_.get_executor(), [self = shared_from_this(), evicted] {
    if (self->busy_)
      return;  // its request came: it is being answered
    beast::error_code ignored;
    if (evicted && self->stream_.socket().available(ignored) > 0)
      return;
    self->busy_ = true;
    self->deadline_.cancel();
    net::async_write(
        self->stream_, net::buffer(TooManyConnections()),
        [self](beast::error_code /*ec*/, std::size_t /*bytes*/) { self->LingerClose(); });
  });
}

void Session::Drain() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (!self->busy_)
      self->Close("draining");
  });
}

void Session::Begin(const Request* req) {
  busy_ = true;
  answered_ = false;
  received_ = Clock::now();
  route_ = "other";
  version_ = req ? req->version() : 11;
  method_ = req ? std::string(req->method_string()) : "-";
  method_label_ = req ? MethodLabel(req->method()) : "OTHER";
  const std::string_view target = req ? Sv(req->target()) : "-";
  const std::size_t question = target.find('?');
  path_ = std::string(target.substr(0, question));
  query_ = question == std::string_view::npos ? "" : std::string(target.substr(question + 1));
  const auto id = req ? req->find("X-Request-Id") : Request::const_iterator();
  request_id_ = req && id != req->end() && SaneRequestId(Sv(id->value())) ? std::string(id->value())
                                                                          : NewRequestId();
  request_ = ApiRequest{};
  request_.method = method_;
  request_.path = path_;
  request_.query = query_;
  request_.request_id = request_id_;
  request_.received = received_;
}

void Session::Close(std::string_view why) {
  spdlog::debug("connection closed after request_id={}: {}",
                request_id_.empty() ? "none" : request_id_, why);
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
  deadline_.cancel();  // its wait holds the session: an over-cap one would count in the lane
}

}  // namespace internal

std::shared_ptr<Connection> NewSession(boost::asio::ip::tcp::socket&& socket, SessionShared& shared,
                                       bool over_cap) {
  return std::make_shared<internal::Session>(std::move(socket), shared, over_cap);
}

}  // namespace ocr::http
