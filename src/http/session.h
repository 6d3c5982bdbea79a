// Session: one HTTP connection, on its own strand: reads requests one at a time (keep-alive),
// answers each in order. A request becomes a route's reply now or Work for the scheduler; the
// session arms the request's deadline (--request-timeout: 504 and the work is asked to stop),
// watches for the client hanging up meanwhile (the work stops), writes the reply (a streamed one
// through StreamWriter), logs one access line and records the request in the metrics. A
// connection over --max-connections answers only a probe (GET /healthz or /readyz), or 503.
// Thread-safety: a session runs on its strand; the Connection calls may come from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <spdlog/logger.h>

#include "http/service.h"

namespace ocr::http {

// What every connection of a server shares. REQUIRES: outlives every session.
struct SessionShared {
  Service& service;
  std::shared_ptr<spdlog::logger> access_log;
  std::atomic<int> live_sessions{0};  // sessions within --max-connections
};

// What the listener does with a connection.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual void Start() = 0;
  // An over-cap connection whose request has not come answers 503 and closes. Pushed out of the
  // lane (`evicted`), one whose request is already arriving is left to its deadline: under a
  // flood of new connections, a probe's bytes may not have been read yet.
  virtual void RefuseOverCap(bool evicted) = 0;
  // Closes the connection unless a request is being answered (that one finishes and then the
  // connection closes).
  virtual void Drain() = 0;
};

// `over_cap`: a connection over --max-connections, which answers only probes (one request, read
// within kProbeDeadline) and does not count as a live session.
std::shared_ptr<Connection> NewSession(boost::asio::ip::tcp::socket&& socket, SessionShared& shared,
                                       bool over_cap);

// How long a connection over --max-connections is read for a probe before it is answered 503.
inline constexpr std::chrono::seconds kProbeDeadline{1};

}  // namespace ocr::http
