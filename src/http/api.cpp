#include "http/api.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <variant>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/text.h"
#include "document/document.h"
#include "document/render.h"
#include "engine/ort_model.h"
#include "http/base64.h"
#include "http/job_streams.h"
#include "http/marker_api.h"
#include "http/openapi.h"
#include "http/request_path.h"
#include "http/response_json.h"
#include "image/decode.h"
#include "web/assets.h"

#ifndef OCR_VERSION
#define OCR_VERSION "0.0.0"
#endif

namespace ocr::http {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The Web UI loads only its own files; images it shows are blob: URLs of the user's upload.
constexpr const char* kUiCsp =
    "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'";
// /docs is static HTML with one stylesheet and no script at all.
constexpr const char* kDocsCsp =
    "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'none'";

// "Multipart/Form-Data; boundary=x" -> "multipart/form-data".
std::string MediaType(std::string_view content_type) {
  return AsciiLower(TrimOws(content_type.substr(0, content_type.find(';'))));
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Reply MethodNotAllowed(std::string allow) {
  Reply r = ErrorReply(405, "method_not_allowed", "this route accepts only " + allow);
  r.allow = std::move(allow);
  return r;
}

// A reply now, with no work for a worker.
Routed Answer(std::string route, Reply reply) {
  return {std::move(route), std::move(reply), {}};
}

// The JSON form takes images only; PDFs go through the multipart form, which returns pages.
Status RejectPdf(std::span<const std::uint8_t> bytes) {
  if (image::SniffFormat(bytes) != image::Format::kPdf)
    return Status::Ok();
  return {StatusCode::kUnsupportedMediaType,
          "the JSON form takes images; send PDFs as multipart/form-data to POST /ocr "
          "(field \"file\")"};
}

// Logs what a client must not see (internal errors) and maps the rest.
Reply FailureReply(const Status& status, const std::string& request_id) {
  if (HttpStatusFor(status.code()) == 500) {
    spdlog::error("request_id={} {}", request_id, status.ToString());
  }
  return StatusReply(status);
}

// Whether `path` fits `pattern`, where a segment "{id}" matches any one non-empty segment (put in
// `id`).
bool MatchPath(std::string_view pattern, std::string_view path, std::string& id) {
  const size_t brace = pattern.find("{id}");
  if (brace == std::string_view::npos)
    return pattern == path;
  const std::string_view prefix = pattern.substr(0, brace);
  const std::string_view suffix = pattern.substr(brace + 4);
  if (path.size() <= prefix.size() + suffix.size() || !path.starts_with(prefix) ||
      !path.ends_with(suffix)) {
    return false;
  }
  const std::string_view segment =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (segment.find('/') != std::string_view::npos)
    return false;
  id = std::string(segment);
  return true;
}

// Memory a job's results hold per page until they expire: lines, boxes and words of a dense page
// as C++ values, with margin (a 100-line page with word boxes holds about 80 KB).
constexpr std::int64_t kResultBytesPerPage = 128 << 10;

}  // namespace

Api::Api(const ServerConfig& config, ServingFacts facts, sched::MemoryBudget* memory_budget,
         std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics, State state,
         jobs::JobStore& jobs, jobs::RedisJobs* shared_jobs)
    : config_(config),
      facts_(facts),
      memory_budget_(memory_budget),
      pipelines_(std::move(pipelines)),
      metrics_(metrics),
      state_(std::move(state)),
      jobs_(jobs),
      shared_jobs_(shared_jobs) {}

// The routes of spec/API.md section 3; the Web UI's files are found by path after these. A path
// in the table answers other methods with 405, listing the table's methods for it in Allow.
struct Api::RouteEntry {
  std::string_view method;
  std::string_view path;
  Routed (Api::*handler)(ApiRequest& request) const;
};

std::span<const Api::RouteEntry> Api::Routes() {
  static constexpr std::array<RouteEntry, 16> kRoutes = {{
      {"POST", "/ocr", &Api::Ocr},
      {"POST", "/ocr_api", &Api::OcrApi},
      {"POST", "/marker/upload", &Api::MarkerUpload},
      {"POST", "/marker", &Api::MarkerPaths},
      {"POST", "/jobs", &Api::JobCreate},
      {"GET", "/jobs/{id}", &Api::JobStatus},
      {"DELETE", "/jobs/{id}", &Api::JobDelete},
      {"GET", "/jobs/{id}/result", &Api::JobResult},
      {"GET", "/jobs/{id}/events", &Api::JobEvents},
      {"GET", "/healthz", &Api::Healthz},
      {"GET", "/readyz", &Api::Readyz},
      {"GET", "/metrics", &Api::MetricsText},
      {"GET", "/info", &Api::Info},
      {"GET", "/openapi.json", &Api::OpenApi},
      {"GET", "/docs", &Api::Docs},
      {"GET", "/docs.css", &Api::DocsCss},
  }};
  return kRoutes;
}

std::vector<std::pair<std::string_view, std::string_view>> Api::RouteList() {
  std::vector<std::pair<std::string_view, std::string_view>> list;
  for (const RouteEntry& route : Routes())
    list.emplace_back(route.method, route.path);
  return list;
}

Routed Api::Route(ApiRequest& r) const {
  Result<std::string> path = NormalizePath(r.path);
  if (!path.ok())
    return Answer("other", ErrorReply(400, "invalid_request", path.status().message()));
  r.path = std::move(path).value();
  if (r.method == "OPTIONS" && !config_.cors_origin.empty()) {
    Reply preflight(204, "", "");
    preflight.headers = {{"Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE, OPTIONS"},
                         {"Access-Control-Allow-Headers",
                          "Content-Type, X-Request-Id, "
                          "Last-Event-ID"},
                         {"Access-Control-Max-Age", "600"}};
    return Answer("preflight", std::move(preflight));
  }
  std::string allow;
  std::string id;
  std::string_view matched;
  for (const RouteEntry& route : Routes()) {
    if (!MatchPath(route.path, r.path, id))
      continue;
    r.path_id = id;
    matched = route.path;
    // HEAD is GET without the body (RFC 9110 9.3.2): the transport leaves the body out.
    if (route.method == r.method || (r.method == "HEAD" && route.method == "GET")) {
      Routed routed = (this->*route.handler)(r);
      routed.route = std::string(route.path);  // the pattern: metrics do not see job ids
      return routed;
    }
    allow += (allow.empty() ? "" : ", ") + std::string(route.method);
    if (route.method == "GET")
      allow += ", HEAD";
  }
  if (!allow.empty())
    return Answer(std::string(matched), MethodNotAllowed(std::move(allow)));
  if (const web::Asset* asset = web::FindAsset(r.path); asset != nullptr) {
    if (r.method != "GET" && r.method != "HEAD")
      return Answer("web", MethodNotAllowed("GET, HEAD"));
    Reply reply = r.if_none_match == asset->etag
                      ? Reply(304, "", std::string(asset->content_type))
                      : Reply(200, std::string(asset->body), std::string(asset->content_type));
    reply.headers = {{"ETag", std::string(asset->etag)}, {"Cache-Control", "no-cache"}};
    return Answer("web", std::move(reply));
  }
  return Answer("other", ErrorReply(404, "not_found",
                                    "no route for " + PrintableEcho(r.path, 64) + "; see /docs"));
}

Routed Api::Healthz(ApiRequest& r) const {
  return Answer(r.path, Reply{200, R"({"status":"ok"})"});
}

Routed Api::Readyz(ApiRequest& r) const {
  if (state_.draining())
    return Answer(r.path, ErrorReply(503, "not_ready", "the server is draining"));
  if (state_.saturated())
    return Answer(r.path, ErrorReply(503, "not_ready", "the queue is full; not taking more work"));
  if (shared_jobs_ != nullptr) {
    // Redis down stops only the job routes: the server stays ready for interactive requests
    // (taking every replica out of the balancer would turn a jobs outage into a total one).
    Json jobs = {{"store", "redis"}, {"available", shared_jobs_->available()}};
    if (!shared_jobs_->available())
      jobs["error"] = shared_jobs_->unavailable_reason();
    return Answer(r.path, Reply{200, DumpJson({{"status", "ready"}, {"jobs", std::move(jobs)}})});
  }
  return Answer(r.path, Reply{200, R"({"status":"ready"})"});
}

Routed Api::MetricsText(ApiRequest& r) const {
  return Answer(r.path, Reply{200, metrics_.Render(), "text/plain; version=0.0.4; charset=utf-8"});
}

Routed Api::OpenApi(ApiRequest& r) const {
  return Answer(r.path, Reply{200, OpenApiJson()});
}

Routed Api::Docs(ApiRequest& r) const {
  return Answer(r.path, Reply{200, DocsHtml(), "text/html; charset=utf-8"});
}

Routed Api::DocsCss(ApiRequest& r) const {
  return Answer(r.path, Reply{200, http::DocsCss(), "text/css; charset=utf-8"});
}

Routed Api::Info(ApiRequest& r) const {
  Json sets = Json::array();
  for (const pipeline::Pipeline* p : pipelines_) {
    const pipeline::ModelSet& m = p->models();
    sets.push_back({{"name", m.name},
                    {"classifier", m.cls != nullptr},
                    {"dictionary", m.dictionary_path.filename().string()},
                    {"dictionary_size", m.charset.size() - 2},
                    {"rec_input_height", m.rec_height}});
  }
  const Json info = {
      {"version", OCR_VERSION},
      {"onnxruntime_version", engine::Runtime::Version()},
      {"default_model", pipelines_.front()->models().name},
      {"model_sets", std::move(sets)},
      {"workers",
       {{"threads", facts_.worker_threads},
        {"io_threads", config_.io_threads},
        {"queue_size", facts_.queue_size},
        {"groups", facts_.worker_groups}}},
      {"limits",
       {{"max_body_bytes", config_.max_body_bytes},
        {"max_image_pixels", config_.limits.max_image_pixels},
        {"request_timeout_s", config_.request_timeout.count()},
        {"read_timeout_s", config_.read_timeout.count()},
        {"max_pages", config_.limits.max_pages},
        {"max_jobs", jobs_.limits().max_jobs},
        {"job_ttl_s", jobs_.limits().ttl.count()},
        {"job_timeout_s", jobs_.limits().timeout.count()}}},
      {"jobs",
       shared_jobs_ == nullptr
           ? Json{{"store", "memory"}}
           : Json{{"store", "redis"},
                  {"redis", shared_jobs_->config().endpoint.Redacted()},
                  {"lease_s", std::chrono::duration<double>(shared_jobs_->config().lease).count()},
                  {"max_result_bytes", shared_jobs_->config().max_result_bytes}}},
  };
  return Answer(r.path, Reply{200, DumpJson(info)});
}

void Api::Decorate(Reply& reply, const ApiRequest& request) const {
  reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
  reply.headers.emplace_back("Referrer-Policy", "no-referrer");
  if (reply.content_type.rfind("text/html", 0) == 0) {
    reply.headers.emplace_back("Content-Security-Policy",
                               request.path == "/docs" ? kDocsCsp : kUiCsp);
    reply.headers.emplace_back("X-Frame-Options", "DENY");
  }
  if (!config_.cors_origin.empty() && !request.origin.empty() &&
      (config_.cors_origin == "*" || config_.cors_origin == request.origin)) {
    reply.headers.emplace_back("Access-Control-Allow-Origin", config_.cors_origin);
    reply.headers.emplace_back("Access-Control-Expose-Headers", "X-Request-Id, Retry-After");
    reply.headers.emplace_back("Vary", "Origin");
  }
}

Routed Api::Ocr(ApiRequest& r) const {
  return OcrRoute(r, /*json_only=*/false, /*as_job=*/false);
}

Routed Api::OcrApi(ApiRequest& r) const {
  return OcrRoute(r, /*json_only=*/true, /*as_job=*/false);
}

Routed Api::MarkerUpload(ApiRequest& r) const {
  // marker's server is FastAPI: a request its form validation refuses is 422 there.
  const auto refused = [&r](std::string_view code, std::string message) {
    return Answer(r.path, ErrorReply(422, code, std::move(message)));
  };
  if (MediaType(r.content_type) != "multipart/form-data") {
    return refused("missing_field",
                   "POST /marker/upload takes multipart/form-data with the document in field "
                   "\"file\", as marker's server does");
  }
  ParsedCall parsed =
      ParseMultipartForm(std::move(r.body), r.content_type, config_.ocr, FormDialect::kMarker);
  r.body = std::string();
  if (const BadRequest* bad = std::get_if<BadRequest>(&parsed))
    return refused(bad->code, bad->message);
  OcrCall& call = std::get<OcrCall>(parsed);
  call.options.limits = config_.limits;
  const Result<size_t> pipe = FindPipeline(call.model);
  if (!pipe.ok())
    return refused(ErrorCode(pipe.status().code()), pipe.status().message());
  return OcrWork(r, std::move(call), *pipe);
}

Routed Api::MarkerPaths(ApiRequest& r) const {
  return Answer(
      r.path,
      ErrorReply(400, "invalid_option",
                 "this server never reads files named by a client: marker's POST /marker "
                 "with \"filepath\" would read any path on the server (see SECURITY.md). "
                 "Upload the document instead: POST /marker/upload with multipart/form-data "
                 "(field \"file\")"));
}

std::variant<OcrCall, Reply> Api::ParseCall(ApiRequest& r, bool json_only) const {
  const std::string media = MediaType(r.content_type);
  ParsedCall parsed;
  if (media == "application/json") {
    parsed = ParseJsonForm(std::move(r.body), config_.ocr);
  } else if (media == "multipart/form-data" && !json_only) {
    parsed = ParseMultipartForm(std::move(r.body), r.content_type, config_.ocr);
  } else if (media == "multipart/form-data") {
    return ErrorReply(415, "unsupported_media_type",
                      "POST /ocr_api takes application/json; send multipart uploads to POST /ocr");
  } else {
    return ErrorReply(415, "unsupported_media_type",
                      "Content-Type must be application/json or multipart/form-data (got '" +
                          PrintableEcho(media, 64) + "')");
  }
  r.body = std::string();
  if (const BadRequest* bad = std::get_if<BadRequest>(&parsed))
    return ErrorReply(400, bad->code, bad->message);
  OcrCall& call = std::get<OcrCall>(parsed);
  call.options.limits = config_.limits;
  return std::move(call);
}

Routed Api::OcrWork(const ApiRequest& r, OcrCall call, std::size_t pipe) const {
  Work work = [this, call = std::move(call), pipe, received = r.received,
               request_id = r.request_id](const WorkContext& context) {
    return RunOcr(call, pipe, context, received, request_id);
  };
  return {r.path, std::nullopt, std::move(work)};
}

Routed Api::OcrRoute(ApiRequest& r, bool json_only, bool as_job) const {
  std::variant<OcrCall, Reply> parsed = ParseCall(r, json_only);
  if (Reply* refused = std::get_if<Reply>(&parsed))
    return Answer(r.path, std::move(*refused));
  OcrCall& call = std::get<OcrCall>(parsed);
  const Result<size_t> pipe = FindPipeline(call.model);
  if (!pipe.ok())
    return Answer(r.path, StatusReply(pipe.status()));
  if (!as_job && !call.stream)
    return OcrWork(r, std::move(call), *pipe);
  if (as_job && shared_jobs_ != nullptr) {
    if (!shared_jobs_->available())
      return Answer(r.path, JobStoreDown());
    Work work = [this, call = std::move(call), pipe = *pipe,
                 request_id = r.request_id](const WorkContext& /*context*/) mutable {
      return SubmitSharedJob(call, pipe, request_id);
    };
    return {r.path, std::nullopt, std::move(work)};
  }
  if (Status admit = jobs_.CanAdmit(); !admit.ok())
    return Answer(r.path, StatusReply(admit));
  // Opening the document (a PDF's structure) runs on a worker, like any work on client bytes.
  Work work = [this, call = std::move(call), pipe = *pipe, as_job,
               request_id = r.request_id](const WorkContext& /*context*/) mutable {
    return StartJob(call, pipe, /*listed=*/as_job, request_id);
  };
  return {r.path, std::nullopt, std::move(work)};
}

Routed Api::JobCreate(ApiRequest& r) const {
  if (MediaType(r.content_type) != "multipart/form-data") {
    return Answer(r.path, ErrorReply(415, "unsupported_media_type",
                                     "POST /jobs takes multipart/form-data (field \"file\"), as "
                                     "POST /ocr does"));
  }
  return OcrRoute(r, /*json_only=*/false, /*as_job=*/true);
}

Reply Api::StartJob(OcrCall& call, std::size_t pipe, bool listed,
                    const std::string& request_id) const {
  jobs::JobSpec spec;
  auto upload = std::make_unique<std::string>(std::move(call.body));
  const std::span<const std::uint8_t> bytes =
      AsBytes(std::string_view(*upload).substr(call.offset, call.size));
  auto reader = document::PageReader::Open(bytes, call.options);
  if (!reader.ok())
    return FailureReply(reader.status(), request_id);
  const auto pages = static_cast<std::int64_t>((*reader)->pages().size());
  // The upload is held until the last page is read; the results until the job expires.
  auto work_lease = ReserveMemory(bytes, call.options, static_cast<std::int64_t>(upload->size()));
  if (!work_lease.ok())
    return FailureReply(work_lease.status(), request_id);
  if (memory_budget_ != nullptr && memory_budget_->limit() > 0) {
    auto result_lease = memory_budget_->TryReserve(pages * kResultBytesPerPage);
    if (result_lease)
      spec.result_lease.emplace(std::move(*result_lease));
    else {
      return FailureReply(Status(StatusCode::kResourceExhausted,
                                 "the memory budget (--memory-budget-mb) is held by requests and "
                                 "job results; retry later"),
                          request_id);
    }
  }
  spec.upload = std::move(upload);
  spec.reader = std::move(reader).value();
  spec.pipeline = pipe;
  spec.format = call.document_format.value_or(document::OutputFormat::kJson);
  spec.paginate = call.paginate;
  spec.word_boxes = call.options.ocr.word_boxes;
  if (work_lease->has_value())
    spec.work_lease.emplace(std::move(**work_lease));
  auto job = jobs_.Start(std::move(spec), listed);
  if (!job.ok())
    return FailureReply(job.status(), request_id);
  if (!listed) {
    Reply reply(200, "", "application/x-ndjson");
    reply.stream = MakeNdjsonStream(*job);
    reply.headers.emplace_back("Cache-Control", "no-store");
    reply.headers.emplace_back("X-Accel-Buffering", "no");  // nginx: pass each line on at once
    return reply;
  }
  return JobCreated((*job)->id());
}

Reply Api::SubmitSharedJob(OcrCall& call, std::size_t pipe, const std::string& request_id) const {
  // Opened here only to refuse a bad document at once and count its pages; the replicas that
  // read its pages open it again from Redis.
  const std::span<const std::uint8_t> bytes = AsBytes(call.file());
  auto reader = document::PageReader::Open(bytes, call.options);
  if (!reader.ok())
    return FailureReply(reader.status(), request_id);
  jobs::SharedJobSpec spec;
  spec.model = pipelines_.at(pipe)->models().name;
  spec.format = call.document_format.value_or(document::OutputFormat::kJson);
  spec.paginate = call.paginate;
  spec.options = call.options;
  auto id = shared_jobs_->Submit(call.file(), spec, (*reader)->page_count(),
                                 static_cast<int>((*reader)->pages().size()));
  if (!id.ok()) {
    return id.status().code() == StatusCode::kUnavailable ? JobStoreDown()
                                                          : FailureReply(id.status(), request_id);
  }
  return JobCreated(*id);
}

Reply Api::JobCreated(const std::string& id) {
  const std::string path = "/jobs/" + id;
  const Json body = {{"id", id},
                     {"status", "queued"},
                     {"status_url", path},
                     {"result_url", path + "/result"},
                     {"events_url", path + "/events"}};
  Reply reply(202, DumpJson(body));
  reply.headers.emplace_back("Location", path);
  return reply;
}

Reply Api::JobStoreDown() const {
  return ErrorReply(503, "not_ready",
                    shared_jobs_->unavailable_reason() +
                        "; job routes answer again by themselves when Redis is back, and POST "
                        "/ocr works meanwhile");
}

Reply Api::SharedJobFailure(const Status& status, const ApiRequest& r) const {
  if (status.code() == StatusCode::kUnavailable)
    return JobStoreDown();
  if (status.code() == StatusCode::kNotFound)
    return JobNotFound(r.path_id);
  return FailureReply(status, r.request_id);
}

Reply Api::JobNotFound(std::string_view id) {
  return ErrorReply(404, "not_found",
                    "no job " + PrintableEcho(id) +
                        ": ids are 32 hex digits, and a job is kept --job-ttl after it ends");
}

Routed Api::SharedJobRoute(ApiRequest& r,
                           Reply (Api::*answer)(const ApiRequest& request) const) const {
  if (!jobs::IsJobId(r.path_id))
    return Answer(r.path, JobNotFound(r.path_id));
  if (!shared_jobs_->available())
    return Answer(r.path, JobStoreDown());
  // Redis is called from the worker that runs this, never from an I/O thread.
  Work work = [this, answer, request = r](const WorkContext& /*context*/) {
    return (this->*answer)(request);
  };
  return {r.path, std::nullopt, std::move(work)};
}

Reply Api::SharedJobStatus(const ApiRequest& r) const {
  auto job = shared_jobs_->Find(r.path_id);
  if (!job.ok())
    return SharedJobFailure(job.status(), r);
  return Reply(200, DumpJson(JobStatusJson(job->id, job->snapshot)));
}

Reply Api::SharedJobDelete(const ApiRequest& r) const {
  auto job = shared_jobs_->Delete(r.path_id);
  if (!job.ok())
    return SharedJobFailure(job.status(), r);
  return Reply(200, DumpJson(JobStatusJson(job->id, job->snapshot)));
}

Reply Api::SharedJobResult(const ApiRequest& r) const {
  auto job = shared_jobs_->Find(r.path_id);
  if (!job.ok())
    return SharedJobFailure(job.status(), r);
  const jobs::JobSnapshot& snap = job->snapshot;
  if (!jobs::IsFinished(snap.state))
    return NotFinished(snap);
  if (snap.state != jobs::JobState::kSucceeded)
    return JobErrorReply(snap.error);
  auto doc = shared_jobs_->ReadResult(*job);
  if (!doc.ok())
    return SharedJobFailure(doc.status(), r);
  const document::DocumentOptions& o = job->spec.options;
  int lines = 0;
  for (const document::DocumentPage& page : doc->pages)
    lines += static_cast<int>(page.lines.size());
  Reply reply{200, DumpJson(DocumentResponseJson(*doc, job->spec.format, job->spec.paginate,
                                                 job->seconds, o.ocr.word_boxes))};
  reply.lines = lines;
  return reply;
}

Reply Api::SharedJobEvents(const ApiRequest& r) const {
  auto view = shared_jobs_->Follow(r.path_id, LastEventId(r));
  if (!view.ok())
    return SharedJobFailure(view.status(), r);
  return EventsReply(std::move(view).value(), LastEventId(r));
}

std::variant<std::shared_ptr<jobs::DocumentJob>, Reply> Api::FindJob(const ApiRequest& r) const {
  std::shared_ptr<jobs::DocumentJob> job;
  if (jobs::IsJobId(r.path_id))
    job = jobs_.Find(r.path_id);
  if (!job)
    return JobNotFound(r.path_id);
  return job;
}

Routed Api::JobStatus(ApiRequest& r) const {
  if (shared_jobs_ != nullptr)
    return SharedJobRoute(r, &Api::SharedJobStatus);
  auto found = FindJob(r);
  if (Reply* missing = std::get_if<Reply>(&found))
    return Answer(r.path, std::move(*missing));
  const auto& job = std::get<std::shared_ptr<jobs::DocumentJob>>(found);
  return Answer(r.path, Reply(200, DumpJson(JobStatusJson(job->id(), job->Snapshot()))));
}

Routed Api::JobDelete(ApiRequest& r) const {
  if (shared_jobs_ != nullptr)
    return SharedJobRoute(r, &Api::SharedJobDelete);
  auto found = FindJob(r);
  if (Reply* missing = std::get_if<Reply>(&found))
    return Answer(r.path, std::move(*missing));
  const auto& job = std::get<std::shared_ptr<jobs::DocumentJob>>(found);
  if (job->finished_at())
    jobs_.Forget(job->id());  // a finished job: its result is freed
  else
    job->Cancel(Status(StatusCode::kCancelled, "cancelled by DELETE /jobs/" + job->id()));
  return Answer(r.path, Reply(200, DumpJson(JobStatusJson(job->id(), job->Snapshot()))));
}

Reply Api::NotFinished(const jobs::JobSnapshot& snap) {
  return ErrorReply(409, "job_not_finished",
                    "the job is " + std::string(jobs::StateName(snap.state)) + " (" +
                        std::to_string(snap.pages_done) + " of " +
                        std::to_string(snap.pages_total) +
                        " pages done); follow its events_url or poll its status_url");
}

Routed Api::JobResult(ApiRequest& r) const {
  if (shared_jobs_ != nullptr)
    return SharedJobRoute(r, &Api::SharedJobResult);
  auto found = FindJob(r);
  if (Reply* missing = std::get_if<Reply>(&found))
    return Answer(r.path, std::move(*missing));
  const auto& job = std::get<std::shared_ptr<jobs::DocumentJob>>(found);
  const jobs::JobSnapshot snap = job->Snapshot();
  if (!jobs::IsFinished(snap.state))
    return Answer(r.path, NotFinished(snap));
  if (snap.state != jobs::JobState::kSucceeded)
    return Answer(r.path, JobErrorReply(snap.error));
  const jobs::JobSpec& spec = job->spec();
  return Answer(r.path, DocumentReply(job->result(), spec.format, spec.paginate, job->seconds(),
                                      spec.word_boxes));
}

std::size_t Api::LastEventId(const ApiRequest& r) {
  std::size_t last = 0;
  const std::string& text = r.last_event_id;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), last);
  if (ec != std::errc() || end != text.data() + text.size())
    return 0;
  return last;
}

