// SqliteJobs: the jobs of one server kept on disk, so that a job answered 202 survives a restart
// or a crash: the JobBackend without --redis (--jobs memory keeps them in memory instead). Under
// --data-dir:
//   jobs.sqlite   the jobs, the pages read so far and the event logs (jobs/job_database.h)
//   spool/{id}    each job's upload, written before 202 (jobs/spool.h)
//   lock          held while a server uses the folder: a second server on it refuses to start
//
// A job is admitted while --max-jobs and the spool (--spool-max-gb) have room; it then waits its
// turn for memory (its pages in flight and its results, in the workers' budget) and runs as a
// DocumentJob (jobs/document_job.h) over its mapped upload, which journals each page read and
// each event as it happens. At start, jobs a previous process left unfinished resume from their
// first unread page with their event log as it was; a job whose page was being read when the
// server died twice fails instead of being read again. Finished jobs are served from the
// database until --job-ttl after their end, then removed with their upload (and by DELETE).
// SIGTERM's drain lets running jobs finish within --drain-timeout; what it stops then, and jobs
// that had not started, resume at the next start.
// Thread-safety: every public member is safe from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "document/document.h"
#include "jobs/document_job.h"
#include "jobs/job_backend.h"
#include "jobs/job_database.h"
#include "jobs/local_jobs.h"
#include "jobs/spool.h"

namespace ocr::jobs {

// The folder under --data-dir, opened and locked for one server: its database and spool.
class JobFolder {
 public:
  // Opens `path` (creating it), takes its lock and checks its database. Errors: kIoError with
  // what to do (another server holds the folder, the database is damaged, it cannot be written).
  static Result<std::shared_ptr<JobFolder>> Open(const std::filesystem::path& path);
  ~JobFolder();  // lets the lock go
  JobFolder(const JobFolder&) = delete;
  JobFolder& operator=(const JobFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

  const std::shared_ptr<JobDatabase>& database() const { return database_; }

  const Spool& spool() const { return spool_; }

 private:
  JobFolder(std::filesystem::path path, int lock_fd, std::shared_ptr<JobDatabase> database,
            Spool spool)
      : path_(std::move(path)),
        lock_fd_(lock_fd),
        database_(std::move(database)),
        spool_(std::move(spool)) {}

  const std::filesystem::path path_;
  const int lock_fd_;  // flock'ed while this server uses the folder
  const std::shared_ptr<JobDatabase> database_;
  const Spool spool_;
};

struct SqliteJobsConfig {
  std::shared_ptr<JobFolder> folder;                      // --data-dir, opened
  std::int64_t spool_max_bytes = std::int64_t{20} << 30;  // --spool-max-gb: uploads kept at once
};

class SqliteJobs final : public JobBackend {
 public:
  // Jobs in `config.folder`. Pages read with `input_limits`, at most `window` of a job at once,
  // on `workers`; `model_names` are the model sets of workers' lists, in their order.
  // `others` (may be empty) counts the documents in progress in another store of this server (its
  // streams), which --max-jobs bounds together with this one's jobs.
  SqliteJobs(SqliteJobsConfig config, JobLimits limits, PageWorkers workers, int window,
             std::vector<std::string> model_names, document::InputLimits input_limits,
             std::function<std::size_t()> others = {});
  ~SqliteJobs() override;  // Abandon()
  SqliteJobs(const SqliteJobs&) = delete;
  SqliteJobs& operator=(const SqliteJobs&) = delete;

  // Resumes the jobs the previous process left unfinished (once the pipelines are ready).
  void Start() EXCLUDES(mu_);
  // Every half second: starts jobs waiting for memory, fails those past --job-timeout, removes
  // expired ones and drops finished ones from memory (the database answers for them).
  void Sweep() EXCLUDES(mu_);

  // Uploads in the spool, bytes.
  std::int64_t spool_bytes() const EXCLUDES(mu_);
  // Jobs admitted and not finished.
  std::size_t unfinished() const EXCLUDES(mu_);

  // JobBackend.
  JobStoreFacts Facts() const override;

  Status Health() const override { return Status::Ok(); }

  // Local disk: point reads and short synced writes, made inline like the memory store's calls.
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

  // Whether no job runs here. Jobs waiting for memory do not start once admission stopped: they,
  // and what Abandon stops, resume at the next start.
  bool Idle() const override EXCLUDES(mu_);

  // Stops every job without recording it: each resumes at the next start.
  void Abandon(const Status& why) override EXCLUDES(mu_);

 private:
  class Journal;
  class StoredView;

  // A job ready to start, and the memory it reserves when it does.
  struct Pending {
    std::shared_ptr<DocumentJob> job;
    std::int64_t bytes = 0;  // pages in flight and results
  };

  // A job with its spec decoded, from memory or the database.
  struct Found {
    JobInfo info;
    std::shared_ptr<DocumentJob> live;  // null when only the database holds it
  };

  Result<Found> Lookup(std::string_view id) EXCLUDES(mu_);
  // The job `id` in memory, nullptr when it is not there.
  std::shared_ptr<DocumentJob> Live(std::string_view id) const EXCLUDES(mu_);
  // `others`: others_() read before the lock (it takes the other store's).
  Status AdmitLocked(std::size_t others) const REQUIRES(mu_);

  std::size_t Others() const { return others_ ? others_() : 0; }

  std::size_t UnfinishedLocked() const REQUIRES(mu_);
  // A DocumentJob over job `row`'s spooled upload, not started; `progress` for a resumed job.
  Result<Pending> Prepare(const JobRow& row, std::optional<JobProgress> progress);
  // Resumes one unfinished job of a previous process, or fails it with the reason.
  void Resume(const JobRow& row);
  // Starts waiting jobs, oldest first, while the budget holds them.
  void StartWaiting() EXCLUDES(mu_);

  const SqliteJobsConfig config_;
  const JobLimits limits_;
  const PageWorkers workers_;
  const int window_;
  const std::vector<std::string> model_names_;
  const document::InputLimits input_limits_;
  const std::function<std::size_t()> others_;
  const std::shared_ptr<JobDatabase> database_;  // config_.folder's
  const Spool& spool_;                           // config_.folder's
  // Set by Abandon: what stops now is not recorded, so it resumes at the next start.
  const std::shared_ptr<std::atomic<bool>> quiet_ = std::make_shared<std::atomic<bool>>(false);

  mutable Mutex mu_;  // guards the members below
  std::map<std::string, std::shared_ptr<DocumentJob>, std::less<>> live_ GUARDED_BY(mu_);
  std::deque<Pending> waiting_ GUARDED_BY(mu_);  // admitted, not started: oldest first
  std::map<std::string, std::int64_t, std::less<>> uploads_ GUARDED_BY(mu_);  // spooled bytes
  std::int64_t spool_bytes_ GUARDED_BY(mu_) = 0;
  bool admitting_ GUARDED_BY(mu_) = true;
};

}  // namespace ocr::jobs
