// JobBackend: where POST /jobs puts a long document and where the job routes find it again:
// admission, status, result, events, cancellation and the part of the shutdown drain that is
// the store's. Implemented by SqliteJobs (the default: jobs of this process kept on disk, so
// they survive a restart, jobs/sqlite_jobs.h), LocalJobs (--jobs memory: in this process's memory,
// jobs/local_jobs.h) and RedisJobs (--redis: jobs shared by every replica, jobs/redis_jobs.h); the
// service chooses one where it is assembled (http/service.h) and the job routes see only this.
// Thread-safety: implementations are safe from any thread. The calls of a blocking() backend
// wait on the network (bounded by its timeouts): make them from a worker, never an I/O thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "document/answer.h"
#include "document/document.h"
#include "jobs/job_view.h"

namespace ocr::jobs {

// A document to admit as a job, opened once by the route's work.
struct JobInput {
  std::unique_ptr<const std::string> upload;     // owns the bytes (the request body)
  std::string_view file;                         // the document inside *upload
  std::unique_ptr<document::PageReader> reader;  // opened over `file` with `options`
  std::size_t pipeline = 0;                      // index of the model set in each group's list
  std::string model;  // that set's name, for replicas that list their sets differently
  // How the answer is shaped (GET /jobs/{id}/result, a stream's last line).
  document::AnswerShape answer;
  document::DocumentOptions options;  // the request's; limits are the server's
};

// A job as its store reports it.
struct JobInfo {
  std::string id;
  JobSnapshot snapshot;
  document::AnswerShape answer;
  double seconds = 0;  // from admission to the end (or to now while unfinished)
};

// A job and, once it succeeded, its pages.
struct JobOutcome {
  JobInfo info;
  std::shared_ptr<const document::DocumentResult> document;  // null unless it succeeded
};

// A job and the document it reads, kept until the job expires: what its searchable PDF is made
// from and its page images are drawn from (GET /jobs/{id}/pages/{n}/image).
struct JobSource {
  JobInfo info;
  std::shared_ptr<const void> upload;  // owns the bytes (in memory, or a mapped spool file)
  std::string_view file;               // the document
};

// What /info and /readyz tell of the store.
struct JobStoreFacts {
  bool shared = false;                // in Redis, for every replica (else in this process)
  std::string endpoint;               // shared: the Redis URL without its password
  double lease_s = 0;                 // shared: --job-lease
  std::int64_t max_result_bytes = 0;  // shared: --max-job-result-mb
  std::string data_dir;               // on this server's disk: --data-dir (empty: in memory)
};

class JobBackend {
 public:
  virtual ~JobBackend() = default;

  virtual JobStoreFacts Facts() const = 0;
  // Ok, or kUnavailable with the reason while the store cannot be reached (job routes answer
  // 503 not_ready; the rest of the server stays ready). Cheap: no network call.
  virtual Status Health() const = 0;
  // Whether the calls below wait on the network.
  virtual bool blocking() const = 0;

  // Whether a job could be admitted now, a cheap early answer before the upload is read.
  // Errors: kResourceExhausted (--max-jobs), kUnavailable (draining, store unreachable).
  virtual Status CanAdmit() const = 0;
  // Admits and starts a job; its id. Errors: those of CanAdmit, and kResourceExhausted or
  // kImageTooLarge when the memory budget cannot hold it.
  virtual Result<std::string> Create(JobInput input) = 0;

  // The job `id` now. Errors: kNotFound (never was, expired, forgotten), kUnavailable.
  virtual Result<JobInfo> Find(std::string_view id) = 0;
  // Cancels an unfinished job (its pages stop at their next check) or forgets a finished one;
  // the job as it was left. Errors: as Find's.
  virtual Result<JobInfo> Delete(std::string_view id) = 0;
  // The job and, when it succeeded, its document. Errors: as Find's.
  virtual Result<JobOutcome> Outcome(std::string_view id) = 0;
  // The job and its document, in any state. Errors: as Find's.
  virtual Result<JobSource> Source(std::string_view id) = 0;
  // A view of the job's event log from `cursor` on (at least), kept current while held: what
  // GET /jobs/{id}/events streams. Errors: as Find's.
  virtual Result<std::shared_ptr<JobView>> Follow(std::string_view id, std::size_t cursor) = 0;

  // Shutdown, in this order. Takes no new work (SIGTERM); what runs goes on.
  virtual void StopAdmitting() = 0;
  // Whether no page of this store's jobs runs in this process.
  virtual bool Idle() const = 0;
  // Stops what still runs here (the drain's time is up): jobs in this process end with `why`;
  // shared pages go back to the queue for other replicas.
  virtual void Abandon(const Status& why) = 0;
};

}  // namespace ocr::jobs
