#include "http/server.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <ctime>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
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
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "http/base64.h"
#include "http/response_json.h"
#include "image/decode.h"

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

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// What a handler answers; turned into a Beast response on the connection's strand.
struct Reply {
  Reply() = default;

  Reply(unsigned s, std::string b) : status(s), body(std::move(b)) {}

  unsigned status = 200;
  std::string body;
  bool retry_after = false;  // 503 server_busy: "Retry-After: 1"
  std::string allow;         // 405: the methods the route accepts
};

Reply ErrorReply(unsigned status, std::string_view code, std::string message) {
  return {status, Dump({{"success", false}, {"error", {{"code", code}, {"message", message}}}})};
}

unsigned HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kUnsupportedMediaType:
      return 415;
    case StatusCode::kUndecodableImage:
    case StatusCode::kImageTooLarge:
    case StatusCode::kInvalidPdf:
    case StatusCode::kEncryptedPdf:
    case StatusCode::kTooManyPages:
      return 422;
    case StatusCode::kResourceExhausted:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kOk:
    case StatusCode::kModelLoadFailed:
    case StatusCode::kIoError:
    case StatusCode::kCancelled:
    case StatusCode::kInternal:
      break;
  }
  return 500;
}

Reply StatusReply(const Status& status) {
  return {HttpStatusFor(status.code()), Dump(ErrorJson(status))};
}

Reply InternalReply() {
  return ErrorReply(500, "internal",
                    "internal server error; the request id identifies it in the log");
}

bool SaneRequestId(std::string_view id) {
  if (id.empty() || id.size() > 128)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::uint64_t v = rng();
  std::string id(16, '0');
  for (char& c : id) {
    c = kHex[v & 0xF];
    v >>= 4;
  }
  return id;
}

std::string UtcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%.*s.%03dZ", static_cast<int>(n), buf, static_cast<int>(ms));
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "application/json; charset=utf-8" -> "application/json".
std::string MediaType(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  while (!content_type.empty() && std::isspace(static_cast<unsigned char>(content_type.front()))) {
    content_type.remove_prefix(1);
  }
  while (!content_type.empty() && std::isspace(static_cast<unsigned char>(content_type.back()))) {
    content_type.remove_suffix(1);
  }
  return Lower(content_type);
}

// One bounded queue in front of the workers (mutex + condition variable).
class JobQueue {
 public:
  using Job = std::function<void()>;

  explicit JobQueue(size_t capacity) : capacity_(capacity) {}

  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // False (and `job` dropped) when the queue is full.
  bool TryPush(Job job) {
    {
      std::lock_guard lock(mu_);
      if (jobs_.size() >= capacity_)
        return false;
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
    return true;
  }

  // Blocks until a job is queued or `stop` is requested (then nullopt).
  std::optional<Job> Pop(std::stop_token stop) {
    std::unique_lock lock(mu_);
    if (!cv_.wait(lock, stop, [this] { return !jobs_.empty(); }))
      return std::nullopt;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    return job;
  }

  void Clear() {
    std::deque<Job> dropped;
    std::lock_guard lock(mu_);
    dropped.swap(jobs_);
  }

 private:
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<Job> jobs_;  // guarded by mu_
  const size_t capacity_;
};

class Session;

// Runs on a worker: base64 -> magic bytes -> header check -> decode -> OCR -> JSON.
Reply RunOcr(const std::string& image_b64, const pipeline::Pipeline& pipe,
             const pipeline::OcrOptions& options, std::int64_t max_pixels,
             Clock::time_point received, Clock::time_point deadline) {
  if (Clock::now() > deadline) {
    return ErrorReply(504, "deadline_exceeded",
                      "the request waited longer than --request-timeout for a worker");
  }
  auto bytes = DecodeBase64(image_b64);
  if (!bytes.ok())
    return ErrorReply(400, "invalid_base64", "image: " + bytes.status().message());
  const std::span<const std::uint8_t> data(reinterpret_cast<const std::uint8_t*>(bytes->data()),
                                           bytes->size());
  const image::Format format = image::SniffFormat(data);
  if (format == image::Format::kPdf) {
    return ErrorReply(415, "unsupported_media_type",
                      "PDF input is not supported yet; send an image (JPEG, PNG, WebP, BMP, TIFF)");
  }
  if (format == image::Format::kUnknown) {
    return ErrorReply(415, "unsupported_media_type",
                      "the image data is not a supported format (JPEG, PNG, WebP, BMP or TIFF)");
  }
  image::DecodeOptions decode_options;
  decode_options.max_pixels = max_pixels;
  auto mat = image::DecodeImage(data, decode_options);
  if (!mat.ok())
    return StatusReply(mat.status());
  bytes = std::string();  // free the encoded copy before inference
  auto result = pipe.Run(*mat, options);
  if (!result.ok())
    return StatusReply(result.status());
  const double seconds = std::chrono::duration<double>(Clock::now() - received).count();
  return {200, Dump(OcrResponseJson(result->lines, seconds))};
}

}  // namespace

