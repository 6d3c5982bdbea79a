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
#include <vector>

#include "common/task_runner.h"
#include "http/error_mapping.h"
#include "http/metrics.h"
#include "pipeline/document.h"
#include "pipeline/pipeline.h"
#include "sched/memory_budget.h"

namespace ocr::http {

struct ApiConfig {
  std::int64_t max_image_pixels = 50'000'000;  // width x height, checked from the header
  int max_pdf_pages = 200;                     // longer PDFs: 422 too_many_pages
  double pdf_dpi = 200;                        // PDF pages are rendered at this resolution
  std::string cors_origin;                     // "" = CORS off; "*" or one origin
  // Work reserves its estimated peak memory here first (null: no budget). REQUIRES: outlives
  // the Api and every Work it returned.
  sched::MemoryBudget* memory_budget = nullptr;
  int parallel_pages = 1;  // pages of one document in flight at once (a group's workers)
  // Reported by /info.
  int worker_threads = 1;
  int worker_groups = 1;  // one per NUMA node in use
  int io_threads = 2;
  std::size_t queue_size = 64;
  std::uint64_t max_body_bytes = 32ull << 20;
  std::chrono::seconds request_timeout{60};
  std::chrono::seconds read_timeout{30};
};

struct ApiRequest {
  std::string method;  // as sent, e.g. "POST"
  std::string path;    // target without the query string
  std::string content_type;
  std::string if_none_match;
  std::string origin;
  std::string body;  // moved into the work when there is some
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
  // group has the same sets in the same order, and Work finds its group's by index).
  // REQUIRES: pipelines and metrics outlive the Api.
  Api(ApiConfig config, std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics,
      State state);

  Routed Route(ApiRequest& request) const;

  // Adds the headers every reply carries: CORS (when configured), nosniff, no-referrer, and for
  // HTML pages a strict Content-Security-Policy.
  void Decorate(Reply& reply, const ApiRequest& request) const;

 private:
  Routed Ocr(ApiRequest& request, bool json_only) const;
  Routed OcrJson(ApiRequest& request) const;
  Routed OcrForm(ApiRequest& request) const;
  Reply Info() const;
  Reply DocumentReply(const pipeline::DocumentResult& doc, pipeline::OutputFormat format,
                      bool paginate, double seconds, bool words) const;
  // The index of the model set called `name` ("" = the default).
  Result<size_t> FindPipeline(const std::string& name) const;
  // Reserves the document's estimated peak memory; an empty lease when there is no budget.
  // Errors: kResourceExhausted (503, retry) when requests in flight hold the budget;
  // kImageTooLarge when the document alone needs more than the whole budget; those of
  // EstimateDocumentBytes.
  Result<std::optional<sched::MemoryBudget::Lease>> ReserveMemory(
      std::span<const std::uint8_t> bytes, const pipeline::DocumentOptions& options) const;

  ApiConfig config_;
  std::vector<const pipeline::Pipeline*> pipelines_;
  Metrics& metrics_;
  State state_;
};

// Parses "true/false/1/0/yes/no" in any case. kInvalidArgument naming `field` otherwise.
Result<bool> ParseFormBool(std::string_view field, std::string_view value);

}  // namespace ocr::http
