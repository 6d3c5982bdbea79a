// The routes of spec/API.md section 3, independent of the transport: a parsed request in, either a
// reply now (cheap routes, validation errors) or a piece of work for an inference worker out.
// Also the headers every reply carries (CORS, Content-Security-Policy, nosniff).
// Thread-safety: Route() and Decorate() are const and safe from any thread; the Work they return
// may run on any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/task_runner.h"
#include "http/error_mapping.h"
#include "http/metrics.h"
#include "http/ocr_request.h"
#include "http/server_config.h"
#include "jobs/job_store.h"
#include "jobs/redis_jobs.h"
#include "pipeline/pipeline.h"
#include "sched/memory_budget.h"

namespace ocr::http {

// Facts of the serving machinery that the transport owns: reported by /info, and the pages of
// one document that may be in flight at once (for its memory estimate).
struct ServingFacts {
  int worker_threads = 1;
  int worker_groups = 1;  // one per NUMA node in use
  std::size_t queue_size = 64;
  int parallel_pages = 1;  // a group's workers
};

struct ApiRequest {
  std::string method;  // as sent, e.g. "POST"
  std::string path;    // target without the query string
  std::string content_type;
  std::string if_none_match;
  std::string origin;
  std::string last_event_id;  // an EventSource reconnecting
  std::string path_id;        // the {id} of a route like /jobs/{id}, set by Route()
  std::string body;           // moved into the work when there is some
  std::string request_id;
  std::chrono::steady_clock::time_point received;
};

// Where a piece of work runs: on a worker of some group, with that group's copy of each model set.
struct WorkContext {
  std::stop_token stop;  // requested when the deadline passes
  // The group's pipelines, in the order given to the Api. REQUIRES: live while the work runs.
  std::span<const pipeline::Pipeline* const> pipelines;
  TaskRunner* runner = nullptr;  // the group's workers, for a request's independent parts
};

// Runs on an inference worker.
using Work = std::function<Reply(const WorkContext& context)>;

struct Routed {
  std::string route;  // the matched route, for metrics ("/ocr", ...; "other" when none)
  std::optional<Reply> reply;
  Work work;  // set when reply is not
};

class Api {
 public:
  // Live facts the transport owns. REQUIRES: thread-safe callables.
  struct State {
    std::function<bool()> draining;
    std::function<bool()> saturated;  // the queue is full
  };

  // `pipelines`: the loaded model sets, the first the default (those of one worker group: each
  // group has the same sets in the same order, and Work finds its group's by index). Work
  // reserves its estimated peak memory in `memory_budget` first (null: no budget). Long
  // documents (jobs and streams) run in `jobs`, or with --redis (`shared_jobs` not null) jobs in
  // Redis and streams in `jobs`.
  // REQUIRES: pipelines, metrics, memory_budget and jobs outlive the Api and every Work it
  // returned.
  Api(const ServerConfig& config, ServingFacts facts, sched::MemoryBudget* memory_budget,
      std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics, State state,
      jobs::JobStore& jobs, jobs::RedisJobs* shared_jobs = nullptr);

  Routed Route(ApiRequest& request) const;

  // The route table's (method, path) pairs, in its order: what openapi.json must describe.
  static std::vector<std::pair<std::string_view, std::string_view>> RouteList();

  // Adds the headers every reply carries: CORS (when configured), nosniff, no-referrer, and for
  // HTML pages a strict Content-Security-Policy.
  void Decorate(Reply& reply, const ApiRequest& request) const;

 private:
  // One entry of the route table (api.cpp, kRoutes): method, path, handler.
  struct RouteEntry;
  static std::span<const RouteEntry> Routes();