struct Server::Impl {
  Impl(ServerConfig c, std::vector<const pipeline::Pipeline*> p)
      : config(std::move(c)),
        pipelines(std::move(p)),
        strand(net::make_strand(ioc)),
        acceptor(strand),
        signals(strand, SIGINT, SIGTERM),
        drain_timer(strand),
        queue(std::max<size_t>(config.queue_size, 1)) {
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
  void RunIo();
  void WorkerLoop(const std::stop_token& stop);

  const ServerConfig config;
  const std::vector<const pipeline::Pipeline*> pipelines;
  std::shared_ptr<spdlog::logger> access_log;
  std::atomic<bool> draining{false};
  std::atomic<int> live_sessions{0};
  std::mutex sessions_mu;
  std::vector<std::weak_ptr<Session>> sessions;  // guarded by sessions_mu
  Clock::time_point drain_deadline;              // strand only

  // Destroyed in reverse: workers are joined before the queue and the io_context go.
  net::io_context ioc;
  net::strand<net::io_context::executor_type> strand;  // acceptor, signals, drain timer
  tcp::acceptor acceptor;
  net::signal_set signals;
  net::steady_timer drain_timer;
  JobQueue queue;
  std::vector<std::jthread> workers;
};

namespace {

// One connection: reads requests one at a time (keep-alive), answers each in order.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Server::Impl& server)
      : stream_(std::move(socket)), server_(server) {
    server_.live_sessions.fetch_add(1);
  }

