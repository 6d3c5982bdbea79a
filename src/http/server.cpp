#include "http/server.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <stop_token>
#include <string_view>
#include <thread>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/text.h"
#include "http/access_log.h"
#include "http/api.h"
#include "http/error_mapping.h"
#include "http/metrics.h"
#include "http/request_path.h"
#include "jobs/job_store.h"
#include "sched/scheduler.h"

namespace ocr::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;
using Json = nlohmann::json;

std::string_view Sv(beast::string_view s) {
  return {s.data(), s.size()};
}

class Session;

// Request line and headers together; larger ones are answered 431 and the connection closes.
constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;

// A connection over --max-connections is read this long for a probe (GET /healthz or /readyz)
// before it is answered 503. Beyond kProbeLaneSize such connections, a new one pushes out the
// oldest, so idle connections cannot keep a kubelet's probe from being read; but never one younger
// than kProbeGrace, the time a probe needs to send its request line (under a flood of connections
// the oldest may be only microseconds old), up to kProbeLaneMax connections, which bounds the
// sockets a flood of silent connections can hold.
constexpr std::chrono::seconds kProbeDeadline{1};
constexpr std::size_t kProbeLaneSize = 32;
constexpr std::chrono::milliseconds kProbeGrace{100};
constexpr std::size_t kProbeLaneMax = 1024;

// After an answer that closes the connection, what the client still sends (the rest of a refused
// body) is read and dropped this long at most: closing with unread bytes makes the kernel send a
// reset, which can destroy the answer before the client has read it.
constexpr std::chrono::seconds kLingerTime{2};
constexpr std::size_t kLingerBytes = 4 << 20;

// The first line of what the parser refused, for telling HTTP/2.0 (505) from garbage (400).
std::string_view FirstLine(const beast::flat_buffer& buffer) {
  const auto data = buffer.data();
  const std::string_view bytes(static_cast<const char*>(data.data()), data.size());
  return bytes.substr(0, bytes.find("\r\n"));
}

// "... HTTP/d.d" at the end of a request line: a well-formed version this server does not speak.
bool NamesOtherHttpVersion(std::string_view line) {
  if (line.size() < 8)
    return false;
  const std::string_view v = line.substr(line.size() - 8);
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  return v.starts_with("HTTP/") && digit(v[5]) && v[6] == '.' && digit(v[7]);
}

// The answer to a request the parser refused (RFC 9112: a server answers 400 rather than guess),
// or nothing when there is nobody to answer (the client left, or was too slow: the read deadline).
std::optional<Reply> UnparsableReply(beast::error_code ec, std::string_view first_line) {
  if (ec.category() != bhttp::make_error_code(bhttp::error::end_of_stream).category() ||
      ec == bhttp::error::end_of_stream) {
    return std::nullopt;
  }
  using E = bhttp::error;
  std::string why;
  switch (static_cast<E>(ec.value())) {
    case E::header_limit:
      return ErrorReply(431, "header_too_large",
                        "the request line and headers are over " +
                            std::to_string(kMaxHeaderBytes / 1024) +
                            " KB together; send large values in the body");
    case E::bad_version:
      if (NamesOtherHttpVersion(first_line)) {
        return ErrorReply(505, "http_version_not_supported",
                          "this server speaks HTTP/1.1 and HTTP/1.0; the request is " +
                              PrintableEcho(first_line.substr(first_line.size() - 8)));
      }
      why = "the request line is not METHOD TARGET HTTP/1.1";
      break;
    case E::bad_method:
      why = "the request line does not start with a method (a token such as GET)";
      break;
    case E::bad_target:
      why =
          "the request target is empty or has a character a URL cannot hold (a space or a "
          "control character)";
      break;
    case E::bad_field:
      why = "a header line is not NAME: VALUE";
      break;
    case E::bad_value:
      why = "a header value has a control character";
      break;
    case E::bad_line_ending:
      why = "a line does not end with CRLF";
      break;
    case E::bad_content_length:
      why =
          "Content-Length must be one non-negative decimal number (repeated with different "
          "values, or given with Transfer-Encoding: chunked, it is refused)";
      break;
    case E::bad_transfer_encoding:
      why = "Transfer-Encoding cannot be repeated or combined with Content-Length (RFC 9112 6.1)";
      break;
    case E::bad_chunk:
    case E::bad_chunk_extension:
      why =
          "a chunk of the chunked body is malformed (a chunk starts with its size in hex and "
          "CRLF)";
      break;
    case E::bad_obs_fold:
      why = "a header is folded over several lines (obsolete, RFC 9112 5.2)";
      break;
    case E::partial_message:
      why = "the request ended before it was complete";
      break;
    default:
      why = "the request is not valid HTTP/1.1 (" + ec.message() + ")";
      break;
  }
  return ErrorReply(400, "invalid_request", why + "; the connection is closed");
}

