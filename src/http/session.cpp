#include "http/session.h"

#include <exception>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include "common/text.h"
#include "http/access_log.h"
#include "http/bad_requests.h"
#include "http/error_mapping.h"
#include "http/internal/hangup.h"
#include "http/request_path.h"
#include "http/stream_writer.h"

namespace ocr::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;

std::string_view Sv(beast::string_view s) {
  return {s.data(), s.size()};
}

// After an answer that closes the connection, what the client still sends (the rest of a refused
// body) is read and dropped this long at most: closing with unread bytes makes the kernel send a
// reset, which can destroy the answer before the client has read it.
constexpr std::chrono::seconds kLingerTime{2};
constexpr std::size_t kLingerBytes = 4 << 20;

// The method as a metrics label: one of the methods HTTP names, never a client's free text.
std::string_view MethodLabel(bhttp::verb verb) {
  return verb == bhttp::verb::unknown ? "OTHER" : Sv(bhttp::to_string(verb));
}

// One connection: reads requests one at a time (keep-alive), answers each in order.
class Session final : public Connection, public std::enable_shared_from_this<Session> {
 public:
  // `over_cap`: a connection over --max-connections, which answers only probes (one request, read
  // within kProbeDeadline) and does not count as a live session.
  Session(tcp::socket&& socket, SessionShared& shared, bool over_cap)
      : stream_(std::move(socket)),
        shared_(shared),
        deadline_(stream_.get_executor()),
        over_cap_(over_cap) {
    if (!over_cap_)
      shared_.live_sessions.fetch_add(1);
  }

