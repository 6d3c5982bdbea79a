// RedisJobs: the jobs of every replica in one Redis (--redis), so that any replica answers any
// job's routes and every replica works on every job. Without --redis, jobs stay in one process
// (jobs/job_store.h).
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
// Each change is one Lua script, so the log, the counters and the queue never disagree.
//
// Pages are the unit of work (a reliable queue with leases): a replica with fewer pages in
// flight than workers claims the next page of any job (LPOP + a lease, atomically), reads it at
// background priority on its scheduler (interactive requests stay local and go first), renews
// the lease while the page runs and stores the page with HSETNX, so a page read twice (a lease
// that expired under a slow replica) counts once. An expired lease puts the page back at the
// queue's head, so a replica killed mid-page loses nothing but the page's time.
// Cancellation: a replica polls the state of the jobs it works on every kCancelPoll (200 ms);
// pages in flight stop at their next check (between recognition batches).
// One thread per replica does all of this (the claim loop); routes call Redis from the worker
// that runs them, never from an I/O thread.
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
#include "jobs/job_store.h"
#include "jobs/job_view.h"
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

// How a job reads its pages and shapes its answer, stored with it for any replica.
struct SharedJobSpec {
  std::string model;  // the model set's name; every replica must load the same sets
  document::OutputFormat format = document::OutputFormat::kJson;
  bool paginate = false;
  document::DocumentOptions options;  // the client's options (limits are each replica's own)
};

// A job as Redis holds it now.
struct SharedJob {
  std::string id;
  JobSnapshot snapshot;
  SharedJobSpec spec;
  double seconds = 0;  // from admission to the end (or now)
};

class RedisJobs {
 public:
  // `model_names`: the model sets of group_pipelines' lists, in their order. Pages read with
  // the replica's own input limits `limits`.
  RedisJobs(RedisJobsConfig config, JobLimits limits, PageWorkers workers, int window,
            std::vector<std::string> model_names, document::InputLimits input_limits);
  ~RedisJobs();  // Stop()
  RedisJobs(const RedisJobs&) = delete;
  RedisJobs& operator=(const RedisJobs&) = delete;

  // Starts the claim loop. Redis need not be up: the loop reconnects by itself.
  void Start();
  // Claims no more pages (SIGTERM); those in flight finish (in_flight() reaches 0).
  void StopClaiming();
  // Stops the loop: pages still in flight are stopped and handed back to the queue at once, so
  // another replica reads them without waiting for their leases.
  void Stop();

  // Whether Redis answered the last call; else why not ("Redis at redis://... is unreachable").
  bool available() const;
  std::string unavailable_reason() const;
  // Pages this replica has claimed and not finished.
  int in_flight() const;

  const RedisJobsConfig& config() const { return config_; }

  const JobLimits& limits() const { return limits_; }

  // The routes' calls. They block on Redis (bounded by its timeouts): call them from a worker,
  // never from an I/O thread. Errors: kUnavailable when Redis is unreachable (503 not_ready).

  // Admits a job over `upload` (the document's bytes), `pages_total` pages of `page_count`.
  // Errors: kResourceExhausted when --max-jobs jobs are unfinished across all replicas.
  Result<std::string> Submit(std::string_view upload, const SharedJobSpec& spec, int page_count,
                             int pages_total);
  // kNotFound when there is no job `id` (never was, expired, forgotten, or lost with Redis's data).
  Result<SharedJob> Find(std::string_view id);
  // Cancels an unfinished job (every replica stops its pages) or forgets a finished one; the job
  // as it was left.
  Result<SharedJob> Delete(std::string_view id);
  // The pages of a succeeded job, in order.
  Result<document::DocumentResult> ReadResult(const SharedJob& job);
  // A view of job `id` from event `cursor` on, kept up to date by this replica's claim loop (every
  // kFollowPoll) while someone holds it: what GET /jobs/{id}/events streams.
  Result<std::shared_ptr<JobView>> Follow(std::string_view id, std::size_t cursor);

 private:
  class FollowedJob;
  struct OpenDocument;
  struct Claim;
  struct Completion;
  struct Inbox;

  // The claim loop; every member below it runs on the loop's thread only.
  void Loop(const std::stop_token& stop);
  // Claims pages while fewer than the window are in flight here.
  void ClaimPages();
  // Hands a claimed page to the scheduler at background priority.
  void StartPage(Claim claim, std::chrono::steady_clock::time_point deadline);
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
  RedisPool pool_;
  std::atomic<bool> claiming_{true};
  std::atomic<int> in_flight_{0};  // claims held: pages reading, or read and not yet stored
  const std::shared_ptr<Inbox> inbox_;

  std::map<std::string, Claim> claims_;                             // by lease member
  std::map<std::string, std::shared_ptr<OpenDocument>> documents_;  // by job id
  std::uint64_t claim_counter_ = 0;

  Mutex followed_mu_;
  std::vector<std::weak_ptr<FollowedJob>> followed_ GUARDED_BY(followed_mu_);

  std::jthread loop_;  // last: joined before the members it uses go
};

}  // namespace ocr::jobs
