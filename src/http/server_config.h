// ServerConfig: everything `onnxocr serve` configures about the HTTP server, one field per flag
// (cli/serve_command.cpp), each with its default. The input limits are one InputLimits value,
// passed whole to every document the server reads. Thread-safety: a plain value (the durable job
// store's folder is shared, already opened).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "document/answer.h"
#include "document/document.h"
#include "document/limits.h"
#include "jobs/local_jobs.h"
#include "jobs/redis_jobs.h"
#include "jobs/sqlite_jobs.h"
#include "pipeline/pipeline.h"

namespace ocr::http {

struct ServerConfig {
  std::string host = "0.0.0.0";  // address to bind (IPv4 or IPv6 literal)
  std::uint16_t port = 5005;     // 0 = an ephemeral port, logged as "listening on HOST:PORT"
  int io_threads = 2;            // threads running socket I/O
  std::uint64_t max_body_bytes = 32ull << 20;  // request bodies over this get 413
  document::InputLimits limits;                // pixels, pages and dpi of what a client sends
  // How pages are read where a request does not say: the flags of document/request_options.h
  // marked kServerFlag (--drop-score, --det-limit-type, --text-normalization, ...).
  document::DocumentOptions options;
  document::AnswerShape answer;           // the answer where a request does not say: serve --pdfa
  std::chrono::seconds read_timeout{30};  // per read or write of one request/response
  std::chrono::seconds request_timeout{60};  // from receipt to the reply; then 504, work stopped
  std::chrono::seconds drain_timeout{30};    // how long SIGTERM waits for in-flight requests
  int max_connections = 1024;                // open connections; beyond it 503 and close
  std::string cors_origin;                   // "" = CORS off; "*" or one origin
  // Estimated peak bytes that requests in flight may hold together; beyond it 503 server_busy
  // (or 422 image_too_large for one document bigger than all of it). 0 = no budget.
  std::int64_t memory_budget_bytes = 0;
  jobs::JobLimits jobs;  // --max-jobs, --job-ttl, --job-timeout: long documents
  // --redis, --job-lease, --max-job-result-mb: jobs shared by the replicas.
  std::optional<jobs::RedisJobsConfig> redis;
  // --data-dir, --spool-max-gb: jobs on this server's disk (serve's default without --redis).
  // With neither, jobs live in memory (--jobs memory).
  std::optional<jobs::SqliteJobsConfig> durable_jobs;
};

}  // namespace ocr::http
