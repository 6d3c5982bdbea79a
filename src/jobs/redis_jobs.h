// RedisJobs: the jobs of every replica in one Redis (--redis), so that any replica answers any
// job's routes and every replica works on every job: the JobBackend with --redis. Without it,
// jobs stay in one process (jobs/local_jobs.h).
//
// What lives in Redis, under "onnxocr:" (a single Redis, not a Cluster: scripts touch the keys of
// the jobs they find in the queue):
//   job:{id}          hash: state, times (Redis's clock, ms), page counts, the spec, the error
//   job:{id}:upload   the document's bytes, as sent (deleted when the job ends)
//   job:{id}:pages    hash: page index -> the page read (jobs/page_codec.h)
//   job:{id}:events   list: "p<done>" progress, "g<index>" page, "e" end: the ordered log
//   queue             list of "<id>:<index>": pages waiting for a replica
//   leases            sorted set of "<id>:<index>:<claim>" by lease expiry (ms)
//   unfinished        set of the ids of jobs not ended (--max-jobs counts it)
// Every job key expires: --job-timeout + --job-ttl after admission, --job-ttl after the end.
// Each change is one Lua script (jobs/internal/redis_scripts.h), so the log, the counters and the
// queue never disagree; the spec is jobs/job_spec_codec.h's, the pages jobs/page_codec.h's.
//
// Pages are the unit of work (a reliable queue with leases): a replica with fewer pages in
// flight than workers claims the next page of any job (LPOP + a lease, atomically), reads it at
// background priority on its scheduler (interactive requests stay local and go first) once its
// memory is reserved in the workers' budget (else the page goes back to the queue's head and
// the replica claims again when a page of its own is done), renews
// the lease while the page runs and stores the page with HSETNX, so a page read twice (a lease
// that expired under a slow replica) counts once. An expired lease puts the page back at the
// queue's head, so a replica killed mid-page loses nothing but the page's time.
// Cancellation: a replica polls the state of the jobs it works on every kCancelPoll (200 ms);
// pages in flight stop at their next check (between recognition batches).
// One thread per replica does all of this (the claim loop, redis_claims.cpp); routes call Redis
// from the worker that runs them, never from an I/O thread (blocking() is true).
// Thread-safety: every public member is safe from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "document/document.h"
#include "document/render.h"
#include "jobs/document_job.h"
#include "jobs/job_backend.h"
#include "jobs/job_spec_codec.h"
#include "jobs/job_view.h"
#include "jobs/local_jobs.h"
#include "jobs/redis_client.h"

namespace ocr::jobs {

struct RedisJobsConfig {
  RedisEndpoint endpoint;
  // How long a claimed page stays a replica's without a renewal (--job-lease); renewed every
  // quarter of it. A killed replica's pages run elsewhere this long after it died.
  std::chrono::milliseconds lease{10'000};
  // Most bytes of stored results per job (--max-job-result-mb); past it the job fails (503).
  std::int64_t max_result_bytes = std::int64_t{64} << 20;
};

class RedisJobs final : public JobBackend {
 public:
  // `model_names`: the model sets of group_pipelines' lists, in their order. Pages read with
  // the replica's own input limits `limits`, at most `window` at once.
  RedisJobs(RedisJobsConfig config, JobLimits limits, PageWorkers workers, int window,
            std::vector<std::string> model_names, document::InputLimits input_limits);
  ~RedisJobs() override;  // Stop()
  RedisJobs(const RedisJobs&) = delete;
  RedisJobs& operator=(const RedisJobs&) = delete;

  // Starts the claim loop. Redis need not be up: the loop reconnects by itself.
  void Start();
  // Stops the loop: pages still in flight are stopped and handed back to the queue at once, so
  // another replica reads them without waiting for their leases.
  void Stop();

  // Pages this replica has claimed and not finished.
  int in_flight() const;

  const RedisJobsConfig& config() const { return config_; }

  const JobLimits& limits() const { return limits_; }

