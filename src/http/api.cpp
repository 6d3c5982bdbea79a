#include "http/api.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "engine/ort_model.h"
#include "http/base64.h"
#include "http/multipart.h"
#include "http/openapi.h"
#include "http/response_json.h"
#include "image/decode.h"
#include "pipeline/document.h"
#include "pipeline/layout.h"
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

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "Multipart/Form-Data; boundary=x" -> "multipart/form-data".
std::string MediaType(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  while (!content_type.empty() && std::isspace(static_cast<unsigned char>(content_type.front()))) {
    content_type.remove_prefix(1);
  }
  while (!content_type.empty() && std::isspace(static_cast<unsigned char>(content_type.back()))) {
    content_type.remove_suffix(1);
  }
  return Lower(content_type);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Reply MethodNotAllowed(std::string allow) {
  Reply r = ErrorReply(405, "method_not_allowed", "this route accepts only " + allow);
  r.allow = std::move(allow);
  return r;
}

Routed Now(std::string route, Reply reply) {
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

std::span<const std::uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Reads an optional JSON option; kInvalidArgument when present with the wrong type.
Status ReadJsonOptions(const Json& body, pipeline::OcrOptions& options) {
  if (const auto cls = body.find("cls"); cls != body.end() && !cls->is_null()) {
    if (!cls->is_boolean())
      return InvalidArgument("\"cls\" must be true or false");
    options.use_cls = cls->get<bool>();
  }
  if (const auto wb = body.find("return_word_boxes"); wb != body.end() && !wb->is_null()) {
    if (!wb->is_boolean())
      return InvalidArgument("\"return_word_boxes\" must be true or false");
    options.word_boxes = wb->get<bool>();
  }
  if (const auto ds = body.find("drop_score"); ds != body.end() && !ds->is_null()) {
    if (!ds->is_number())
      return InvalidArgument("\"drop_score\" must be a number from 0 to 1");
    const double v = ds->get<double>();
    if (!(v >= 0.0 && v <= 1.0)) {
      return InvalidArgument("\"drop_score\" must be from 0 to 1 (got " + ds->dump() + ")");
    }
    options.drop_score = static_cast<float>(v);
  }
  return pipeline::ValidateOptions(options);
}

}  // namespace

Result<bool> ParseFormBool(std::string_view field, std::string_view value) {
  const std::string v = Lower(value);
  if (v == "true" || v == "1" || v == "yes")
    return true;
  if (v == "false" || v == "0" || v == "no")
    return false;
  return InvalidArgument(std::string(field) + " must be true/false, 1/0 or yes/no");
}

Api::Api(ApiConfig config, std::vector<const pipeline::Pipeline*> pipelines, Metrics& metrics,
         State state)
    : config_(std::move(config)),
      pipelines_(std::move(pipelines)),
      metrics_(metrics),
      state_(std::move(state)) {}

Reply Api::DocumentReply(const pipeline::DocumentResult& doc, pipeline::OutputFormat format,
                         bool paginate, double seconds, bool words) const {
  int lines = 0;
  for (const pipeline::DocumentPage& page : doc.pages) {
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
    std::span<const std::uint8_t> bytes, const pipeline::DocumentOptions& options) const {
  sched::MemoryBudget* budget = config_.memory_budget;
  if (budget == nullptr || budget->limit() <= 0)
    return std::optional<sched::MemoryBudget::Lease>();
  OCR_ASSIGN_OR_RETURN(const std::int64_t need,
                       pipeline::EstimateDocumentBytes(bytes, options, config_.parallel_pages));
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

Routed Api::Route(ApiRequest& r) const {
  const std::string& path = r.path;
  const bool get = r.method == "GET";
  if (r.method == "OPTIONS" && !config_.cors_origin.empty()) {
    Reply preflight(204, "", "");
    preflight.headers = {{"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
                         {"Access-Control-Allow-Headers", "Content-Type, X-Request-Id"},
                         {"Access-Control-Max-Age", "600"}};
    return Now("preflight", std::move(preflight));
  }
  if (path == "/ocr" || path == "/ocr_api") {
    if (r.method != "POST")
      return Now(path, MethodNotAllowed("POST"));
    return Ocr(r, path == "/ocr_api");
  }
  if (path == "/healthz") {
    return Now(path, get ? Reply{200, R"({"status":"ok"})"} : MethodNotAllowed("GET"));
  }
  if (path == "/readyz") {
    if (!get)
      return Now(path, MethodNotAllowed("GET"));
    if (state_.draining())
      return Now(path, ErrorReply(503, "not_ready", "the server is draining"));
    if (state_.saturated()) {
      return Now(path, ErrorReply(503, "not_ready", "the queue is full; not taking more work"));
    }
    return Now(path, Reply{200, R"({"status":"ready"})"});
  }
  if (path == "/metrics") {
    if (!get)
      return Now(path, MethodNotAllowed("GET"));
    return Now(path, Reply{200, metrics_.Render(), "text/plain; version=0.0.4; charset=utf-8"});
  }
  if (path == "/info")
    return Now(path, get ? Info() : MethodNotAllowed("GET"));
  if (path == "/openapi.json") {
    return Now(path, get ? Reply{200, OpenApiJson()} : MethodNotAllowed("GET"));
  }
  if (path == "/docs" || path == "/docs.css") {
    if (!get)
      return Now(path, MethodNotAllowed("GET"));
    return Now(path, path == "/docs" ? Reply{200, DocsHtml(), "text/html; charset=utf-8"}
                                     : Reply{200, DocsCss(), "text/css; charset=utf-8"});
  }
  if (const web::Asset* asset = web::FindAsset(path); asset != nullptr) {
    if (!get)
      return Now("web", MethodNotAllowed("GET"));
    Reply reply = r.if_none_match == asset->etag
                      ? Reply(304, "", std::string(asset->content_type))
                      : Reply(200, std::string(asset->body), std::string(asset->content_type));
    reply.headers = {{"ETag", std::string(asset->etag)}, {"Cache-Control", "no-cache"}};
    return Now("web", std::move(reply));
  }
  return Now("other", ErrorReply(404, "not_found", "no route for " + path + "; see /docs"));
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

Reply Api::Info() const {
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
       {{"threads", config_.worker_threads},
        {"io_threads", config_.io_threads},
        {"queue_size", config_.queue_size},
        {"groups", config_.worker_groups}}},
      {"limits",
       {{"max_body_bytes", config_.max_body_bytes},
        {"max_image_pixels", config_.max_image_pixels},
        {"request_timeout_s", config_.request_timeout.count()},
        {"read_timeout_s", config_.read_timeout.count()}}},
  };
  return {200, DumpJson(info)};
}

Routed Api::Ocr(ApiRequest& r, bool json_only) const {
  const std::string media = MediaType(r.content_type);
  if (media == "application/json")
    return OcrJson(r);
  if (media == "multipart/form-data") {
    if (json_only) {
      return Now("/ocr_api", ErrorReply(415, "unsupported_media_type",
                                        "POST /ocr_api takes application/json; send multipart "
                                        "uploads to POST /ocr"));
    }
    return OcrForm(r);
  }
  return Now(r.path, ErrorReply(415, "unsupported_media_type",
                                "Content-Type must be application/json or multipart/form-data "
                                "(got '" +
                                    media + "')"));
}

Routed Api::OcrJson(ApiRequest& r) const {
  const std::string route = r.path;
  Json body = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  r.body = std::string();
  if (body.is_discarded()) {
    return Now(route, ErrorReply(400, "invalid_json", "request body is not valid JSON"));
  }
  if (!body.is_object()) {
    return Now(route, ErrorReply(400, "invalid_json", "request body must be a JSON object"));
  }
  const auto image = body.find("image");
  if (image == body.end() || image->is_null()) {
    return Now(route, ErrorReply(400, "missing_field",
                                 "field \"image\" is required: a base64 string or a data: URI"));
  }
  if (!image->is_string()) {
    return Now(route, ErrorReply(400, "invalid_option",
                                 "\"image\" must be a string (base64 or data: URI)"));
  }
  std::string model;
  if (const auto m = body.find("model"); m != body.end() && !m->is_null()) {
    if (!m->is_string())
      return Now(route, ErrorReply(400, "invalid_option", "\"model\" must be a string"));
    model = m->get<std::string>();
  }
  auto pipe = FindPipeline(model);
  if (!pipe.ok())
    return Now(route, StatusReply(pipe.status()));
  pipeline::OcrOptions options;
  if (Status s = ReadJsonOptions(body, options); !s.ok()) {
    return Now(route, StatusReply(s));
  }
  Work work = [this, b64 = std::move(image->get_ref<std::string&>()), pipe = *pipe, options,
               received = r.received, request_id = r.request_id](const WorkContext& context) {
    auto bytes = DecodeBase64(b64);
    if (!bytes.ok())
      return ErrorReply(400, "invalid_base64", "image: " + bytes.status().message());
    if (Status s = RejectPdf(Bytes(*bytes)); !s.ok())
      return FailureReply(s, request_id);
    pipeline::DocumentOptions doc_options;
    doc_options.ocr = options;
    doc_options.max_image_pixels = config_.max_image_pixels;
    doc_options.page_range = "0";  // the JSON form answers one page: a TIFF's first frame
    auto lease = ReserveMemory(Bytes(*bytes), doc_options);
    if (!lease.ok())
      return FailureReply(lease.status(), request_id);
    auto doc = pipeline::ReadDocument(Bytes(*bytes), *context.pipelines[pipe], doc_options,
                                      context.stop, context.runner);
    if (!doc.ok())
      return FailureReply(doc.status(), request_id);
    const pipeline::DocumentPage& page = doc->pages.front();
    metrics_.RecordPipeline(page.times, page.lines.size());
    Reply reply{200,
                DumpJson(OcrResponseJson(page.lines, SecondsSince(received), options.word_boxes))};
    reply.lines = static_cast<int>(page.lines.size());
    return reply;
  };
  return {route, std::nullopt, std::move(work)};
}

Routed Api::OcrForm(ApiRequest& r) const {
  const std::string route = r.path;
  auto bad_form = [&](const Status& s) {
    return Now(route, ErrorReply(400, "invalid_multipart", s.message()));
  };
  auto boundary = MultipartBoundary(r.content_type);
  if (!boundary.ok())
    return bad_form(boundary.status());
  auto parts = ParseMultipart(r.body, *boundary);
  if (!parts.ok())
    return bad_form(parts.status());

  const MultipartPart* file = nullptr;
  std::string model;
  std::string page_range;
  pipeline::OutputFormat format = pipeline::OutputFormat::kJson;
  bool paginate = false;
  bool force_ocr = false;
  pipeline::OcrOptions options;
  for (const MultipartPart& part : *parts) {
    const std::string_view value = part.body;
    Status status;
    if (part.name == "file") {
      if (file != nullptr)
        return Now(route, ErrorReply(400, "invalid_option", "send one file per request"));
      file = &part;
    } else if (part.name == "output_format") {
      auto f = pipeline::ParseOutputFormat(value);
      if (!f.ok())
        return Now(route, StatusReply(f.status()));
      format = *f;
    } else if (part.name == "paginate_output" || part.name == "force_ocr" || part.name == "cls" ||
               part.name == "return_word_boxes") {
      auto b = ParseFormBool(part.name, value);
      if (!b.ok())
        return Now(route, StatusReply(b.status()));
      if (part.name == "paginate_output")
        paginate = *b;
      if (part.name == "cls")
        options.use_cls = *b;
      if (part.name == "force_ocr")
        force_ocr = *b;
      if (part.name == "return_word_boxes" && *b)
        options.word_boxes = true;
    } else if (part.name == "drop_score") {
      float v = -1;
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size() || !(v >= 0 && v <= 1)) {
        return Now(route,
                   ErrorReply(400, "invalid_option", "drop_score must be a number from 0 to 1"));
      }
      options.drop_score = v;
    } else if (part.name == "model") {
      model = std::string(value);
    } else if (part.name == "page_range") {
      page_range = std::string(value);
    }
    // Unknown fields are ignored, as HTML forms send whatever inputs they have.
  }
  if (file == nullptr) {
    return Now(route, ErrorReply(400, "missing_field",
                                 "form field \"file\" is required: the image or PDF to read"));
  }
  auto pipe = FindPipeline(model);
  if (!pipe.ok())
    return Now(route, StatusReply(pipe.status()));
  if (Status s = pipeline::ValidateOptions(options); !s.ok())
    return Now(route, StatusReply(s));

  // The work owns the body; the file part is found again by its offset after the move.
  const size_t offset = static_cast<size_t>(file->body.data() - r.body.data());
  const size_t size = file->body.size();
  pipeline::DocumentOptions doc_options;
  doc_options.ocr = options;
  doc_options.force_ocr = force_ocr;
  doc_options.page_range = page_range;
  doc_options.max_image_pixels = config_.max_image_pixels;
  doc_options.max_pdf_pages = config_.max_pdf_pages;
  doc_options.pdf_dpi = config_.pdf_dpi;
  Work work = [this, body = std::move(r.body), offset, size, pipe = *pipe, doc_options, format,
               paginate, received = r.received,
               request_id = r.request_id](const WorkContext& context) {
    const std::string_view bytes = std::string_view(body).substr(offset, size);
    auto lease = ReserveMemory(Bytes(bytes), doc_options);
    if (!lease.ok())
      return FailureReply(lease.status(), request_id);
    auto doc = pipeline::ReadDocument(Bytes(bytes), *context.pipelines[pipe], doc_options,
                                      context.stop, context.runner);
    if (!doc.ok())
      return FailureReply(doc.status(), request_id);
    return DocumentReply(*doc, format, paginate, SecondsSince(received),
                         doc_options.ocr.word_boxes);
  };
  return {route, std::nullopt, std::move(work)};
}

}  // namespace ocr::http
