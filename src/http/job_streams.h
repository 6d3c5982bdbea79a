// The wire shapes of long documents (spec/API.md, "Long documents"): a job's status JSON, the
// NDJSON body of POST /ocr with stream=true, and the Server-Sent Events of GET /jobs/{id}/events.
// Both bodies are ReplyStreams over a job's event log (jobs/job_view.h: a DocumentJob of this
// process, or a job in Redis this replica follows), so a page is sent as soon as it and every
// page before it are read.
// Thread-safety: the streams follow ReplyStream's contract; JobStatusJson is a pure function.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "http/reply.h"
#include "jobs/document_job.h"
#include "jobs/job_view.h"

namespace ocr::http {

// {"id", "status", "page_count" (pages the job reads), "pages_done", "created_at", "started_at",
// "finished_at" (RFC 3339 UTC or null), "error" (message or null), "error_code" (or null)}.
nlohmann::json JobStatusJson(const std::string& id, const jobs::JobSnapshot& snapshot);

// What a job that did not succeed answers for its result: the reply its error maps to (internal
// details kept for the log), or 409 job_not_finished for a cancelled one.
Reply JobErrorReply(const Status& error);

// POST /ocr with stream=true: one line per page ({"page", "width", "height", "source",
// "results"}), then the document's fields ({"success": true, "format", "page_count", "output",
// "processing_time"}) or an error line ({"success": false, "error": ...}). A client that goes
// away cancels the job.
std::shared_ptr<ReplyStream> MakeNdjsonStream(std::shared_ptr<jobs::DocumentJob> job);

// GET /jobs/{id}/events: "progress" ({"pages_done", "page_count"}), "page" ({"index", "page",
// "width", "height", "source", "results"}), then "done" ({"id", "status", "result_url"}),
// "failed" (the error JSON) or "cancelled" ({"id", "status"}). Event ids are positions in the
// job's log from 1, so a reconnecting EventSource resumes after `last_event_id` (0: from the
// start). A client that goes away only stops watching.
std::shared_ptr<ReplyStream> MakeEventStream(std::shared_ptr<jobs::JobView> job,
                                             std::size_t last_event_id);

}  // namespace ocr::http
