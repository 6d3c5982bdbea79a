// The HTTP server (spec/API.md section 3): Beast in the completion-handler style, a few I/O
// threads for sockets, parsing and serialization; decoding and inference run on the scheduler's
// workers (sched/scheduler.h). Routes: POST /ocr and /ocr_api (JSON form), GET /healthz,
// GET /readyz. SIGTERM/SIGINT drain: readyz turns 503, accepting stops, in-flight requests finish
// (bounded by drain_timeout), then Run() returns; a second signal stops at once.
// Thread-safety: construct and Run() from one thread; Run() blocks until shut down.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "pipeline/pipeline.h"
#include "sched/scheduler.h"

namespace ocr::http {

struct ServerConfig {
  std::string host = "0.0.0.0";  // address to bind (IPv4 or IPv6 literal)
  std::uint16_t port = 5005;     // 0 = an ephemeral port, logged as "listening on HOST:PORT"
  int io_threads = 2;            // threads running socket I/O
  std::uint64_t max_body_bytes = 32ull << 20;  // request bodies over this get 413
  std::int64_t max_image_pixels = 50'000'000;  // width x height, checked from the header
  int max_pdf_pages = 200;                     // longer PDFs: 422 too_many_pages
  double pdf_dpi = 200;                        // PDF page rendering resolution
  std::chrono::seconds read_timeout{30};       // per read or write of one request/response
  std::chrono::seconds request_timeout{60};    // from receipt to the reply; then 504, work stopped
  std::chrono::seconds drain_timeout{30};      // how long SIGTERM waits for in-flight requests
  int max_connections = 1024;                  // open connections; beyond it 503 and close
  std::string cors_origin;                     // "" = CORS off; "*" or one origin
  // Estimated peak bytes that requests in flight may hold together; beyond it 503 server_busy
  // (or 422 image_too_large for one document bigger than all of it). 0 = no budget.
  std::int64_t memory_budget_bytes = 0;
};

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
