#include "http/server.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <deque>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/mutex.h"
#include "http/bad_requests.h"
#include "http/service.h"
#include "http/session.h"

namespace ocr::http {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// A connection over --max-connections is read kProbeDeadline for a probe (GET /healthz or
// /readyz) before it is answered 503. Beyond kProbeLaneSize such connections, a new one pushes out
// the oldest, so idle connections cannot keep a kubelet's probe from being read; but never one
// younger than kProbeGrace, the time a probe needs to send its request line (under a flood of
// connections the oldest may be only microseconds old), up to kProbeLaneMax connections, which
// bounds the sockets a flood of silent connections can hold.
constexpr std::size_t kProbeLaneSize = 32;
constexpr std::chrono::milliseconds kProbeGrace{100};
constexpr std::size_t kProbeLaneMax = 1024;

std::shared_ptr<spdlog::logger> AccessLogger() {
  std::shared_ptr<spdlog::logger> log = spdlog::get("access");
  if (!log) {
    log = spdlog::stderr_logger_mt("access");
    log->set_pattern("%v");
  }
  return log;
}

}  // namespace

struct Server::Impl {
  Impl(ServerConfig c, sched::Scheduler& scheduler,
       std::vector<std::vector<const pipeline::Pipeline*>> pipelines)
      : config(c),
        service(std::move(c), scheduler, std::move(pipelines),
                [this] { return static_cast<std::size_t>(shared.live_sessions.load()); }),
        shared{service, AccessLogger()},
        strand(net::make_strand(ioc)),
        acceptor(strand),
        signals(strand, SIGINT, SIGTERM),
        drain_timer(strand),
        sweep_timer(strand) {}

  Status Listen();
  void DoAccept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  void OnSignal(beast::error_code ec, int signo);
  void BeginDrain();
  void PollDrain();
  void Sweep();
  void RunIo();

  const ServerConfig config;
  Service service;  // outlives every session
  SessionShared shared;
  Mutex sessions_mu;  // guards sessions
  std::vector<std::weak_ptr<Connection>> sessions GUARDED_BY(sessions_mu);

  // The members below are the strand's only.
  Clock::time_point drain_deadline;
  bool abandoned = false;  // the drain's time ran out once: work in progress was stopped

  // Connections over --max-connections, read only for a probe (kProbeDeadline), oldest first.
  struct WaitingProbe {
    std::weak_ptr<Connection> session;
    Clock::time_point accepted;
  };

  std::deque<WaitingProbe> probe_lane;

  // Destroyed in reverse; Run() stops the scheduler's workers before the io_context goes.
  net::io_context ioc;
  net::strand<net::io_context::executor_type> strand;  // acceptor, signals, timers
  tcp::acceptor acceptor;
  net::signal_set signals;
  net::steady_timer drain_timer;
  net::steady_timer sweep_timer;  // expires jobs and stops those past --job-timeout
};

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
  if (service.draining())
    return;
  if (config.max_connections > 0 && shared.live_sessions.load() >= config.max_connections) {
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
    auto session = NewSession(std::move(socket), shared, /*over_cap=*/true);
    probe_lane.push_back({session, now});
    session->Start();
    DoAccept();
    return;
  }
  auto session = NewSession(std::move(socket), shared, /*over_cap=*/false);
  {
    MutexLock lock(&sessions_mu);
    std::erase_if(sessions, [](const std::weak_ptr<Connection>& s) { return s.expired(); });
    sessions.push_back(session);
  }
  session->Start();
  DoAccept();
}

void Server::Impl::OnSignal(beast::error_code ec, int signo) {
  if (ec)
    return;
  if (service.draining()) {
    spdlog::warn("signal {} again: stopping now", signo);
    ioc.stop();
    return;
  }
  spdlog::info("signal {}: draining (up to {} s)", signo, config.drain_timeout.count());
  BeginDrain();
  signals.async_wait(beast::bind_front_handler(&Server::Impl::OnSignal, this));
}

void Server::Impl::BeginDrain() {
  service.BeginDrain();
  beast::error_code ignored;
  acceptor.close(ignored);
  std::vector<std::weak_ptr<Connection>> snapshot;
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
  // Jobs running when SIGTERM came may finish within the drain time; then they are abandoned.
  if (shared.live_sessions.load() == 0 && service.Drained()) {
    spdlog::info("drained; stopping");
    ioc.stop();
    return;
  }
  const Clock::time_point now = Clock::now();
  if (now >= drain_deadline && !abandoned) {
    spdlog::warn("drain timeout: stopping the work in progress");
    service.Abandon();
    abandoned = true;
    // A moment for streams to send their last line.
    drain_deadline = now + std::chrono::milliseconds(500);
  } else if (now >= drain_deadline) {
    spdlog::warn("drain timeout: closing {} connection(s)", shared.live_sessions.load());
    ioc.stop();
    return;
  }
  drain_timer.expires_after(std::chrono::milliseconds(20));
  drain_timer.async_wait([this](beast::error_code ec) {
    if (!ec)
      PollDrain();
  });
}

void Server::Impl::Sweep() {
  service.Sweep();
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
  s.service.Start();
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
  s.service.Stop();  // before the workers stop, so stopped pages come back to their store
  s.service.scheduler().Stop();  // drops queued jobs; a job already running finishes first
  spdlog::info("stopped");
  return Status::Ok();
}

}  // namespace ocr::http