// The method as a metrics label: one of the methods HTTP names, never a client's free text.
std::string_view MethodLabel(bhttp::verb verb) {
  return verb == bhttp::verb::unknown ? "OTHER" : Sv(bhttp::to_string(verb));
}

// The answer to a connection over --max-connections that is not a probe.
Reply TooManyConnectionsReply() {
  Reply reply = ErrorReply(503, "server_busy", "too many open connections; retry after a second");
  reply.retry_after = true;
  return reply;
}

// The same answer as bytes, for a connection refused before a request was read: built once.
const std::string& TooManyConnections() {
  static const std::string bytes = [] {
    Reply reply = TooManyConnectionsReply();
    Response res(bhttp::status::service_unavailable, 11);
    res.set(bhttp::field::content_type, reply.content_type);
    res.set(bhttp::field::retry_after, "1");
    res.keep_alive(false);
    res.body() = std::move(reply.body);
    res.prepare_payload();
    std::ostringstream out;
    out << res;
    return out.str();
  }();
  return bytes;
}

}  // namespace

struct Server::Impl {
  Impl(ServerConfig c, sched::Scheduler& s, std::vector<std::vector<const pipeline::Pipeline*>> p)
      : config(std::move(c)),
        scheduler(s),
        group_pipelines(std::move(p)),
        memory_budget(config.memory_budget_bytes),
        jobs(config.jobs,
             jobs::PageWorkers{&scheduler, group_pipelines,
                               [this](const document::DocumentPage& page) { RecordPage(page); }},
             scheduler.worker_count()),
        shared_jobs(MakeSharedJobs()),
        strand(net::make_strand(ioc)),
        acceptor(strand),
        signals(strand, SIGINT, SIGTERM),
        drain_timer(strand),
        sweep_timer(strand),
        metrics([this] {
          return Metrics::Gauges{scheduler.queued(), static_cast<size_t>(scheduler.busy()),
                                 static_cast<size_t>(live_sessions.load())};
        }),
        api(config, MakeServingFacts(scheduler), &memory_budget, group_pipelines.front(), metrics,
            {[this] { return draining.load(); }, [this] { return scheduler.full(); }}, jobs,
            shared_jobs.get()) {
    access_log = spdlog::get("access");
    if (!access_log) {
      access_log = spdlog::stderr_logger_mt("access");
      access_log->set_pattern("%v");
    }
  }

  Status Listen();
  void DoAccept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  void OnSignal(beast::error_code ec, int signo);
  void BeginDrain();
  void PollDrain();
  void Sweep();
  void RunIo();

  // A page of a job or stream in the metrics, as DocumentReply counts the pages it answers.
  void RecordPage(const document::DocumentPage& page) {
    if (!page.from_text_layer)
      metrics.RecordPipeline(page.times, page.lines.size());
    metrics.RecordPages(1);
  }

