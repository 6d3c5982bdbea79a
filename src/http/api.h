// The routes of spec/API.md section 3, independent of the transport: a parsed request in, either a
// reply now (cheap routes, validation errors) or a piece of work for an inference worker out.
// Also the headers every reply carries (CORS, Content-Security-Policy, nosniff). The route table
// and the cheap routes are api.cpp; the OCR routes ocr_routes.cpp; the job routes job_routes.cpp;
// POST /render render_route.cpp.
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
#include "jobs/job_backend.h"
#include "jobs/local_jobs.h"
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
  std::string query;   // what follows the target's '?', as sent
  std::string content_type;
  std::string if_none_match;
  std::string origin;
  std::string last_event_id;  // an EventSource reconnecting
  std::string path_id;        // the {id} of a route like /jobs/{id}, set by Route()
  std::string path_page;      // the {n} of /jobs/{id}/pages/{n}/image, set by Route()
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
  // reserves its estimated peak memory in `memory_budget` first (null: no budget). Streams run
  // in `streams`; the job routes use `jobs` (which may be the same store).
  // REQUIRES: pipelines, metrics, memory_budget and both stores outlive the Api and every Work
  // it returned.
  Api(const ServerConfig& config, ServingFacts facts, sched::MemoryBudget* memory_budget,
      std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics, State state,
      jobs::LocalJobs& streams, jobs::JobBackend& jobs);

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
  Routed Render(ApiRequest& request) const;        // an answer the client holds, in a format
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
  Routed JobPageImage(ApiRequest& request) const;

  // A job route's answer, computed by `answer` from the job store: now, or as Work on a worker
  // when the store's calls block (Redis); a 404 for an id of the wrong shape and a 503 while
  // the store is unreachable, at once.
  // `heavy`: the answer may take a worker's time (a searchable PDF is made from the upload, a page
  // is drawn), so it is always Work.
  Routed JobRoute(ApiRequest& request, Reply (Api::*answer)(const ApiRequest& request) const,
                  bool heavy = false) const;
  Reply AnswerStatus(const ApiRequest& request) const;
  Reply AnswerDelete(const ApiRequest& request) const;
  Reply AnswerResult(const ApiRequest& request) const;
  Reply AnswerEvents(const ApiRequest& request) const;
  Reply AnswerPageImage(const ApiRequest& request) const;
  // A job store's failure: kNotFound -> 404 for the request's job, the rest as any failure.
  static Reply JobFailure(const Status& status, const ApiRequest& request);
  static Reply JobNotFound(std::string_view id);
  static Reply JobCreated(const std::string& id);               // 202 with the job's URLs
  static Reply NotFinished(const jobs::JobSnapshot& snapshot);  // 409 job_not_finished
  static std::size_t LastEventId(const ApiRequest& request);    // 0 when absent or malformed
  // The events of `job` after `last` (Last-Event-ID), or 204 when the stream already ended there.
  static Reply EventsReply(std::shared_ptr<jobs::JobView> job, std::size_t last);

  // Either form of POST /ocr, and POST /jobs (`as_job`): the parsed call becomes one Work,
  // whichever form it came in: the answer itself, or the admission of a job or a stream.
  Routed OcrRoute(ApiRequest& request, bool json_only, bool as_job) const;
  // The work that answers `call` at once (not a job or a stream), on a worker.
  Routed OcrWork(const ApiRequest& request, OcrCall call, std::size_t pipeline) const;
  // Parses either form of an OCR request; a reply when it is refused.
  std::variant<OcrCall, Reply> ParseCall(ApiRequest& request, bool json_only) const;
  // Work that admits a long document (a job, or a stream when not `as_job`): opens it once and
  // hands it to its store, which reserves its memory and starts its pages. Answers 202 with the
  // job's URLs, or the NDJSON stream.
  Reply StartJob(OcrCall& call, std::size_t pipeline, bool as_job,
                 const std::string& request_id) const;
  // The only Work body: open the document, reserve its memory, read it, answer in the call's
  // shape.
  Reply RunOcr(const OcrCall& call, std::size_t pipeline, const WorkContext& context,
               std::chrono::steady_clock::time_point received, const std::string& request_id) const;
  // Counts the document's pages and OCR stages in the metrics; returns its lines.
  int RecordDocument(const document::DocumentResult& doc) const;
  // The index of the model set called `name` ("" = the default).
  Result<size_t> FindPipeline(const std::string& name) const;
  ServerConfig config_;
  ServingFacts facts_;
  sched::MemoryBudget* memory_budget_;
  std::vector<const pipeline::Pipeline*> pipelines_;
  Metrics& metrics_;
  State state_;
  jobs::LocalJobs& streams_;
  jobs::JobBackend& jobs_;
};

}  // namespace ocr::http
