// `onnxocr serve`: load the model sets, then answer the HTTP API (spec/API.md sections 3-4).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/inference_workers.h"
#include "cli/input_flags.h"

namespace ocr::cli {

struct ServeOptions {
  std::string host = "0.0.0.0";
  int port = 5005;           // 0 = ephemeral (the log says which)
  InputFlags input;          // --models and the input limits
  WorkerFlags workers;       // --threads, --numa, --queue-size
  int max_body_mb = 32;      // request body limit, MiB
  int read_timeout = 30;     // seconds
  int request_timeout = 60;  // seconds
  int drain_timeout = 30;    // seconds
  int max_jobs = 64;
  int job_ttl = 3600;
  int job_timeout = 3600;
  std::string redis;          // --redis URL: jobs shared through Redis ("" = this server's)
  std::string jobs = "disk";  // --jobs disk|memory: where this server keeps jobs without --redis
  std::string data_dir = "onnxocr-data";  // --data-dir: the jobs' database and uploads
  double spool_max_gb = 20;               // --spool-max-gb: uploads of jobs kept at once
  int job_lease = 10;          // seconds a claimed page stays a replica's without renewal
  int max_job_result_mb = 64;  // stored results per job in Redis
  int max_connections = 1024;
  int memory_budget_mb = 0;  // 0 = from the cgroup memory limit (none without one); -1 = off
  std::string cors_origin;   // "" = CORS off
  bool pdfa = false;         // output_format=pdf writes PDF/A-2b unless a request says
  std::string log_format = "json";
  std::string log_level = "info";
};

// Declares the subcommand's flags on `app`, bound to `options`.
CLI::App* AddServeCommand(CLI::App& app, ServeOptions& options);

// Serves until SIGTERM/SIGINT; returns the process exit code.
int Serve(const ServeOptions& options);

}  // namespace ocr::cli