  // With --redis, the jobs every replica shares; pages read here count in this one's metrics.
  std::unique_ptr<jobs::RedisJobs> MakeSharedJobs() {
    if (!config.redis)
      return nullptr;
    std::vector<std::string> names;
    for (const pipeline::Pipeline* p : group_pipelines.front())
      names.push_back(p->models().name);
    return std::make_unique<jobs::RedisJobs>(
        *config.redis, config.jobs,
        jobs::PageWorkers{&scheduler, group_pipelines,
                          [this](const document::DocumentPage& page) { RecordPage(page); }},
        scheduler.worker_count(), std::move(names), config.limits);
  }

  static ServingFacts MakeServingFacts(const sched::Scheduler& s) {
    ServingFacts facts;
    for (const sched::WorkerGroupPlan& g : s.plan())
      facts.parallel_pages = std::max(facts.parallel_pages, static_cast<int>(g.cpus.size()));
    facts.worker_threads = s.worker_count();
    facts.worker_groups = static_cast<int>(s.plan().size());
    facts.queue_size = s.capacity();
    return facts;
  }

  const ServerConfig config;
  sched::Scheduler& scheduler;
  // Per worker group, the model sets in the same order (index 0 is the default).
  const std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines;
  sched::MemoryBudget memory_budget;             // outlives the api and the work it hands out
  jobs::JobStore jobs;                           // long documents; outlives the api
  std::unique_ptr<jobs::RedisJobs> shared_jobs;  // --redis: jobs in Redis; outlives the api
  std::shared_ptr<spdlog::logger> access_log;
  std::atomic<bool> draining{false};
  std::atomic<int> live_sessions{0};
  Mutex sessions_mu;
  std::vector<std::weak_ptr<Session>> sessions GUARDED_BY(sessions_mu);
  Clock::time_point drain_deadline;  // strand only

  // Connections over --max-connections, read only for a probe (kProbeDeadline), oldest first.
  struct WaitingProbe {
    std::weak_ptr<Session> session;
    Clock::time_point accepted;
  };

  std::deque<WaitingProbe> probe_lane;  // strand only

  // Destroyed in reverse; Run() stops the scheduler's workers before the io_context goes.
  net::io_context ioc;
  net::strand<net::io_context::executor_type> strand;  // acceptor, signals, drain timer
  tcp::acceptor acceptor;
  net::signal_set signals;
  net::steady_timer drain_timer;
  net::steady_timer sweep_timer;  // expires jobs and stops those past --job-timeout
  Metrics metrics;
  const Api api;
};

namespace {

// One connection: reads requests one at a time (keep-alive), answers each in order.
class Session : public std::enable_shared_from_this<Session> {
 public:
  // `over_cap`: a connection over --max-connections, which answers only probes (one request, read
  // within kProbeDeadline) and does not count as a live session.
  Session(tcp::socket&& socket, Server::Impl& server, bool over_cap = false)
      : stream_(std::move(socket)),
        server_(server),
        deadline_(stream_.get_executor()),
        over_cap_(over_cap) {
    if (!over_cap_)
      server_.live_sessions.fetch_add(1);
  }