Reply Api::EventsReply(std::shared_ptr<jobs::JobView> job, std::size_t last) {
  // An id past the log (made up, or from another job) resumes from its end.
  const bool finished = jobs::IsFinished(job->Snapshot().state);
  last = std::min(last, job->event_count());
  // A browser's EventSource reconnects whenever a stream ends; after the last event, 204 tells
  // it to stop (the HTML standard's way).
  if (last > 0 && finished && last == job->event_count())
    return Reply(204, "", "");
  Reply reply(200, "", "text/event-stream");
  reply.stream = MakeEventStream(std::move(job), last);
  reply.headers.emplace_back("Cache-Control", "no-store");
  reply.headers.emplace_back("X-Accel-Buffering", "no");
  return reply;
}

Routed Api::JobEvents(ApiRequest& r) const {
  if (shared_jobs_ != nullptr)
    return SharedJobRoute(r, &Api::SharedJobEvents);
  auto found = FindJob(r);
  if (Reply* missing = std::get_if<Reply>(&found))
    return Answer(r.path, std::move(*missing));
  return Answer(r.path, EventsReply(std::move(std::get<std::shared_ptr<jobs::DocumentJob>>(found)),
                                    LastEventId(r)));
}

Reply Api::RunOcr(const OcrCall& call, std::size_t pipe, const WorkContext& context,
                  Clock::time_point received, const std::string& request_id) const {
  // marker's server answers a document it cannot convert with 200 and success false; overload,
  // deadlines and our own faults keep their statuses.
  const auto failed = [&call, &request_id](const Status& status) {
    const unsigned http = HttpStatusFor(status.code());
    if (call.marker_format && (http == 400 || http == 415 || http == 422))
      return ErrorReply(200, ErrorCode(status.code()), status.message());
    return FailureReply(status, request_id);
  };
  std::string decoded;
  std::string_view bytes = call.file();
  if (call.base64) {
    Result<std::string> b = DecodeBase64(bytes);
    if (!b.ok())
      return ErrorReply(400, "invalid_base64", "image: " + b.status().message());
    decoded = std::move(b).value();
    bytes = decoded;
    if (Status s = RejectPdf(AsBytes(bytes)); !s.ok())
      return FailureReply(s, request_id);
  }
  auto lease = ReserveMemory(AsBytes(bytes), call.options);
  if (!lease.ok())
    return failed(lease.status());
  auto doc = document::ReadDocument(AsBytes(bytes), *context.pipelines[pipe], call.options,
                                    context.stop, context.runner);
  if (!doc.ok())
    return failed(doc.status());
  const bool words = call.options.ocr.word_boxes;
  if (call.marker_format) {
    Reply reply(200, MarkerResponseJson(*doc, *call.marker_format, call.paginate)
                         .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    reply.lines = RecordDocument(*doc);
    return reply;
  }
  if (call.document_format) {
    return DocumentReply(*doc, *call.document_format, call.paginate, SecondsSince(received), words);
  }
  const document::DocumentPage& page = doc->pages.front();
  metrics_.RecordPipeline(page.times, page.lines.size());
  Reply reply{200, DumpJson(OcrResponseJson(page.lines, SecondsSince(received), words))};
  reply.lines = static_cast<int>(page.lines.size());
  return reply;
}

int Api::RecordDocument(const document::DocumentResult& doc) const {
  int lines = 0;
  for (const document::DocumentPage& page : doc.pages) {
    if (!page.from_text_layer)
      metrics_.RecordPipeline(page.times, page.lines.size());
    lines += static_cast<int>(page.lines.size());
  }
  metrics_.RecordPages(doc.pages.size());
  return lines;
}

Reply Api::DocumentReply(const document::DocumentResult& doc, document::OutputFormat format,
                         bool paginate, double seconds, bool words) const {
  Reply reply{200, DumpJson(DocumentResponseJson(doc, format, paginate, seconds, words))};
  reply.lines = RecordDocument(doc);
  return reply;
}

Result<size_t> Api::FindPipeline(const std::string& name) const {
  if (name.empty())
    return size_t{0};
  std::string known;
  for (size_t i = 0; i < pipelines_.size(); ++i) {
    if (pipelines_[i]->models().name == name)
      return i;
    known += (known.empty() ? "" : ", ") + pipelines_[i]->models().name;
  }
  return InvalidArgument("unknown model '" + name + "'; available: " + known);
}

Result<std::optional<sched::MemoryBudget::Lease>> Api::ReserveMemory(
    std::span<const std::uint8_t> bytes, const document::DocumentOptions& options,
    std::int64_t extra_bytes) const {
  sched::MemoryBudget* budget = memory_budget_;
  if (budget == nullptr || budget->limit() <= 0)
    return std::optional<sched::MemoryBudget::Lease>();
  OCR_ASSIGN_OR_RETURN(std::int64_t need,
                       document::EstimateDocumentBytes(bytes, options, facts_.parallel_pages));
  need += extra_bytes;
  const std::string limit_mb = std::to_string(budget->limit() >> 20) + " MB";
  if (need > budget->limit()) {
    return Status(StatusCode::kImageTooLarge,
                  "this document needs about " + std::to_string(need >> 20) +
                      " MB to process, more than the whole memory budget of " + limit_mb +
                      " (--memory-budget-mb)");
  }
  auto lease = budget->TryReserve(need);
  if (!lease) {
    return Status(StatusCode::kResourceExhausted,
                  "the memory budget (" + limit_mb +
                      ", --memory-budget-mb) is held by requests in flight; retry after a second");
  }
  return std::optional<sched::MemoryBudget::Lease>(std::move(lease));
}

}  // namespace ocr::http