  ~Session() { server_.live_sessions.fetch_sub(1); }

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::DoRead, shared_from_this()));
  }

  // Any thread: closes the connection unless a request is being answered (that one finishes
  // and then the connection closes).
  void Drain() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_)
        self->Close();
    });
  }

 private:
  void DoRead() {
    if (server_.draining.load()) {
      Close();
      return;
    }
    parser_.emplace();
    parser_->body_limit(server_.config.max_body_bytes);
    stream_.expires_after(server_.config.read_timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  // The header is in (a Content-Length over the limit already failed with body_limit).
  void OnHeader(beast::error_code ec, std::size_t bytes) {
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
      Close();
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
      Begin(parser_->get());
      keep_alive_ = false;
      Send(ErrorReply(413, "payload_too_large",
                      "request body is over the limit of " +
                          std::to_string(server_.config.max_body_bytes >> 20) +
                          " MB (--max-body-mb)"));
      return;
    }
    if (ec) {
      Close();  // end of stream, timeout, reset, malformed request: nobody to answer
      return;
    }
    Request req = parser_->release();
    Begin(req);
    keep_alive_ = req.keep_alive();
    std::optional<Reply> reply;
    try {
      reply = Route(req);
    } catch (const std::exception& e) {
      spdlog::error("request_id={} unhandled exception: {}", request_id_, e.what());
      reply = InternalReply();
    } catch (...) {
      spdlog::error("request_id={} unhandled exception", request_id_);
      reply = InternalReply();
    }
    if (reply)
      Send(std::move(*reply));
  }

  void Begin(const Request& req) {
    busy_ = true;
    received_ = Clock::now();
    version_ = req.version();
    method_ = std::string(req.method_string());
    const std::string_view target = Sv(req.target());
    path_ = std::string(target.substr(0, target.find('?')));
    const auto id = req.find("X-Request-Id");
    request_id_ = (id != req.end() && SaneRequestId(Sv(id->value()))) ? std::string(id->value())
                                                                      : NewRequestId();
  }

  // Answers now, or queues the work and returns nullopt (the worker posts the answer back).
  std::optional<Reply> Route(Request& req) {
    const bhttp::verb method = req.method();
    if (path_ == "/healthz") {
      if (method != bhttp::verb::get)
        return MethodNotAllowed("GET");
      return Reply{200, R"({"status":"ok"})"};
    }
    if (path_ == "/readyz") {
      if (method != bhttp::verb::get)
        return MethodNotAllowed("GET");
      if (server_.draining.load()) {
        return ErrorReply(503, "not_ready", "the server is shutting down");
      }
      return Reply{200, R"({"status":"ready"})"};
    }
    if (path_ == "/ocr" || path_ == "/ocr_api") {
      if (method != bhttp::verb::post)
        return MethodNotAllowed("POST");
      return HandleOcr(req);
    }
    return ErrorReply(404, "not_found", "no route for " + path_);
  }

  static Reply MethodNotAllowed(std::string allow) {
    Reply r = ErrorReply(405, "method_not_allowed", "this route accepts only " + allow);
    r.allow = std::move(allow);
    return r;
  }

  std::optional<Reply> HandleOcr(Request& req) {
    const std::string media = MediaType(Sv(req[bhttp::field::content_type]));
    if (media == "multipart/form-data") {
      return ErrorReply(415, "unsupported_media_type",
                        "multipart/form-data uploads are not supported yet; send "
                        "Content-Type: application/json with {\"image\": \"<base64>\"}");
    }
    if (media != "application/json") {
      return ErrorReply(415, "unsupported_media_type",
                        "Content-Type must be application/json (got '" + media + "')");
    }
    Json body = Json::parse(req.body(), nullptr, /*allow_exceptions=*/false);
    req.body().clear();
    req.body().shrink_to_fit();
    if (body.is_discarded())
      return ErrorReply(400, "invalid_json", "request body is not valid JSON");
    if (!body.is_object()) {
      return ErrorReply(400, "invalid_json", "request body must be a JSON object");
    }
    const auto image = body.find("image");
    if (image == body.end() || image->is_null()) {
      return ErrorReply(400, "missing_field",
                        "field \"image\" is required: a base64 string or a data: URI");
    }
    if (!image->is_string()) {
      return ErrorReply(400, "invalid_option", "\"image\" must be a string (base64 or data: URI)");
    }

    const pipeline::Pipeline* pipe = server_.pipelines.front();
    if (const auto model = body.find("model"); model != body.end() && !model->is_null()) {
      if (!model->is_string())
        return ErrorReply(400, "invalid_option", "\"model\" must be a string");
      const auto& name = model->get_ref<const std::string&>();
      pipe = nullptr;
      std::string known;
      for (const pipeline::Pipeline* p : server_.pipelines) {
        if (p->models().name == name)
          pipe = p;
        known += (known.empty() ? "" : ", ") + p->models().name;
      }
      if (pipe == nullptr) {
        return ErrorReply(400, "invalid_option",
                          "unknown model '" + name + "'; available: " + known);
      }
    }
    pipeline::OcrOptions options;
    if (const auto cls = body.find("cls"); cls != body.end() && !cls->is_null()) {
      if (!cls->is_boolean())
        return ErrorReply(400, "invalid_option", "\"cls\" must be true or false");
      options.use_cls = cls->get<bool>();
    }
    if (const auto ds = body.find("drop_score"); ds != body.end() && !ds->is_null()) {
      if (!ds->is_number()) {
        return ErrorReply(400, "invalid_option", "\"drop_score\" must be a number from 0 to 1");
      }
      const double v = ds->get<double>();
      if (!(v >= 0.0 && v <= 1.0)) {
        return ErrorReply(400, "invalid_option",
                          "\"drop_score\" must be from 0 to 1 (got " + ds->dump() + ")");
      }
      options.drop_score = static_cast<float>(v);
    }
    if (Status s = pipeline::ValidateOptions(options); !s.ok())
      return StatusReply(s);

    auto job = [self = shared_from_this(), request_id = request_id_,
                b64 = std::move(image->get_ref<std::string&>()), pipe, options,
                max_pixels = server_.config.max_image_pixels, received = received_,
                deadline = received_ + server_.config.request_timeout]() {
      Reply reply;
      try {
        reply = RunOcr(b64, *pipe, options, max_pixels, received, deadline);
      } catch (const std::exception& e) {
        spdlog::error("request_id={} unhandled exception in worker: {}", request_id, e.what());
        reply = InternalReply();
      } catch (...) {
        spdlog::error("request_id={} unhandled exception in worker", request_id);
        reply = InternalReply();
      }
      net::post(self->stream_.get_executor(),
                [self, r = std::move(reply)]() mutable { self->Send(std::move(r)); });
    };
    if (!server_.queue.TryPush(std::move(job))) {
      Reply r = ErrorReply(503, "server_busy",
                           "all workers are busy and the queue is full; retry in a second");
      r.retry_after = true;
      return r;
    }
    return std::nullopt;
  }

  void Send(Reply reply) {
    res_ = Response(static_cast<bhttp::status>(reply.status), version_);
    res_.set(bhttp::field::server, "onnxocr");
    res_.set(bhttp::field::content_type, "application/json");
    res_.set("X-Request-Id", request_id_);
    if (reply.retry_after)
      res_.set(bhttp::field::retry_after, "1");
    if (!reply.allow.empty())
      res_.set(bhttp::field::allow, reply.allow);
    res_.keep_alive(keep_alive_ && !server_.draining.load());
    res_.body() = std::move(reply.body);
    res_.prepare_payload();
    stream_.expires_after(server_.config.read_timeout);
    bhttp::async_write(stream_, res_,
                       beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, std::size_t bytes) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - received_).count();
    server_.access_log->info(Dump({{"time", UtcNow()},
                                   {"request_id", request_id_},
                                   {"method", method_},
                                   {"path", path_},
                                   {"status", res_.result_int()},
                                   {"bytes", bytes},
                                   {"ms", std::round(ms * 10.0) / 10.0}}));
    busy_ = false;
    if (ec) {
      Close();
      return;
    }
    if (!res_.keep_alive()) {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    res_ = {};
    DoRead();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  Server::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  Response res_;
  bhttp::response<bhttp::empty_body> continue_;
  // The request being answered (strand only).
  bool busy_ = false;
  bool keep_alive_ = true;
  unsigned version_ = 11;
  Clock::time_point received_;
  std::string method_;
  std::string path_;
  std::string request_id_;
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
  auto session = std::make_shared<Session>(std::move(socket), *this);
  {
    std::lock_guard lock(sessions_mu);
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
  beast::error_code ignored;
  acceptor.close(ignored);
  std::vector<std::weak_ptr<Session>> snapshot;
  {
    std::lock_guard lock(sessions_mu);
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
  if (live_sessions.load() == 0) {
    spdlog::info("drained; stopping");
    ioc.stop();
    return;
  }
  if (Clock::now() >= drain_deadline) {
    spdlog::warn("drain timeout: closing {} connection(s)", live_sessions.load());
    ioc.stop();
    return;
  }
  drain_timer.expires_after(std::chrono::milliseconds(20));
  drain_timer.async_wait([this](beast::error_code ec) {
    if (!ec)
      PollDrain();
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

void Server::Impl::WorkerLoop(const std::stop_token& stop) {
  while (auto job = queue.Pop(stop)) {
    try {
      (*job)();
    } catch (const std::exception& e) {
      spdlog::error("worker: unhandled exception: {}", e.what());
    }
  }
}

Server::Server(ServerConfig config, std::vector<const pipeline::Pipeline*> pipelines)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(pipelines))) {}

Server::~Server() = default;

Status Server::Run() {
  Impl& s = *impl_;
  if (s.pipelines.empty())
    return InvalidArgument("no model sets to serve");
  OCR_RETURN_IF_ERROR(s.Listen());
  for (int i = 0; i < std::max(1, s.config.worker_threads); ++i) {
    s.workers.emplace_back([&s](std::stop_token stop) { s.WorkerLoop(stop); });
  }
  net::dispatch(s.strand, [&s] {
    s.DoAccept();
    s.signals.async_wait(beast::bind_front_handler(&Server::Impl::OnSignal, &s));
  });
  {
    std::vector<std::jthread> io;
    for (int i = 1; i < s.config.io_threads; ++i)
      io.emplace_back([&s] { s.RunIo(); });
    s.RunIo();
  }
  for (auto& worker : s.workers)
    worker.request_stop();
  s.workers.clear();  // joins; a job already running finishes first
  s.queue.Clear();
  spdlog::info("stopped");
  return Status::Ok();
}

}  // namespace ocr::http