  ~Session() {
    if (!over_cap_)
      server_.live_sessions.fetch_sub(1);
  }

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::DoRead, shared_from_this()));
  }

  // Any thread: an over-cap connection whose request has not come answers 503 and closes. Pushed
  // out of the lane (`evicted`), one whose request is already arriving is left to its deadline:
  // under a flood of new connections, a probe's bytes may not have been read yet.
  void RefuseOverCap(bool evicted) {
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

  // Any thread: closes the connection unless a request is being answered (that one finishes
  // and then the connection closes).
  void Drain() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_)
        self->Close("draining");
    });
  }

 private:
  void DoRead() {
    if (server_.draining.load()) {
      Close("draining");
      return;
    }
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(server_.config.max_body_bytes);
    if (over_cap_) {
      // The deadline answers 503; the stream's own expiry (which closes the socket) is a backstop.
      stream_.expires_after(kProbeDeadline + kProbeDeadline);
      deadline_.expires_after(kProbeDeadline);
      deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec)
          self->RefuseOverCap(/*evicted=*/false);
      });
    } else {
      stream_.expires_after(server_.config.read_timeout);
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
      stream_.expires_after(server_.config.read_timeout);
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
    stream_.expires_after(server_.config.read_timeout);
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
                          std::to_string(server_.config.max_body_bytes >> 20) +
                          " MB (--max-body-mb)"));
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
      routed = server_.api.Route(request_);
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
    job.deadline = received_ + server_.config.request_timeout;
    job.cancel = stop->get_token();  // the deadline answered while the job waited
    job.run = [self = shared_from_this(), work = std::move(work), stop, generation,
               request_id = request_id_](sched::WorkerContext& worker) {
      Reply reply;
      try {
        reply = work(WorkContext{stop->get_token(),
                                 self->server_.group_pipelines[static_cast<size_t>(worker.group)],
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
    if (!server_.scheduler.Submit(std::move(job)).ok()) {
      Send(BusyReply());
      return;
    }
    deadline_.expires_at(received_ + server_.config.request_timeout);
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
                        std::to_string(server_.config.request_timeout.count()) +
                        " s); its work was abandoned"));
  }

  // While the work runs nobody reads the socket; a client that closes its end (or resets) would
  // otherwise keep a worker busy for nothing. On end of stream the work is asked to stop (as
  // nginx treats a client abort). Bytes of a pipelined request end the watch; they are read
  // after this answer.
  void WatchForHangup(std::uint64_t generation) {
    stream_.socket().async_wait(
        tcp::socket::wait_read, [self = shared_from_this(), generation](beast::error_code ec) {
          if (ec || !self->IsCurrent(generation))
            return;
          char byte = 0;
          const ssize_t n =
              ::recv(self->stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A wake-up with nothing to read (readiness the request's own read left behind):
            // keep watching, or a hang-up during this request would go unnoticed.
            self->WatchForHangup(generation);
            return;
          }
          if (n > 0)
            return;
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
    path_ = std::string(target.substr(0, target.find('?')));
    const auto id = req ? req->find("X-Request-Id") : Request::const_iterator();
    request_id_ = req && id != req->end() && SaneRequestId(Sv(id->value()))
                      ? std::string(id->value())
                      : NewRequestId();
    request_ = ApiRequest{};
    request_.method = method_;
    request_.path = path_;
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
    server_.metrics.RecordRequest(route_, method_label_, reply.status,
                                  std::chrono::duration<double>(Clock::now() - received_).count());
    server_.api.Decorate(reply, request_);
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
    res_.keep_alive(keep_alive_ && !server_.draining.load());
    stream_.expires_after(server_.config.read_timeout);
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

  // A streamed answer: the header now, then the stream's pieces as they become ready, chunked
  // (HTTP/1.0: raw, and the connection closes at the end). No deadline applies: the job behind
  // the stream has its own (--job-timeout).
  void SendStream(Reply reply) {
    answered_ = true;
    streaming_ = reply.stream;
    stream_bytes_ = 0;
    server_.metrics.RecordRequest(route_, method_label_, reply.status,
                                  std::chrono::duration<double>(Clock::now() - received_).count());
    server_.api.Decorate(reply, request_);
    head_ = {static_cast<bhttp::status>(reply.status), version_};
    head_.set(bhttp::field::server, "onnxocr");
    head_.set(bhttp::field::content_type, reply.content_type);
    head_.set("X-Request-Id", request_id_);
    for (auto& [name, value] : reply.headers)
      head_.set(name, value);
    chunked_ = version_ >= 11;
    if (!chunked_)
      keep_alive_ = false;
    head_.keep_alive(keep_alive_ && !server_.draining.load());
    head_.chunked(chunked_);
    head_serializer_.emplace(head_);
    stream_.expires_after(server_.config.read_timeout);
    bhttp::async_write_header(
        stream_, *head_serializer_,
        beast::bind_front_handler(&Session::OnStreamHeader, shared_from_this()));
  }

  void OnStreamHeader(beast::error_code ec, std::size_t bytes) {
    stream_bytes_ += bytes;
    if (ec) {
      EndStream("writing a stream's header: " + ec.message());
      return;
    }
    std::weak_ptr<Session> weak = weak_from_this();
    streaming_->Start([weak] {
      if (auto self = weak.lock())
        net::post(self->stream_.get_executor(), [self] { self->PumpStream(); });
    });
    WatchStreamHangup();
    PumpStream();
  }

  // Sends what the stream has ready; when nothing is, waits for its wake-up (or the heartbeat).
  void PumpStream() {
    if (!streaming_ || stream_writing_)
      return;
    ReplyStream::Piece piece = streaming_->Next();
    if (piece.bytes.empty() && !piece.last) {
      stream_.expires_never();
      deadline_.expires_after(kHeartbeat);
      deadline_.async_wait([self = shared_from_this(), target = streaming_](beast::error_code e) {
        if (e || self->streaming_ != target || self->stream_writing_)
          return;
        if (std::string beat = target->Heartbeat(); !beat.empty())
          self->WritePiece({std::move(beat), false});
        else
          self->PumpStream();
      });
      return;
    }
    deadline_.cancel();
    WritePiece(std::move(piece));
  }

  void WritePiece(ReplyStream::Piece piece) {
    stream_writing_ = true;
    stream_last_ = piece.last;
    stream_out_.clear();
    if (chunked_) {
      if (!piece.bytes.empty()) {
        char size[20];
        const int n = std::snprintf(size, sizeof(size), "%zx\r\n", piece.bytes.size());
        stream_out_.append(size, static_cast<std::size_t>(n));
        stream_out_ += piece.bytes;
        stream_out_ += "\r\n";
      }
      if (piece.last)
        stream_out_ += "0\r\n\r\n";
    } else {
      stream_out_ = std::move(piece.bytes);
    }
    stream_.expires_after(server_.config.read_timeout);
    net::async_write(stream_, net::buffer(stream_out_),
                     beast::bind_front_handler(&Session::OnStreamWrite, shared_from_this()));
  }

  void OnStreamWrite(beast::error_code ec, std::size_t bytes) {
    stream_writing_ = false;
    stream_bytes_ += bytes;
    if (ec) {
      EndStream("writing a stream: " + ec.message());
      return;
    }
    if (!stream_last_) {
      PumpStream();
      return;
    }
    streaming_.reset();
    LogAccess(*server_.access_log,
              {request_id_, method_, path_, head_.result_int(), stream_bytes_,
               std::chrono::duration<double, std::milli>(Clock::now() - received_).count(), -1});
    busy_ = false;
    if (!head_.keep_alive()) {
      LingerClose();
      return;
    }
    DoRead();
  }

  // The stream cannot go on (the client left, a write failed): stop what exists only for it.
  void EndStream(std::string_view why) {
    if (streaming_) {
      streaming_->Abort();
      streaming_.reset();
      spdlog::info("request_id={} stream ended early: {}", request_id_, why);
    }
    deadline_.cancel();
    busy_ = false;
    Close(why);
  }

  // While a stream runs, a client that closes its end is noticed at once (not at the next write,
  // which may be a page away), so a stream's remaining pages are cancelled within milliseconds.
  void WatchStreamHangup() {
    stream_.socket().async_wait(
        tcp::socket::wait_read,
        [self = shared_from_this(), target = streaming_](beast::error_code ec) {
          if (ec || self->streaming_ != target)
            return;
          char byte = 0;
          const ssize_t n =
              ::recv(self->stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            self->WatchStreamHangup();  // a wake-up with nothing to read: keep watching
            return;
          }
          if (n > 0)
            return;  // bytes of a next request: read after the stream
          self->EndStream("client hung up");
        });
  }

  void OnWrite(beast::error_code ec, std::size_t bytes) {
    LogAccess(
        *server_.access_log,
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
    Routed routed = server_.api.Route(request_);
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

  // How often an idle event stream sends a comment, under the 60 s that proxies commonly allow.
  static constexpr std::chrono::seconds kHeartbeat{15};

  beast::tcp_stream stream_;
  Server::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  Response res_;
  std::optional<bhttp::response_serializer<bhttp::string_body>> head_only_;  // a HEAD's answer
  std::vector<char> linger_buffer_;  // LingerClose: what the client still sends, dropped
  std::size_t linger_bytes_ = 0;
  bhttp::response<bhttp::empty_body> continue_;
  // A streamed answer in progress (strand only).
  std::shared_ptr<ReplyStream> streaming_;
  bhttp::response<bhttp::empty_body> head_;
  std::optional<bhttp::response_serializer<bhttp::empty_body>> head_serializer_;
  std::string stream_out_;
  bool chunked_ = true;
  bool stream_writing_ = false;
  bool stream_last_ = false;
  std::size_t stream_bytes_ = 0;
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
  std::string request_id_;
  const bool over_cap_;  // over --max-connections: answers one probe, or 503
};

}  // namespace

Status Server::Impl::Listen() {
  beast::error_code ec;
  tcp::resolver resolver(ioc);
  const auto results =
      resolver.resolve(config.host, std::to_string(config.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return InvalidArgument("--host " + config.host + ": cannot resolve (" + ec.message() + ")");
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  const std::string where = config.host + ":" + std::to_string(config.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec)
    acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec)
    acceptor.bind(endpoint, ec);
  if (!ec)
    acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return Status(StatusCode::kIoError, "cannot listen on " + where + ": " + ec.message());
  spdlog::info("listening on {}:{}", config.host, acceptor.local_endpoint(ec).port());
  return Status::Ok();
}

void Server::Impl::DoAccept() {
  acceptor.async_accept(net::make_strand(ioc),
                        beast::bind_front_handler(&Server::Impl::OnAccept, this));
}

void Server::Impl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (!acceptor.is_open() || ec == net::error::operation_aborted)
    return;
  if (ec) {
    spdlog::warn("accept failed: {}", ec.message());
    DoAccept();
    return;
  }
  if (draining.load())
    return;
  if (config.max_connections > 0 && live_sessions.load() >= config.max_connections) {
    // Over the limit, a connection still gets its probe answered (a liveness probe failing just
    // when the server is busiest would get a healthy replica restarted). The lane is bounded;
    // its oldest connection makes room, so a flood of idle connections cannot hold it.
    const Clock::time_point now = Clock::now();
    std::erase_if(probe_lane, [](const WaitingProbe& p) { return p.session.expired(); });
    while (probe_lane.size() >= kProbeLaneSize &&
           probe_lane.front().accepted + kProbeGrace <= now) {
      if (auto oldest = probe_lane.front().session.lock())
        oldest->RefuseOverCap(/*evicted=*/true);
      probe_lane.pop_front();
    }
    beast::error_code ignored;
    // A burst drained from the listen backlog is all young here; one whose request is already
    // in (a probe that waited in the backlog) is still read.
    if (probe_lane.size() >= kProbeLaneMax && socket.available(ignored) == 0) {
      // A fresh socket's send buffer is empty, so this short write does not block.
      net::write(socket, net::buffer(TooManyConnections()), ignored);
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
      DoAccept();
      return;
    }
    auto session = std::make_shared<Session>(std::move(socket), *this, /*over_cap=*/true);
    probe_lane.push_back({session, now});
    session->Start();
    DoAccept();
    return;
  }
  auto session = std::make_shared<Session>(std::move(socket), *this);
  {
    MutexLock lock(&sessions_mu);
    std::erase_if(sessions, [](const std::weak_ptr<Session>& s) { return s.expired(); });
    sessions.push_back(session);
  }
  session->Start();
  DoAccept();
}

void Server::Impl::OnSignal(beast::error_code ec, int signo) {
  if (ec)
    return;
  if (draining.load()) {
    spdlog::warn("signal {} again: stopping now", signo);
    ioc.stop();
    return;
  }
  spdlog::info("signal {}: draining (up to {} s)", signo, config.drain_timeout.count());
  BeginDrain();
  signals.async_wait(beast::bind_front_handler(&Server::Impl::OnSignal, this));
}

void Server::Impl::BeginDrain() {
  draining.store(true);
  jobs.StopAdmitting();
  if (shared_jobs)
    shared_jobs->StopClaiming();  // pages in flight finish; other replicas take the rest
  beast::error_code ignored;
  acceptor.close(ignored);
  std::vector<std::weak_ptr<Session>> snapshot;
  {
    MutexLock lock(&sessions_mu);
    snapshot = sessions;
  }
  for (const auto& weak : snapshot) {
    if (auto session = weak.lock())
      session->Drain();
  }
  drain_deadline = Clock::now() + config.drain_timeout;
  PollDrain();
}

void Server::Impl::PollDrain() {
  // Jobs running when SIGTERM came may finish within the drain time; then they are cancelled.
  if (live_sessions.load() == 0 && jobs.unfinished() == 0 &&
      (!shared_jobs || shared_jobs->in_flight() == 0)) {
    spdlog::info("drained; stopping");
    ioc.stop();
    return;
  }
  if (Clock::now() >= drain_deadline) {
    if (jobs.unfinished() > 0) {
      spdlog::warn("drain timeout: cancelling {} unfinished job(s)", jobs.unfinished());
      jobs.CancelAll(
          Status(StatusCode::kUnavailable, "the server is shutting down; send the document again"));
      // A moment for streams to send their last line.
      drain_deadline = Clock::now() + std::chrono::milliseconds(500);
    } else {
      spdlog::warn("drain timeout: closing {} connection(s)", live_sessions.load());
      if (shared_jobs)
        shared_jobs->Stop();  // hands its unfinished pages back to the queue
      ioc.stop();
      return;
    }
  }
  drain_timer.expires_after(std::chrono::milliseconds(20));
  drain_timer.async_wait([this](beast::error_code ec) {
    if (!ec)
      PollDrain();
  });
}

void Server::Impl::Sweep() {
  jobs.Sweep();
  sweep_timer.expires_after(std::chrono::milliseconds(500));
  sweep_timer.async_wait([this](beast::error_code ec) {
    if (!ec)
      Sweep();
  });
}

void Server::Impl::RunIo() {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("I/O thread: unhandled exception: {}", e.what());
    }
  }
}

Server::Server(ServerConfig config, sched::Scheduler& scheduler,
               std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines)
    : impl_(std::make_unique<Impl>(std::move(config), scheduler, std::move(group_pipelines))) {}

Server::~Server() = default;

Status Server::Run() {
  Impl& s = *impl_;
  OCR_RETURN_IF_ERROR(s.Listen());
  if (s.shared_jobs)
    s.shared_jobs->Start();
  net::dispatch(s.strand, [&s] {
    s.DoAccept();
    s.Sweep();
    s.signals.async_wait(beast::bind_front_handler(&Server::Impl::OnSignal, &s));
  });
  {
    std::vector<std::jthread> io;
    for (int i = 1; i < s.config.io_threads; ++i)
      io.emplace_back([&s] { s.RunIo(); });
    s.RunIo();
  }
  s.jobs.CancelAll(Status(StatusCode::kUnavailable, "the server is shutting down"));
  if (s.shared_jobs)
    s.shared_jobs->Stop();  // before the workers stop, so stopped pages come back to it
  s.scheduler.Stop();       // drops queued jobs; a job already running finishes first
  spdlog::info("stopped");
  return Status::Ok();
}

}  // namespace ocr::http
