// LocalJobs: the documents in progress and the finished jobs' results of one server, in memory:
// the JobBackend without --redis, and the streams' runner always.
// Ids are 128 random bits (there is no authentication: an id is the only key to a result, and no
// route lists them). Unfinished jobs are bounded by max_jobs; finished ones are kept `ttl`, then
// freed by Sweep(), which also stops jobs past their --job-timeout. Streams (POST /ocr with
// stream=true) are jobs too, unlisted: they count against max_jobs and obey the same timeout, but
// Find() does not see them and they are forgotten as soon as they end. A job reserves its memory
// in the workers' budget when admitted: its pages in flight until it ends, its upload and results
// until it is freed.
// Jobs live in this process only and are lost when it stops (README, "Long documents").
// Thread-safety: every member is safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/status.h"
#include "jobs/document_job.h"
#include "jobs/job_backend.h"

namespace ocr::jobs {

struct JobLimits {
  std::size_t max_jobs = 64;           // unfinished jobs and streams; beyond it 503
  std::chrono::seconds ttl{3600};      // how long a finished job's result is kept
  std::chrono::seconds timeout{3600};  // from admission to the end of a job or stream
};

class LocalJobs final : public JobBackend {
 public:
  // At most `window` pages of a job run at once, on `workers`. `others` (may be empty) counts the
  // documents in progress in another store of this server, which max_jobs bounds together with
  // this one's.
  LocalJobs(JobLimits limits, PageWorkers workers, int window,
            std::function<std::size_t()> others = {});
  ~LocalJobs() override;  // cancels what still runs
  LocalJobs(const LocalJobs&) = delete;
  LocalJobs& operator=(const LocalJobs&) = delete;

  // Admits and starts a job, listed (a job: Find() sees it) or not (a stream). Errors:
  // kResourceExhausted when max_jobs are unfinished or the memory budget is held (503, retry);
  // kImageTooLarge when the document needs more than the whole budget; kUnavailable while
  // shutting down; those of PageReader::EstimateBytes.
  Result<std::shared_ptr<DocumentJob>> Start(JobInput input, bool listed) EXCLUDES(mu_);

  // Frees finished jobs older than the ttl, drops ended streams, stops jobs past their timeout.
  void Sweep() EXCLUDES(mu_);

  std::size_t unfinished() const EXCLUDES(mu_);

  const JobLimits& limits() const { return limits_; }

  // JobBackend. Abandon cancels every unfinished job and stream.
  JobStoreFacts Facts() const override { return {}; }

  Status Health() const override { return Status::Ok(); }

  bool blocking() const override { return false; }

  Status CanAdmit() const override EXCLUDES(mu_);
  Result<std::string> Create(JobInput input) override EXCLUDES(mu_);
  Result<JobInfo> Find(std::string_view id) override EXCLUDES(mu_);
  Result<JobInfo> Delete(std::string_view id) override EXCLUDES(mu_);
  Result<JobOutcome> Outcome(std::string_view id) override EXCLUDES(mu_);
  Result<JobSource> Source(std::string_view id) override EXCLUDES(mu_);
  Result<std::shared_ptr<JobView>> Follow(std::string_view id, std::size_t cursor) override
      EXCLUDES(mu_);
  void StopAdmitting() override EXCLUDES(mu_);

  bool Idle() const override EXCLUDES(mu_) { return unfinished() == 0; }

  void Abandon(const Status& why) override EXCLUDES(mu_);

 private:
  struct Entry {
    std::shared_ptr<DocumentJob> job;
    bool listed = true;
  };

  // The listed job `id`, or kNotFound when unknown, expired or forgotten.
  Result<std::shared_ptr<DocumentJob>> Lookup(std::string_view id) const EXCLUDES(mu_);
  std::size_t UnfinishedLocked() const REQUIRES(mu_);
  // `others`: others_() read before the lock (it takes the other store's).
  Status AdmitLocked(std::size_t others) const REQUIRES(mu_);

  std::size_t Others() const { return others_ ? others_() : 0; }

  const JobLimits limits_;
  const PageWorkers workers_;
  const int window_;
  const std::function<std::size_t()> others_;

  mutable Mutex mu_;  // guards the members below
  std::map<std::string, Entry, std::less<>> jobs_ GUARDED_BY(mu_);
  bool admitting_ GUARDED_BY(mu_) = true;
};

// Whether a store of this process admits a document: kUnavailable while draining (not
// `admitting`), kResourceExhausted when `unfinished` documents (jobs and streams) are at
// `max_jobs` (--max-jobs).
Status Admission(bool admitting, std::size_t unfinished, std::size_t max_jobs);

// The job as the job routes report it.
JobInfo InfoOf(const DocumentJob& job);

// 32 lower-case hex digits from the kernel's random source (getrandom).
std::string NewJobId();

// Whether `id` has NewJobId's shape (a route answers 404 for anything else without a lookup).
bool IsJobId(std::string_view id);

}  // namespace ocr::jobs
