#include "cli/serve_command.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include <opencv2/core/utility.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/exit_codes.h"
#include "cli/model_flags.h"
#include "common/log.h"
#include "engine/ort_model.h"
#include "http/server.h"
#include "image/decode.h"
#include "jobs/redis_client.h"
#include "jobs/sqlite_jobs.h"
#include "pipeline/model_set.h"
#include "pipeline/pipeline.h"
#include "sched/cgroup_limits.h"
#include "sched/process_memory.h"

namespace ocr::cli {

namespace {

// How connections and requests are served: limits, timeouts, CORS, logging.
void AddConnectionFlags(CLI::App& cmd, ServeOptions& o) {
  cmd.add_option("--max-body-mb", o.max_body_mb, "Largest request body, MiB")
      ->envname("ONNXOCR_MAX_BODY_MB")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd.add_option("--read-timeout", o.read_timeout,
                 "Seconds allowed to read a request or write a response")
      ->envname("ONNXOCR_READ_TIMEOUT")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  cmd.add_option("--max-connections", o.max_connections,
                 "Open connections at most; more are answered 503 and closed")
      ->envname("ONNXOCR_MAX_CONNECTIONS")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  cmd.add_option("--memory-budget-mb", o.memory_budget_mb,
                 "Estimated memory that requests in flight may hold together; over it, 503. "
                 "0 = 80% of the container's memory limit less what the models take (no budget "
                 "without a limit); -1 = off")
      ->envname("ONNXOCR_MEMORY_BUDGET_MB")
      ->check(CLI::Range(-1, 16'777'216))
      ->capture_default_str();
  cmd.add_option("--cors-origin", o.cors_origin,
                 "Allow browser pages from this origin ('*' for any); CORS is off without it")
      ->envname("ONNXOCR_CORS_ORIGIN");
  cmd.add_option("--log-format", o.log_format, "json or text")
      ->envname("ONNXOCR_LOG_FORMAT")
      ->check(CLI::IsMember({"json", "text"}))
      ->capture_default_str();
  cmd.add_option("--log-level", o.log_level, "trace, debug, info, warn, error, critical, off")
      ->envname("ONNXOCR_LOG_LEVEL")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  cmd.add_option("--request-timeout", o.request_timeout,
                 "Seconds from a request's arrival to its answer; then 504 and the work stops")
      ->envname("ONNXOCR_REQUEST_TIMEOUT")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  cmd.add_option("--drain-timeout", o.drain_timeout,
                 "Seconds SIGTERM waits for requests, streams and jobs in progress; then the "
                 "jobs are cancelled and the server stops")
      ->envname("ONNXOCR_DRAIN_TIMEOUT")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
}

// Where jobs live and how long they may take and stay.
void AddJobFlags(CLI::App& cmd, ServeOptions& o) {
  cmd.add_option("--max-jobs", o.max_jobs,
                 "Documents in progress at most (jobs and streams); more are answered 503")
      ->envname("ONNXOCR_MAX_JOBS")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  cmd.add_option("--job-ttl", o.job_ttl, "Seconds a finished job's result is kept")
      ->envname("ONNXOCR_JOB_TTL")
      ->check(CLI::Range(1, 7 * 86400))
      ->capture_default_str();
  cmd.add_option("--job-timeout", o.job_timeout,
                 "Seconds from a job's or stream's admission to its end; then it fails with "
                 "deadline_exceeded and its work stops")
      ->envname("ONNXOCR_JOB_TIMEOUT")
      ->check(CLI::Range(1, 7 * 86400))
      ->capture_default_str();
  cmd.add_option("--redis", o.redis,
                 "Keep jobs in Redis so that every replica serves and works on them: "
                 "redis://[:password@]host[:port][/db]. Without it jobs live under --data-dir")
      ->envname("ONNXOCR_REDIS");
  cmd.add_option("--jobs", o.jobs,
                 "Without --redis, where jobs live: disk (under --data-dir; they survive a "
                 "restart) or memory (lost when the server stops; for tests)")
      ->envname("ONNXOCR_JOBS")
      ->check(CLI::IsMember({"disk", "memory"}))
      ->capture_default_str();
  cmd.add_option("--data-dir", o.data_dir,
                 "Folder of the job database and the uploads of jobs (one server per folder)")
      ->envname("ONNXOCR_DATA_DIR")
      ->capture_default_str();
  cmd.add_option("--spool-max-gb", o.spool_max_gb,
                 "Uploads of jobs kept under --data-dir at once, GB; past it POST /jobs answers "
                 "503 with Retry-After")
      ->envname("ONNXOCR_SPOOL_MAX_GB")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  cmd.add_option("--job-lease", o.job_lease,
                 "With --redis: seconds a page claimed by a replica stays its own without a "
                 "renewal; a stopped replica's pages run elsewhere after it")
      ->envname("ONNXOCR_JOB_LEASE")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  cmd.add_option("--max-job-result-mb", o.max_job_result_mb,
                 "With --redis: stored results per job, MiB; past it the job fails")
      ->envname("ONNXOCR_MAX_JOB_RESULT_MB")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
}

}  // namespace

CLI::App* AddServeCommand(CLI::App& app, ServeOptions& o) {
  CLI::App* cmd = app.add_subcommand("serve", "Serve the HTTP API");
  AddInputFlags(*cmd, o.input, document::kServerFlag);
  cmd->add_flag("--pdfa,!--no-pdfa", o.pdfa,
                "output_format=pdf: write PDF/A-2b (XMP metadata, an sRGB output intent) (off by "
                "default)")
      ->envname("ONNXOCR_PDFA");
  cmd->add_option("--host", o.host, "Address to listen on")
      ->envname("ONNXOCR_HOST")
      ->capture_default_str();
  cmd->add_option("--port", o.port, "Port to listen on (0 = any free port)")
      ->envname("ONNXOCR_PORT")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  AddWorkerFlags(*cmd, o.workers);
  AddConnectionFlags(*cmd, o);
  AddJobFlags(*cmd, o);
  return cmd;
}

namespace {

// --memory-budget-mb: explicit, off, or 80% of the cgroup limit less what is resident now (the
// models, loaded and warm), so the whole process stays under the limit.
std::int64_t MemoryBudgetBytes(int flag_mb) {
  if (flag_mb > 0)
    return std::int64_t{flag_mb} << 20;
  const auto limit = sched::CgroupMemoryLimit();
  if (flag_mb < 0 || !limit)
    return 0;
  return std::max<std::int64_t>(*limit / 10 * 8 - sched::ReadProcessMemory().resident_bytes,
                                64ll << 20);
}

// Where jobs live (--redis, or --jobs under --data-dir, or memory) into `config`; the exit code
// when the flags or the folder are refused.
std::optional<int> ConfigureJobs(const ServeOptions& o, http::ServerConfig& config) {
  if (!o.redis.empty()) {
    auto endpoint = jobs::ParseRedisUrl(o.redis);
    if (!endpoint.ok()) {
      std::cerr << "onnxocr serve: " << endpoint.status().message() << "\n";
      return kExitUsage;
    }
    config.redis.emplace();
    config.redis->endpoint = std::move(endpoint).value();
    config.redis->lease = std::chrono::seconds(o.job_lease);
    config.redis->max_result_bytes = std::int64_t{o.max_job_result_mb} << 20;
    return std::nullopt;
  }
  if (o.jobs != "disk")
    return std::nullopt;
  auto folder = jobs::JobFolder::Open(o.data_dir);
  if (!folder.ok()) {
    std::cerr << "onnxocr serve: " << folder.status().message() << "\n";
    return 1;
  }
  config.durable_jobs.emplace();
  config.durable_jobs->folder = std::move(folder).value();
  config.durable_jobs->spool_max_bytes = static_cast<std::int64_t>(o.spool_max_gb * (1 << 30));
  return std::nullopt;
}

// The rest of the flags into `config`; after the models load, which the memory budget leaves out.
void ConfigureServing(const ServeOptions& o, http::ServerConfig& config) {
  config.host = o.host;
  config.port = static_cast<std::uint16_t>(o.port);
  config.max_body_bytes = static_cast<std::uint64_t>(o.max_body_mb) << 20;
  config.limits = o.input.limits;
  config.options = o.input.Options();
  config.answer.pdfa = o.pdfa;
  config.read_timeout = std::chrono::seconds(o.read_timeout);
  config.request_timeout = std::chrono::seconds(o.request_timeout);
  config.max_connections = o.max_connections;
  config.cors_origin = o.cors_origin;
  config.memory_budget_bytes = MemoryBudgetBytes(o.memory_budget_mb);
  config.drain_timeout = std::chrono::seconds(o.drain_timeout);
  config.jobs.max_jobs = static_cast<std::size_t>(o.max_jobs);
  config.jobs.ttl = std::chrono::seconds(o.job_ttl);
  config.jobs.timeout = std::chrono::seconds(o.job_timeout);
}

void LogJobsAndBudget(const http::ServerConfig& config) {
  if (config.redis)
    spdlog::info("jobs: shared through Redis at {}", config.redis->endpoint.Redacted());
  else if (config.durable_jobs)
    spdlog::info("jobs: kept in {}", config.durable_jobs->folder->path().string());
  else
    spdlog::info("jobs: kept in memory only (--jobs memory); they are lost when the server stops");
  if (config.memory_budget_bytes > 0)
    spdlog::info("memory budget for requests in flight: {} MB", config.memory_budget_bytes >> 20);
}

}  // namespace

int Serve(const ServeOptions& o) {
  // Logs go to stderr; stdout stays free.
  if (Status s = ConfigureLogging(o.log_format, o.log_level); !s.ok()) {
    std::cerr << "onnxocr serve: " << s.message() << "\n";
    return kExitUsage;
  }
  image::QuietCodecWarnings();
  cv::setNumThreads(0);  // only the workers parallelise

  // Opened before the models load: a folder another server holds stops this one at once.
  http::ServerConfig config;
  if (const std::optional<int> failed = ConfigureJobs(o, config))
    return *failed;

  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok()) {
    std::cerr << "onnxocr serve: " << specs.status().message() << "\n";
    return specs.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitModelsFailed;
  }

  auto workers = InferenceWorkers::Start(*specs, o.workers);
  if (!workers.ok()) {
    std::cerr << "onnxocr serve: " << workers.status().message() << "\n";
    return workers.status().code() == StatusCode::kModelLoadFailed ? kExitModelsFailed : 1;
  }
  for (const ModelSpec& spec : *specs)
    spdlog::info("loaded model set {} from {}", spec.name, spec.dir.string());
  spdlog::info("workers: {}", (*workers)->description());

  ConfigureServing(o, config);
  LogJobsAndBudget(config);

  http::Server server(config, (*workers)->scheduler(), (*workers)->pipelines());
  const Status status = server.Run();
  if (!status.ok()) {
    std::cerr << "onnxocr serve: " << status.message() << "\n";
    return status.code() == StatusCode::kInvalidArgument ? kExitUsage : 1;
  }
  return kExitOk;
}

}  // namespace ocr::cli
