// JobStore: the documents in progress and the finished jobs' results of one server, in memory.
// Ids are 128 random bits (there is no authentication: an id is the only key to a result, and no
// route lists them). Unfinished jobs are bounded by max_jobs; finished ones are kept `ttl`, then
// freed by Sweep(), which also stops jobs past their --job-timeout. Streams (POST /ocr with
// stream=true) are jobs too, unlisted: they count against max_jobs and obey the same timeout, but
// Find() does not see them and they are forgotten as soon as they end.
// Jobs live in this process only and are lost when it stops (README, "Long documents").
// Thread-safety: every member is safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/status.h"
#include "jobs/document_job.h"

namespace ocr::jobs {

struct JobLimits {
  std::size_t max_jobs = 64;           // unfinished jobs and streams; beyond it 503
  std::chrono::seconds ttl{3600};      // how long a finished job's result is kept
  std::chrono::seconds timeout{3600};  // from admission to the end of a job or stream
};

class JobStore {
 public:
  JobStore(JobLimits limits, PageWorkers workers, int window);
  ~JobStore();  // cancels what still runs
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Admits and starts a job. Errors: kResourceExhausted when max_jobs are unfinished (503, retry);
  // kUnavailable while shutting down.
  Result<std::shared_ptr<DocumentJob>> Start(JobSpec spec, bool listed) EXCLUDES(mu_);

  // Whether a job could be admitted now (a cheap early answer before reading the upload).
  Status CanAdmit() const EXCLUDES(mu_);

  // The listed job `id`; nullptr when unknown, expired or forgotten.
  std::shared_ptr<DocumentJob> Find(std::string_view id) const EXCLUDES(mu_);

  // Removes a job from the store (its watchers keep their reference until they end).
  void Forget(std::string_view id) EXCLUDES(mu_);

  // Frees finished jobs older than the ttl, drops ended streams, stops jobs past their timeout.
  void Sweep() EXCLUDES(mu_);

  // Refuses new jobs from now on (SIGTERM); those running go on until CancelAll().
  void StopAdmitting() EXCLUDES(mu_);
  // Cancels every unfinished job and stream with `why` (kUnavailable at shutdown).
  void CancelAll(const Status& why) EXCLUDES(mu_);

  std::size_t unfinished() const EXCLUDES(mu_);

  const JobLimits& limits() const { return limits_; }

 private:
  struct Entry {
    std::shared_ptr<DocumentJob> job;
    bool listed = true;
  };

  std::size_t UnfinishedLocked() const REQUIRES(mu_);
  Status AdmitLocked() const REQUIRES(mu_);

  const JobLimits limits_;
  const PageWorkers workers_;
  const int window_;
  mutable Mutex mu_;
  std::map<std::string, Entry, std::less<>> jobs_ GUARDED_BY(mu_);
  bool admitting_ GUARDED_BY(mu_) = true;
};

// 32 lower-case hex digits from the kernel's random source (getrandom).
std::string NewJobId();

// Whether `id` has NewJobId's shape (a route answers 404 for anything else without a lookup).
bool IsJobId(std::string_view id);

}  // namespace ocr::jobs
