// The OCR routes: POST /ocr in both forms, /ocr_api, marker's /marker/upload, and the admission
// of long documents (POST /jobs, stream=true) that share their parsing.
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "document/document.h"
#include "http/answer.h"
#include "http/api.h"
#include "http/base64.h"
#include "http/internal/route_replies.h"
#include "http/job_streams.h"
#include "http/marker_api.h"
#include "http/response_json.h"
#include "image/decode.h"
#include "jobs/document_memory.h"

namespace ocr::http {
namespace {

using internal::Answer;
using internal::FailureReply;
using internal::Later;
using internal::MediaType;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The JSON form takes images only; PDFs go through the multipart form, which returns pages.
Status RejectPdf(std::span<const std::uint8_t> bytes) {
  if (image::SniffFormat(bytes) != image::Format::kPdf)
    return Status::Ok();
  return {StatusCode::kUnsupportedMediaType,
          "the JSON form takes images; send PDFs as multipart/form-data to POST /ocr "
          "(field \"file\")"};
}

}  // namespace

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
  ParsedCall parsed = ParseMultipartForm(std::move(r.body), r.content_type, config_.options,
                                         FormDialect::kMarker, config_.answer);
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
    parsed = ParseJsonForm(std::move(r.body), config_.options);
  } else if (media == "multipart/form-data" && !json_only) {
    parsed = ParseMultipartForm(std::move(r.body), r.content_type, config_.options,
                                FormDialect::kOcr, config_.answer);
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
  return Later(r.path, [this, call = std::move(call), pipe, received = r.received,
                        request_id = r.request_id](const WorkContext& context) {
    return RunOcr(call, pipe, context, received, request_id);
  });
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
  const jobs::JobBackend& store = as_job ? jobs_ : streams_;
  if (Status admit = store.CanAdmit(); !admit.ok())
    return Answer(r.path, StatusReply(admit));
  // Opening the document (a PDF's structure) runs on a worker, like any work on client bytes.
  return Later(r.path, [this, call = std::move(call), pipe = *pipe, as_job,
                        request_id = r.request_id](const WorkContext& /*context*/) mutable {
    return StartJob(call, pipe, as_job, request_id);
  });
}

Reply Api::StartJob(OcrCall& call, std::size_t pipe, bool as_job,
                    const std::string& request_id) const {
  jobs::JobInput input;
  input.upload = std::make_unique<const std::string>(std::move(call.body));
  input.file = std::string_view(*input.upload).substr(call.offset, call.size);
  // A job's result can be rendered again in any format (GET /jobs/{id}/result?output_format=),
  // and hOCR, ALTO and the PDF place each word: its pages are read with their words.
  if (as_job)
    call.options.ocr.read_words = true;
  auto reader = document::PageReader::Open(AsBytes(input.file), call.options);
  if (!reader.ok())
    return FailureReply(reader.status(), request_id);
  input.reader = std::move(reader).value();
  input.pipeline = pipe;
  input.model = pipelines_.at(pipe)->models().name;
  input.answer = call.answer;
  input.options = call.options;
  if (as_job) {
    Result<std::string> id = jobs_.Create(std::move(input));
    if (!id.ok())
      return FailureReply(id.status(), request_id);
    return JobCreated(*id);
  }
  auto job = streams_.Start(std::move(input), /*listed=*/false);
  if (!job.ok())
    return FailureReply(job.status(), request_id);
  Reply reply(200, "", "application/x-ndjson");
  reply.stream = MakeNdjsonStream(*job);
  reply.headers.emplace_back("Cache-Control", "no-store");
  reply.headers.emplace_back("X-Accel-Buffering", "no");  // nginx: pass each line on at once
  return reply;
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
  // Opened once: its headers and page sizes give the memory estimate, then its pages are read.
  auto reader = document::PageReader::Open(AsBytes(bytes), call.options);
  if (!reader.ok())
    return failed(reader.status());
  auto lease = jobs::ReserveDocumentMemory(memory_budget_, **reader, facts_.parallel_pages);
  if (!lease.ok())
    return failed(lease.status());
  auto doc =
      document::ReadDocument(**reader, *context.pipelines[pipe], context.stop, context.runner);
  if (!doc.ok())
    return failed(doc.status());
  if (call.marker_format) {
    Reply reply(200, MarkerResponseJson(*doc, *call.marker_format, call.answer.paginate)
                         .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    reply.lines = RecordDocument(*doc);
    return reply;
  }
  Result<Reply> reply = AnswerReply(*doc, call.answer, SecondsSince(received), call.json_form,
                                    {AsBytes(bytes), &call.options, call.file_name});
  if (!reply.ok())
    return failed(reply.status());
  if (call.json_form) {
    const document::DocumentPage& page = doc->pages.front();
    metrics_.RecordPipeline(page.times, page.lines.size());
  } else {
    RecordDocument(*doc);
  }
  return std::move(reply).value();
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

}  // namespace ocr::http
