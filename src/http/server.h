// The HTTP server (spec/API.md section 3): Beast in the completion-handler style, a few I/O
// threads for sockets, parsing and serialization; decoding and inference run on the scheduler's
// workers (sched/scheduler.h). It owns the listener: accepting connections (each a Session,
// http/session.h), the connection cap and its probe lane, signals and the drain, around the
// Service (http/service.h) that the routes run in.
// SIGTERM/SIGINT drain: readyz turns 503, accepting stops, in-flight requests finish
// (bounded by drain_timeout), then Run() returns; a second signal stops at once.
// Thread-safety: construct and Run() from one thread; Run() blocks until shut down.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "http/server_config.h"
#include "pipeline/pipeline.h"
#include "sched/scheduler.h"

namespace ocr::http {

class Server {
 public:
  // Work runs on `scheduler` (its queue bounds waiting requests: when full, 503 server_busy).
  // `group_pipelines[g]` are worker group g's model sets, the same names in the same order in
  // every group, the first the default; a set is addressed by pipeline->models().name.
  // REQUIRES: the scheduler and every pipeline outlive the server. Run() stops the scheduler.
  Server(ServerConfig config, sched::Scheduler& scheduler,
         std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds, serves until a signal has drained the server, and returns.
  // Errors: kIoError when the address cannot be bound; kInvalidArgument for a bad host.
  Status Run();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ocr::http