  // Stores a job over `upload` (the document's bytes), `pages_total` pages of `page_count`: what
  // Create stores for an opened document. Errors: kResourceExhausted when --max-jobs jobs are
  // unfinished across all replicas; kUnavailable.
  Result<std::string> Submit(std::string_view upload, const SharedJobSpec& spec, int page_count,
                             int pages_total);

  // JobBackend. The calls block on Redis (bounded by its timeouts); kUnavailable, with the
  // reason, while it is unreachable. StopAdmitting claims no more pages (those in flight finish:
  // Idle() then); Abandon is Stop().
  JobStoreFacts Facts() const override;
  Status Health() const override;

  bool blocking() const override { return true; }

  Status CanAdmit() const override { return Health(); }

  Result<std::string> Create(JobInput input) override;
  Result<JobInfo> Find(std::string_view id) override;
  Result<JobInfo> Delete(std::string_view id) override;
  Result<JobOutcome> Outcome(std::string_view id) override;
  Result<JobSource> Source(std::string_view id) override;
  // Kept up to date by this replica's claim loop (every kFollowPoll) while someone holds it.
  Result<std::shared_ptr<JobView>> Follow(std::string_view id, std::size_t cursor) override;
  void StopAdmitting() override;

  bool Idle() const override { return in_flight() == 0; }

  void Abandon(const Status& why) override;

 private:
  class FollowedJob;
  struct OpenDocument;
  struct Claim;
  struct Completion;
  struct Inbox;

  // A job as Redis holds it now.
  struct StoredJob {
    JobInfo info;
    SharedJobSpec spec;
  };

  Result<StoredJob> Lookup(std::string_view id);
  // kUnavailable's message says what to do meanwhile; other statuses pass.
  Status Explained(const Status& status) const;

  // The claim loop (redis_claims.cpp); every member below it runs on the loop's thread only.
  void Loop(const std::stop_token& stop);
  // Claims pages while fewer than the window are in flight here and the budget holds them.
  void ClaimPages();
  // Reserves a claimed page's memory and hands it to the scheduler at background priority;
  // false when the budget cannot hold it now (the page went back to the queue).
  bool StartPage(Claim claim, std::chrono::steady_clock::time_point deadline);
  // Stores the pages read (or the failures) that workers left in the inbox.
  void FinishPages();
  void RenewLeases();
  // Stops the pages of jobs that ended elsewhere (DELETE on another replica, a failed page).
  void PollCancellations();
  void Reap();
  void UpdateFollowed() EXCLUDES(followed_mu_);
  // Reads a followed job's new events and pages (also from Follow(), on a route's worker).
  void UpdateOne(FollowedJob& job);
  // Releases the claims still held (shutdown): their pages go back to the queue's head.
  void HandBack();
  // The job's document, opened here once for all the pages this replica reads of it.
  Result<std::shared_ptr<OpenDocument>> OpenJob(const std::string& id,
                                                const std::string& spec_json);

  // EVAL of one of the scripts with its arguments.
  Result<RedisReply> Eval(std::string_view script, const std::vector<std::string_view>& args);

  const RedisJobsConfig config_;
  const JobLimits limits_;
  const PageWorkers workers_;
  const int window_;
  const std::vector<std::string> model_names_;
  const document::InputLimits input_limits_;
  const std::string replica_;  // random, names this replica's claims
  RedisPool pool_;             // thread-safe
  std::atomic<bool> claiming_{true};
  std::atomic<int> in_flight_{0};  // claims held: pages reading, or read and not yet stored
  const std::shared_ptr<Inbox> inbox_;

  // The claim loop's own: touched by its thread only (and by Stop() after joining it).
  std::map<std::string, Claim> claims_;                             // by lease member
  std::map<std::string, std::shared_ptr<OpenDocument>> documents_;  // by job id
  std::uint64_t claim_counter_ = 0;

  Mutex followed_mu_;  // guards followed_
  std::vector<std::weak_ptr<FollowedJob>> followed_ GUARDED_BY(followed_mu_);

  std::jthread loop_;  // last: joined before the members it uses go
};

}  // namespace ocr::jobs
