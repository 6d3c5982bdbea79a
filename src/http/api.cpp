#include "http/api.h"

#include <algorithm>
#include <array>
#include <variant>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/text.h"
#include "document/document.h"
#include "document/render.h"
#include "engine/ort_model.h"
#include "http/base64.h"
#include "http/openapi.h"
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

}  // namespace

Api::Api(const ServerConfig& config, ServingFacts facts, sched::MemoryBudget* memory_budget,
         std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics, State state)
    : config_(config),
      facts_(facts),
      memory_budget_(memory_budget),
      pipelines_(std::move(pipelines)),
      metrics_(metrics),
      state_(std::move(state)) {}

// The routes of spec/API.md section 3; the Web UI's files are found by path after these. A path
// in the table answers other methods with 405, listing the table's methods for it in Allow.
struct Api::RouteEntry {
  std::string_view method;
  std::string_view path;
  Routed (Api::*handler)(ApiRequest& request) const;
};

std::span<const Api::RouteEntry> Api::Routes() {
  static constexpr std::array<RouteEntry, 9> kRoutes = {{
      {"POST", "/ocr", &Api::Ocr},
      {"POST", "/ocr_api", &Api::OcrApi},
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
  if (r.method == "OPTIONS" && !config_.cors_origin.empty()) {
    Reply preflight(204, "", "");
    preflight.headers = {{"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
                         {"Access-Control-Allow-Headers", "Content-Type, X-Request-Id"},
                         {"Access-Control-Max-Age", "600"}};
    return Answer("preflight", std::move(preflight));
  }
  std::string allow;
  for (const RouteEntry& route : Routes()) {
    if (route.path != r.path)
      continue;
    if (route.method == r.method)
      return (this->*route.handler)(r);
    allow += (allow.empty() ? "" : ", ") + std::string(route.method);
  }
  if (!allow.empty())
    return Answer(r.path, MethodNotAllowed(std::move(allow)));
  if (const web::Asset* asset = web::FindAsset(r.path); asset != nullptr) {
    if (r.method != "GET")
      return Answer("web", MethodNotAllowed("GET"));
    Reply reply = r.if_none_match == asset->etag
                      ? Reply(304, "", std::string(asset->content_type))
                      : Reply(200, std::string(asset->body), std::string(asset->content_type));
    reply.headers = {{"ETag", std::string(asset->etag)}, {"Cache-Control", "no-cache"}};
    return Answer("web", std::move(reply));
  }
  return Answer("other", ErrorReply(404, "not_found", "no route for " + r.path + "; see /docs"));
}

Routed Api::Healthz(ApiRequest& r) const {
  return Answer(r.path, Reply{200, R"({"status":"ok"})"});
}

Routed Api::Readyz(ApiRequest& r) const {
  if (state_.draining())
    return Answer(r.path, ErrorReply(503, "not_ready", "the server is draining"));
  if (state_.saturated())
    return Answer(r.path, ErrorReply(503, "not_ready", "the queue is full; not taking more work"));
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
        {"read_timeout_s", config_.read_timeout.count()}}},
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
  return OcrRoute(r, /*json_only=*/false);
}

Routed Api::OcrApi(ApiRequest& r) const {
  return OcrRoute(r, /*json_only=*/true);
}

Routed Api::OcrRoute(ApiRequest& r, bool json_only) const {
  const std::string media = MediaType(r.content_type);
  ParsedCall parsed;
  if (media == "application/json") {
    parsed = ParseJsonForm(std::move(r.body));
  } else if (media == "multipart/form-data" && !json_only) {
    parsed = ParseMultipartForm(std::move(r.body), r.content_type);
  } else if (media == "multipart/form-data") {
    return Answer(r.path, ErrorReply(415, "unsupported_media_type",
                                     "POST /ocr_api takes application/json; send multipart "
                                     "uploads to POST /ocr"));
  } else {
    return Answer(r.path, ErrorReply(415, "unsupported_media_type",
                                     "Content-Type must be application/json or "
                                     "multipart/form-data (got '" +
                                         media + "')"));
  }
  r.body = std::string();
  if (const BadRequest* bad = std::get_if<BadRequest>(&parsed))
    return Answer(r.path, ErrorReply(400, bad->code, bad->message));
  OcrCall& call = std::get<OcrCall>(parsed);
  const Result<size_t> pipe = FindPipeline(call.model);
  if (!pipe.ok())
    return Answer(r.path, StatusReply(pipe.status()));
  call.options.limits = config_.limits;
  Work work = [this, call = std::move(call), pipe = *pipe, received = r.received,
               request_id = r.request_id](const WorkContext& context) {
    return RunOcr(call, pipe, context, received, request_id);
  };
  return {r.path, std::nullopt, std::move(work)};
}

Reply Api::RunOcr(const OcrCall& call, std::size_t pipe, const WorkContext& context,
                  Clock::time_point received, const std::string& request_id) const {
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
    return FailureReply(lease.status(), request_id);
  auto doc = document::ReadDocument(AsBytes(bytes), *context.pipelines[pipe], call.options,
                                    context.stop, context.runner);
  if (!doc.ok())
    return FailureReply(doc.status(), request_id);
  const bool words = call.options.ocr.word_boxes;
  if (call.document_format) {
    return DocumentReply(*doc, *call.document_format, call.paginate, SecondsSince(received), words);
  }
  const document::DocumentPage& page = doc->pages.front();
  metrics_.RecordPipeline(page.times, page.lines.size());
  Reply reply{200, DumpJson(OcrResponseJson(page.lines, SecondsSince(received), words))};
  reply.lines = static_cast<int>(page.lines.size());
  return reply;
}

Reply Api::DocumentReply(const document::DocumentResult& doc, document::OutputFormat format,
                         bool paginate, double seconds, bool words) const {
  int lines = 0;
  for (const document::DocumentPage& page : doc.pages) {
    if (!page.from_text_layer)
      metrics_.RecordPipeline(page.times, page.lines.size());
    lines += static_cast<int>(page.lines.size());
  }
  metrics_.RecordPages(doc.pages.size());
  Reply reply{200, DumpJson(DocumentResponseJson(doc, format, paginate, seconds, words))};
  reply.lines = lines;
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
    std::span<const std::uint8_t> bytes, const document::DocumentOptions& options) const {
  sched::MemoryBudget* budget = memory_budget_;
  if (budget == nullptr || budget->limit() <= 0)
    return std::optional<sched::MemoryBudget::Lease>();
  OCR_ASSIGN_OR_RETURN(const std::int64_t need,
                       document::EstimateDocumentBytes(bytes, options, facts_.parallel_pages));
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