  ~Session() override {
    if (!over_cap_)
      shared_.live_sessions.fetch_sub(1);
  }

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start() override {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::DoRead, shared_from_this()));
  }

  void RefuseOverCap(bool evicted) override {
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

  void Drain() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_)
        self->Close("draining");
    });
  }

 private:
  const ServerConfig& config() const { return shared_.service.config(); }

  void DoRead() {
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

  // Answers what the parser refused, when there is someone to answer, and closes.
  void AnswerUnparsable(beast::error_code ec) {
    std::optional<Reply> reply = UnparsableReply(ec, FirstLine(buffer_));
    if (!reply || busy_) {
      Close("reading a request: " + ec.message());  // nobody to answer
      return;
    }
    Begin(nullptr);
    keep_alive_ = false;
    Send(std::move(*reply));
  }

  // The header is in (a Content-Length over the limit already failed with body_limit).
  void OnHeader(beast::error_code ec, std::size_t bytes) {
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
      bhttp::async_write(
          stream_, continue_,
          beast::bind_front_handler(&Session::OnContinueWritten, shared_from_this()));
      return;
    }
    ReadBody();
  }

  void OnContinueWritten(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) {
      Close("writing 100 Continue: " + ec.message());
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(config().read_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, std::size_t /*bytes*/) {
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

  // Hands the work to the scheduler; its reply comes back to this strand unless the deadline
  // answered 504 first (then the work is asked to stop and its late reply is dropped).
  void Enqueue(Work work) {
    const std::uint64_t generation = ++generation_;
    auto stop = std::make_shared<std::stop_source>();
    stop_ = stop;
    sched::Job job;
    job.deadline = received_ + config().request_timeout;
    job.cancel = stop->get_token();  // the deadline answered while the job waited
    job.run = [self = shared_from_this(), work = std::move(work), stop, generation,
               request_id = request_id_](sched::WorkerContext& worker) {
      Reply reply;
      try {
        reply = work(WorkContext{stop->get_token(), self->shared_.service.pipelines(worker.group),
                                 &worker.runner});
      } catch (const std::exception& e) {
        spdlog::error("request_id={} unhandled exception in worker: {}", request_id, e.what());
        reply = InternalReply();
      }
      const bool stopped = stop->stop_requested();
      net::post(self->stream_.get_executor(),
                [self, generation, stopped, r = std::move(reply)]() mutable {
                  if (!self->IsCurrent(generation) || stopped) {
                    if (r.stream)
                      r.stream->Abort();  // a stream nobody will read: its pages stop
                  }
                  if (!self->IsCurrent(generation))
                    return;  // the deadline answered already
                  self->deadline_.cancel();
                  if (stopped) {  // the client hung up: nobody to answer
                    spdlog::info("request_id={} client closed the connection; work stopped",
                                 self->request_id_);
                    self->Close("client hung up");
                    return;
                  }
                  self->Send(std::move(r));
                });
    };
    // Dropped unrun: the deadline passed while the job waited (the scheduler can see that before
    // the deadline timer fires, so either one answers 504), or the client hung up (nobody to
    // answer, so the connection closes).
    job.dropped = [self = shared_from_this(), generation](const Status& why) {
      net::post(self->stream_.get_executor(), [self, generation, code = why.code()] {
        if (!self->IsCurrent(generation))
          return;
        self->deadline_.cancel();
        if (code == StatusCode::kDeadlineExceeded) {
          self->AnswerDeadlineExceeded();
          return;
        }
        spdlog::info("request_id={} client closed the connection; work dropped unrun",
                     self->request_id_);
        self->Close("client hung up");
      });
    };
    if (!shared_.service.scheduler().Submit(std::move(job)).ok()) {
      Send(BusyReply());
      return;
    }
    deadline_.expires_at(received_ + config().request_timeout);
    deadline_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
      if (ec || !self->IsCurrent(generation))
        return;
      if (auto source = self->stop_.lock())
        source->request_stop();
      self->AnswerDeadlineExceeded();
    });
    WatchForHangup(generation);
  }

  // Whether a reply, timer or watch of request `generation` still belongs to the request in
  // flight: it was not answered yet (a 504 or the reply got there first) and no later request
  // replaced it.
  bool IsCurrent(std::uint64_t generation) const {
    return generation == generation_ && busy_ && !answered_;
  }

  void AnswerDeadlineExceeded() {
    Send(ErrorReply(504, "deadline_exceeded",
                    "the request took longer than --request-timeout (" +
                        std::to_string(config().request_timeout.count()) +
                        " s); its work was abandoned"));
  }

  // While the work runs nobody reads the socket; a client that closes its end (or resets) would
  // otherwise keep a worker busy for nothing. On end of stream the work is asked to stop (as
  // nginx treats a client abort). Bytes of a pipelined request end the watch; they are read
  // after this answer.
  void WatchForHangup(std::uint64_t generation) {
    internal::WatchForHangup(
        stream_, [self = shared_from_this(), generation] { return self->IsCurrent(generation); },
        [self = shared_from_this()] {
          if (auto source = self->stop_.lock())
            source->request_stop();
        });
  }

  // A request's answer begins; none when the request did not parse (it is answered as HTTP/1.1).
  void Begin(const Request* req) {
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
    request_id_ = req && id != req->end() && SaneRequestId(Sv(id->value()))
                      ? std::string(id->value())
                      : NewRequestId();
    request_ = ApiRequest{};
    request_.method = method_;
    request_.path = path_;
    request_.query = query_;
    request_.request_id = request_id_;
    request_.received = received_;
  }

  void Send(Reply reply) {
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

  // A streamed answer: the header now, then the stream's pieces as they become ready
  // (StreamWriter). The deadline does not apply: the job behind the stream has its own.
  void SendStream(Reply reply) {
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

  void OnStreamEnd(const StreamWriter::Outcome& outcome, unsigned status, bool keep_alive) {
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

  void OnWrite(beast::error_code ec, std::size_t bytes) {
    LogAccess(
        *shared_.access_log,
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

  // Ends the connection after an answer: the write side closes at once (the client sees the end of
  // the answer), and what the client still sends is read and dropped for a moment, so that the
  // kernel does not reset the connection under an answer the client has not read yet. The hang-up
  // watch is cancelled, or it would keep the session alive until the client closes.
  void LingerClose() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().cancel(ignored);
    linger_bytes_ = 0;
    linger_buffer_.resize(16 << 10);
    stream_.expires_after(kLingerTime);
    DoLinger();
  }

  void DoLinger() {
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

  // A connection over --max-connections sent a request header: a probe is answered (and only a
  // probe: no work runs for a connection over the limit), anything else gets 503.
  void AnswerOverCap() {
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

  // `why` goes to the debug log: which connections end, and how, when a client reports a reset.
  void Close(std::string_view why) {
    spdlog::debug("connection closed after request_id={}: {}",
                  request_id_.empty() ? "none" : request_id_, why);
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
    deadline_.cancel();  // its wait holds the session: an over-cap one would count in the lane
  }

  beast::tcp_stream stream_;
  SessionShared& shared_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  Response res_;
  std::optional<bhttp::response_serializer<bhttp::string_body>> head_only_;  // a HEAD's answer
  std::vector<char> linger_buffer_;  // LingerClose: what the client still sends, dropped
  std::size_t linger_bytes_ = 0;
  bhttp::response<bhttp::empty_body> continue_;
  std::shared_ptr<StreamWriter> writer_;  // a streamed answer in progress
  // The request being answered (strand only).
  bool busy_ = false;
  bool answered_ = false;         // the current request has its reply (from work or deadline)
  std::uint64_t generation_ = 0;  // which request a worker's reply belongs to
  std::weak_ptr<std::stop_source> stop_;
  net::steady_timer deadline_;  // --request-timeout of the request being answered
  ApiRequest request_;
  std::string route_;
  int lines_ = -1;  // lines found by the request being answered, for the access log
  bool keep_alive_ = true;
  unsigned version_ = 11;
  Clock::time_point received_;
  std::string method_;
  std::string_view method_label_ = "OTHER";  // method_ for the metrics
  std::string path_;
  std::string query_;  // what follows the target's '?'
  std::string request_id_;
  const bool over_cap_;  // over --max-connections: answers one probe, or 503
};

}  // namespace

std::shared_ptr<Connection> NewSession(tcp::socket&& socket, SessionShared& shared, bool over_cap) {
  return std::make_shared<Session>(std::move(socket), shared, over_cap);
}

}  // namespace ocr::http