  // The handlers of the table: a reply now, or Work for the OCR routes.
  Routed Ocr(ApiRequest& request) const;
  Routed OcrApi(ApiRequest& request) const;
  Routed MarkerUpload(ApiRequest& request) const;  // marker's multipart route
  Routed MarkerPaths(ApiRequest& request) const;   // marker's POST /marker: refused
  Routed Healthz(ApiRequest& request) const;
  Routed Readyz(ApiRequest& request) const;
  Routed MetricsText(ApiRequest& request) const;
  Routed Info(ApiRequest& request) const;
  Routed OpenApi(ApiRequest& request) const;
  Routed Docs(ApiRequest& request) const;
  Routed DocsCss(ApiRequest& request) const;
  Routed JobCreate(ApiRequest& request) const;
  Routed JobStatus(ApiRequest& request) const;
  Routed JobDelete(ApiRequest& request) const;
  Routed JobResult(ApiRequest& request) const;
  Routed JobEvents(ApiRequest& request) const;
  // The job of request.path_id, or the 404 to answer.
  std::variant<std::shared_ptr<jobs::DocumentJob>, Reply> FindJob(const ApiRequest& r) const;
  static Reply JobNotFound(std::string_view id);
  static Reply JobCreated(const std::string& id);               // 202 with the job's URLs
  static Reply NotFinished(const jobs::JobSnapshot& snapshot);  // 409 job_not_finished
  static std::size_t LastEventId(const ApiRequest& request);    // 0 when absent or malformed
  // The events of `job` after `last` (Last-Event-ID), or 204 when the stream already ended there.
  static Reply EventsReply(std::shared_ptr<jobs::JobView> job, std::size_t last);

  // With --redis: a job route's answer, read from Redis by Work on a worker (`answer`), or a
  // 404 / 503 at once.
  Routed SharedJobRoute(ApiRequest& request,
                        Reply (Api::*answer)(const ApiRequest& request) const) const;
  Reply SharedJobStatus(const ApiRequest& request) const;
  Reply SharedJobDelete(const ApiRequest& request) const;
  Reply SharedJobResult(const ApiRequest& request) const;
  Reply SharedJobEvents(const ApiRequest& request) const;
  // Work admitting a job into Redis: the document is checked and counted here, stored once.
  Reply SubmitSharedJob(OcrCall& call, std::size_t pipeline, const std::string& request_id) const;
  // 503 not_ready while Redis is unreachable.
  Reply JobStoreDown() const;
  // A job route's failure: kUnavailable -> 503 not_ready, kNotFound -> 404 for the request's
  // job, the rest as any failure.
  Reply SharedJobFailure(const Status& status, const ApiRequest& request) const;

  // Either form of POST /ocr, and POST /jobs (`as_job`): the parsed call becomes one Work,
  // whichever form it came in: the answer itself, or the admission of a job or a stream.
  Routed OcrRoute(ApiRequest& request, bool json_only, bool as_job) const;
  // The work that answers `call` at once (not a job or a stream), on a worker.
  Routed OcrWork(const ApiRequest& request, OcrCall call, std::size_t pipeline) const;
  // Parses either form of an OCR request; a reply when it is refused.
  std::variant<OcrCall, Reply> ParseCall(ApiRequest& request, bool json_only) const;
  // Work that admits a long document (a job, or a stream when not `listed`): opens it, reserves
  // its memory and starts its pages. Answers 202 with the job's URLs, or the NDJSON stream.
  Reply StartJob(OcrCall& call, std::size_t pipeline, bool listed,
                 const std::string& request_id) const;
  // The only Work body: reserve memory, read the document, answer in the call's shape.
  Reply RunOcr(const OcrCall& call, std::size_t pipeline, const WorkContext& context,
               std::chrono::steady_clock::time_point received, const std::string& request_id) const;
  Reply DocumentReply(const document::DocumentResult& doc, document::OutputFormat format,
                      bool paginate, double seconds, bool words) const;
  // Counts the document's pages and OCR stages in the metrics; returns its lines.
  int RecordDocument(const document::DocumentResult& doc) const;
  // The index of the model set called `name` ("" = the default).
  Result<size_t> FindPipeline(const std::string& name) const;
  // Reserves the document's estimated peak memory; an empty lease when there is no budget.
  // Errors: kResourceExhausted (503, retry) when requests in flight hold the budget;
  // kImageTooLarge when the document alone needs more than the whole budget; those of
  // EstimateDocumentBytes.
  Result<std::optional<sched::MemoryBudget::Lease>> ReserveMemory(
      std::span<const std::uint8_t> bytes, const document::DocumentOptions& options,
      std::int64_t extra_bytes = 0) const;

  ServerConfig config_;
  ServingFacts facts_;
  sched::MemoryBudget* memory_budget_;
  std::vector<const pipeline::Pipeline*> pipelines_;
  Metrics& metrics_;
  State state_;
  jobs::JobStore& jobs_;
  jobs::RedisJobs* shared_jobs_;  // null without --redis
};

}  // namespace ocr::http
