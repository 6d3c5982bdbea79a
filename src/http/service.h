// Service: everything the server does that is not the transport, assembled once from the flags:
// the memory budget, the metrics, the job stores (the one JobBackend the job routes use: on this
// server's disk, in its memory, or in Redis with --redis; and the in-memory store that runs
// streams either way) and
// the Api over them, with their part of the shutdown. Built by the Server for `onnxocr serve`
// and by the fuzz harness, so the service is put together in one place.
// Thread-safety: api(), metrics() and the accessors are safe from any thread; the lifecycle calls
// (Start, BeginDrain, Abandon, Stop) come from one thread, in that order.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "http/api.h"
#include "http/metrics.h"
#include "http/server_config.h"
#include "jobs/job_backend.h"
#include "jobs/local_jobs.h"
#include "jobs/redis_jobs.h"
#include "jobs/sqlite_jobs.h"
#include "pipeline/pipeline.h"
#include "sched/memory_budget.h"
#include "sched/scheduler.h"

namespace ocr::http {

class Service {
 public:
  // Work runs on `scheduler`; `group_pipelines[g]` are worker group g's model sets, the same
  // names in the same order in every group, the first the default. `open_connections` (may be
  // empty) is the transport's count for /metrics.
  // REQUIRES: the scheduler and every pipeline outlive the service; open_connections is
  // thread-safe.
  Service(ServerConfig config, sched::Scheduler& scheduler,
          std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines,
          std::function<std::size_t()> open_connections = {});
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  const Api& api() const { return *api_; }

  Metrics& metrics() { return metrics_; }

  const ServerConfig& config() const { return config_; }

  sched::Scheduler& scheduler() { return scheduler_; }

  // Group `group`'s model sets, for the Work that runs on one of its workers.
  std::span<const pipeline::Pipeline* const> pipelines(int group) const {
    return group_pipelines_.at(static_cast<std::size_t>(group));
  }

  const sched::MemoryBudget& memory_budget() const { return memory_budget_; }

  // Where streams (and, with --jobs memory, jobs) run.
  jobs::LocalJobs& local_jobs() { return local_jobs_; }

  // Starts the shared store's claim loop (--redis; Redis need not be up yet), or resumes the
  // jobs the durable store's last process left unfinished.
  void Start();
  // SIGTERM: /readyz answers 503, no new document is admitted, no more shared pages claimed.
  void BeginDrain();

  bool draining() const { return draining_.load(); }

  // Whether no job, stream or claimed page of this process runs any more.
  bool Drained() const;
  // The drain's time is up: jobs and streams of this process are cancelled (kUnavailable),
  // claimed pages go back to the queue for other replicas.
  void Abandon();
  // After the transport stopped and before the scheduler stops, so that pages stopped now still
  // come back to their store.
  void Stop();
  // Every half second: frees expired jobs, fails those past --job-timeout.
  void Sweep();

 private:
  // The stores the drain concerns: the local one and the job routes' one.
  std::vector<jobs::JobBackend*> Backends();

  // A page of a job or stream in the metrics, as the synchronous routes count the pages they
  // answer.
  void RecordPage(const document::DocumentPage& page);

  const ServerConfig config_;
  sched::Scheduler& scheduler_;
  const std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines_;
  std::atomic<bool> draining_{false};
  // Declared in the order they are built; each outlives what is declared after it.
  sched::MemoryBudget memory_budget_;
  Metrics metrics_;
  jobs::LocalJobs local_jobs_;
  std::unique_ptr<jobs::RedisJobs> shared_jobs_;    // --redis
  std::unique_ptr<jobs::SqliteJobs> durable_jobs_;  // --data-dir
  std::unique_ptr<const Api> api_;
};

}  // namespace ocr::http
