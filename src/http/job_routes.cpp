// The job routes (spec/API.md, "Long documents"): POST /jobs, GET and DELETE /jobs/{id},
// /jobs/{id}/result, /jobs/{id}/events and /jobs/{id}/pages/{n}/image, over the one JobBackend
// the service chose.
#include <algorithm>
#include <charconv>
#include <optional>

#include <nlohmann/json.hpp>

#include "document/document.h"
#include "http/answer.h"
#include "http/api.h"
#include "http/internal/route_replies.h"
#include "http/job_streams.h"
#include "http/request_path.h"
#include "http/response_json.h"
#include "image/encode.h"
#include "jobs/document_memory.h"

namespace ocr::http {

using internal::Answer;
using internal::FailureReply;
using internal::Later;
using internal::MediaType;

namespace {

// GET /jobs/{id}/pages/{n}/image: the longer side's default and bounds, and the JPEG quality (85
// keeps print sharp at a third of the size of 95).
constexpr int kDefaultPageImageSide = 1600;
constexpr int kMinPageImageSide = 16;
constexpr int kMaxPageImageSide = 4096;
constexpr int kPageImageQuality = 85;

}  // namespace

Routed Api::JobCreate(ApiRequest& r) const {
  if (MediaType(r.content_type) != "multipart/form-data") {
    return Answer(r.path, ErrorReply(415, "unsupported_media_type",
                                     "POST /jobs takes multipart/form-data (field \"file\"), as "
                                     "POST /ocr does"));
  }
  return OcrRoute(r, /*json_only=*/false, /*as_job=*/true);
}

Reply Api::JobCreated(const std::string& id) {
  const std::string path = "/jobs/" + id;
  const nlohmann::json body = {{"id", id},
                               {"status", "queued"},
                               {"status_url", path},
                               {"result_url", path + "/result"},
                               {"events_url", path + "/events"}};
  Reply reply(202, DumpJson(body));
  reply.headers.emplace_back("Location", path);
  return reply;
}

Reply Api::JobNotFound(std::string_view id) {
  return ErrorReply(404, "not_found",
                    "no job " + PrintableEcho(id) +
                        ": ids are 32 hex digits, and a job is kept --job-ttl after it ends");
}

Reply Api::JobFailure(const Status& status, const ApiRequest& r) {
  if (status.code() == StatusCode::kNotFound)
    return JobNotFound(r.path_id);
  return FailureReply(status, r.request_id);
}

Routed Api::JobRoute(ApiRequest& r, Reply (Api::*answer)(const ApiRequest& request) const,
                     bool heavy) const {
  if (!jobs::IsJobId(r.path_id))
    return Answer(r.path, JobNotFound(r.path_id));
  if (Status health = jobs_.Health(); !health.ok())
    return Answer(r.path, StatusReply(health));
  if (!jobs_.blocking() && !heavy)
    return Answer(r.path, (this->*answer)(r));
  // A store on the network is called from the worker that runs this, never from an I/O thread.
  return Later(r.path, [this, answer, request = r](const WorkContext& /*context*/) {
    return (this->*answer)(request);
  });
}

Routed Api::JobStatus(ApiRequest& r) const {
  return JobRoute(r, &Api::AnswerStatus);
}

Routed Api::JobDelete(ApiRequest& r) const {
  return JobRoute(r, &Api::AnswerDelete);
}

Routed Api::JobResult(ApiRequest& r) const {
  return JobRoute(r, &Api::AnswerResult, /*heavy=*/true);
}

Routed Api::JobEvents(ApiRequest& r) const {
  return JobRoute(r, &Api::AnswerEvents);
}

Routed Api::JobPageImage(ApiRequest& r) const {
  return JobRoute(r, &Api::AnswerPageImage, /*heavy=*/true);
}

Reply Api::AnswerStatus(const ApiRequest& r) const {
  const Result<jobs::JobInfo> job = jobs_.Find(r.path_id);
  if (!job.ok())
    return JobFailure(job.status(), r);
  return Reply(200, DumpJson(JobStatusJson(job->id, job->snapshot)));
}

Reply Api::AnswerDelete(const ApiRequest& r) const {
  const Result<jobs::JobInfo> job = jobs_.Delete(r.path_id);
  if (!job.ok())
    return JobFailure(job.status(), r);
  return Reply(200, DumpJson(JobStatusJson(job->id, job->snapshot)));
}

Reply Api::NotFinished(const jobs::JobSnapshot& snap) {
  return ErrorReply(409, "job_not_finished",
                    "the job is " + std::string(jobs::StateName(snap.state)) + " (" +
                        std::to_string(snap.pages_done) + " of " +
                        std::to_string(snap.pages_total) +
                        " pages done); follow its events_url or poll its status_url");
}

Reply Api::AnswerResult(const ApiRequest& r) const {
  // ?output_format= renders the pages read in another format without reading them again.
  const Result<std::optional<std::string>> asked = QueryValue(r.query, "output_format");
  if (!asked.ok())
    return ErrorReply(400, "invalid_option", asked.status().message());
  std::optional<document::OutputFormat> rerender;
  if (asked->has_value()) {
    const Result<document::OutputFormat> format = document::ParseOutputFormat(**asked);
    if (!format.ok())
      return ErrorReply(400, "invalid_option", format.status().message());
    rerender = *format;
  }
  const Result<jobs::JobOutcome> outcome = jobs_.Outcome(r.path_id);
  if (!outcome.ok())
    return JobFailure(outcome.status(), r);
  const jobs::JobInfo& job = outcome->info;
  if (!jobs::IsFinished(job.snapshot.state))
    return NotFinished(job.snapshot);
  if (job.snapshot.state != jobs::JobState::kSucceeded || outcome->document == nullptr)
    return JobErrorReply(job.snapshot.error);
  document::AnswerShape shape = job.answer;
  shape.format = rerender.value_or(job.answer.format);
  // The PDF is made from the upload, which the job keeps until it expires.
  document::DocumentOptions options;
  options.limits = config_.limits;
  std::optional<jobs::JobSource> source;  // owns the upload while the PDF is made
  PdfSource pdf{{}, &options, ""};
  if (shape.format == document::OutputFormat::kPdf) {
    Result<jobs::JobSource> found = jobs_.Source(r.path_id);
    if (!found.ok())
      return JobFailure(found.status(), r);
    source = std::move(found).value();
    pdf.bytes = AsBytes(source->file);
  }
  // Its pages were counted in the metrics when they were read, not again for each reading.
  Result<Reply> reply = AnswerReply(*outcome->document, shape, job.seconds, false, pdf);
  return reply.ok() ? std::move(reply).value() : FailureReply(reply.status(), r.request_id);
}

Reply Api::AnswerPageImage(const ApiRequest& r) const {
  int page = -1;
  const std::string& n = r.path_page;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), page);
  if (ec != std::errc() || end != n.data() + n.size() || page < 0) {
    return ErrorReply(404, "not_found",
                      "no page " + PrintableEcho(n) +
                          ": pages are numbered from 0, as in a "
                          "result's \"page\"");
  }
  const Result<std::optional<std::string>> asked = QueryValue(r.query, "max_side");
  if (!asked.ok())
    return ErrorReply(400, "invalid_option", asked.status().message());
  int max_side = kDefaultPageImageSide;
  if (asked->has_value()) {
    const std::string& text = **asked;
    const auto [at, error] = std::from_chars(text.data(), text.data() + text.size(), max_side);
    if (error != std::errc() || at != text.data() + text.size() || max_side < kMinPageImageSide ||
        max_side > kMaxPageImageSide) {
      return ErrorReply(400, "invalid_option",
                        "max_side must be a whole number of pixels from " +
                            std::to_string(kMinPageImageSide) + " to " +
                            std::to_string(kMaxPageImageSide) + ", not " + PrintableEcho(text));
    }
  }
  const Result<jobs::JobSource> source = jobs_.Source(r.path_id);
  if (!source.ok())
    return JobFailure(source.status(), r);
  // The page (and poppler's copy of it) is held while it is drawn and encoded.
  const auto side = static_cast<std::int64_t>(max_side);
  auto lease = jobs::ReserveBytes(memory_budget_, side * side * 6);
  if (!lease.ok())
    return FailureReply(lease.status(), r.request_id);
  document::DocumentOptions options;
  options.limits = config_.limits;
  const Result<cv::Mat> image = document::DrawPage(AsBytes(source->file), page, max_side, options);
  if (!image.ok()) {
    if (image.status().code() == StatusCode::kNotFound)
      return ErrorReply(404, "not_found", "job " + r.path_id + ": " + image.status().message());
    return FailureReply(image.status(), r.request_id);
  }
  Result<std::string> jpeg = image::EncodeJpeg(*image, kPageImageQuality);
  if (!jpeg.ok())
    return FailureReply(jpeg.status(), r.request_id);
  Reply reply(200, std::move(jpeg).value(), "image/jpeg");
  // A job's page never changes; the browser may keep it while the job lives.
  reply.headers.emplace_back("Cache-Control", "private, max-age=600");
  return reply;
}

std::size_t Api::LastEventId(const ApiRequest& r) {
  std::size_t last = 0;
  const std::string& text = r.last_event_id;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), last);
  if (ec != std::errc() || end != text.data() + text.size())
    return 0;
  return last;
}

Reply Api::AnswerEvents(const ApiRequest& r) const {
  Result<std::shared_ptr<jobs::JobView>> view = jobs_.Follow(r.path_id, LastEventId(r));
  if (!view.ok())
    return JobFailure(view.status(), r);
  return EventsReply(std::move(view).value(), LastEventId(r));
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

}  // namespace ocr::http
