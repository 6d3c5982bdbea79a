#include "http/api.h"

#include <array>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "engine/ort_model.h"
#include "http/internal/route_replies.h"
#include "http/openapi.h"
#include "http/request_path.h"
#include "http/response_json.h"
#include "web/assets.h"

#ifndef OCR_VERSION
#define OCR_VERSION "0.0.0"
#endif

namespace ocr::http {
namespace {

using internal::Answer;
using Json = nlohmann::json;

// The Web UI loads only its own files; images it shows are blob: URLs of the user's upload.
constexpr const char* kUiCsp =
    "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'";
// /docs is static HTML with one stylesheet and no script at all.
constexpr const char* kDocsCsp =
    "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'none'";

Reply MethodNotAllowed(std::string allow) {
  Reply r = ErrorReply(405, "method_not_allowed", "this route accepts only " + allow);
  r.allow = std::move(allow);
  return r;
}

// Whether `path` fits `pattern` segment by segment, where a segment "{id}" or "{n}" matches any
// one non-empty segment (put in `id` or `n`).
bool MatchPath(std::string_view pattern, std::string_view path, std::string& id, std::string& n) {
  while (!pattern.empty() && !path.empty()) {
    const size_t p_end = std::min(pattern.find('/', 1), pattern.size());
    const size_t s_end = std::min(path.find('/', 1), path.size());
    const std::string_view want = pattern.substr(0, p_end);
    const std::string_view have = path.substr(0, s_end);
    if (want == "/{id}" || want == "/{n}") {
      if (have.size() < 2)
        return false;
      (want == "/{id}" ? id : n) = std::string(have.substr(1));
    } else if (want != have) {
      return false;
    }
    pattern.remove_prefix(p_end);
    path.remove_prefix(s_end);
  }
  return pattern.empty() && path.empty();
}

}  // namespace

Api::Api(const ServerConfig& config, ServingFacts facts, sched::MemoryBudget* memory_budget,
         std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics, State state,
         jobs::LocalJobs& streams, jobs::JobBackend& jobs)
    : config_(config),
      facts_(facts),
      memory_budget_(memory_budget),
      pipelines_(std::move(pipelines)),
      metrics_(metrics),
      state_(std::move(state)),
      streams_(streams),
      jobs_(jobs) {}

// The routes of spec/API.md section 3; the Web UI's files are found by path after these. A path
// in the table answers other methods with 405, listing the table's methods for it in Allow.
struct Api::RouteEntry {
  std::string_view method;
  std::string_view path;
  Routed (Api::*handler)(ApiRequest& request) const;
};

std::span<const Api::RouteEntry> Api::Routes() {
  static constexpr std::array<RouteEntry, 18> kRoutes = {{
      {"POST", "/ocr", &Api::Ocr},
      {"POST", "/ocr_api", &Api::OcrApi},
      {"POST", "/marker/upload", &Api::MarkerUpload},
      {"POST", "/marker", &Api::MarkerPaths},
      {"POST", "/render", &Api::Render},
      {"POST", "/jobs", &Api::JobCreate},
      {"GET", "/jobs/{id}", &Api::JobStatus},
      {"DELETE", "/jobs/{id}", &Api::JobDelete},
      {"GET", "/jobs/{id}/result", &Api::JobResult},
      {"GET", "/jobs/{id}/events", &Api::JobEvents},
      {"GET", "/jobs/{id}/pages/{n}/image", &Api::JobPageImage},
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
  std::string n;
  std::string_view matched;
  for (const RouteEntry& route : Routes()) {
    if (!MatchPath(route.path, r.path, id, n))
      continue;
    r.path_id = id;
    r.path_page = n;
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
  if (jobs_.Facts().shared) {
    // The job store down stops only the job routes: the server stays ready for interactive
    // requests (taking every replica out of the balancer would turn a jobs outage into a total
    // one).
    const Status health = jobs_.Health();
    Json jobs = {{"store", "redis"}, {"available", health.ok()}};
    if (!health.ok())
      jobs["error"] = health.message();
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

namespace {

// /info's "jobs": where the job routes keep jobs.
Json JobStoreInfo(const jobs::JobStoreFacts& store) {
  if (store.shared) {
    return {{"store", "redis"},
            {"redis", store.endpoint},
            {"lease_s", store.lease_s},
            {"max_result_bytes", store.max_result_bytes}};
  }
  if (!store.data_dir.empty())
    return {{"store", "disk"}, {"data_dir", store.data_dir}};
  return {{"store", "memory"}};
}

// /info's account of one model file of a set: its path from the set's folder (a part may be
// another set's file: "../ppocrv4-int8/rec/rec.onnx"), never where the server keeps its folders.
Json PartInfo(const pipeline::ModelPart& part, const std::filesystem::path& set_dir) {
  return {{"family", pipeline::ModelFamilyName(part.family)},
          {"file", part.file.lexically_relative(set_dir).generic_string()},
          {"sha256", part.sha256}};
}

}  // namespace

Routed Api::Info(ApiRequest& r) const {
  Json sets = Json::array();
  for (const pipeline::Pipeline* p : pipelines_) {
    const pipeline::ModelSet& m = p->models();
    Json parts = {{"det", PartInfo(m.det_part, m.dir)}, {"rec", PartInfo(m.rec_part, m.dir)}};
    parts["rec"]["dictionary"] = {{"file", m.dictionary_path.lexically_relative(m.dir).string()},
                                  {"sha256", m.dictionary_sha256}};
    if (m.cls != nullptr)
      parts["cls"] = PartInfo(m.cls_part, m.dir);
    sets.push_back({{"name", m.name},
                    {"parts", std::move(parts)},
                    {"classifier", m.cls != nullptr},
                    {"dictionary", m.dictionary_path.filename().string()},
                    {"dictionary_size", m.charset.size() - 2},
                    {"rec_input_height", m.rec_height}});
  }
  const jobs::JobStoreFacts store = jobs_.Facts();
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
        {"max_jobs", config_.jobs.max_jobs},
        {"job_ttl_s", config_.jobs.ttl.count()},
        {"job_timeout_s", config_.jobs.timeout.count()}}},
      {"jobs", JobStoreInfo(store)},
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

}  // namespace ocr::http
