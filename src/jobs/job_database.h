// JobDatabase: the durable job store's SQLite database (Debian's libsqlite3, WAL mode, synced on
// every commit): one row per job (its state, times, page counts, spec and the size of its
// spooled upload), the pages read so far, the job's event log, and the pages being read, so a
// restart resumes every job from its first unread page and knows which page was being read when
// the server died (jobs/sqlite_jobs.h).
//
//   jobs(id, state, created_ms, started_ms, finished_ms, page_count, pages_total, pages_done,
//        spec, upload_bytes, error_code, error)
//   pages(job, idx, page)        page_codec.h's form
//   events(job, seq, kind, idx, done)
//   reading(job, idx, starts)    pages started and not stored: how many times each was started
//
// One connection, used under one lock; each call is one transaction.
// Thread-safety: every member is safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "jobs/job_view.h"

struct sqlite3;

namespace ocr::jobs {

// A job as its row holds it.
struct JobRow {
  std::string id;
  JobSnapshot snapshot;
  std::string spec;  // job_spec_codec.h's form
  std::int64_t upload_bytes = 0;
};

class JobDatabase {
 public:
  // Opens `file`, creating it and its tables when missing, and checks it (PRAGMA quick_check).
  // Errors: kIoError naming the file and what to do when it cannot be opened, is not a database
  // or is damaged.
  static Result<std::unique_ptr<JobDatabase>> Open(const std::filesystem::path& file);
  ~JobDatabase();
  JobDatabase(const JobDatabase&) = delete;
  JobDatabase& operator=(const JobDatabase&) = delete;

  // Stores a new job. Errors: kResourceExhausted when the disk is full, kIoError.
  Status Insert(const JobRow& row) EXCLUDES(mu_);
  // The job `id`; nullopt when there is none.
  Result<std::optional<JobRow>> Find(std::string_view id) EXCLUDES(mu_);
  // Jobs not finished (queued or running when the last process stopped), oldest first.
  Result<std::vector<JobRow>> Unfinished() EXCLUDES(mu_);
  // Job `id`'s page `index` is being read (once more).
  Status PageStarting(std::string_view id, std::size_t index) EXCLUDES(mu_);
  // Stores page `index` as read (and no longer being read).
  Status SavePage(std::string_view id, std::size_t index, std::string_view page) EXCLUDES(mu_);
  // Appends `events` to the job's log at position `first` and stores the job as `snapshot`.
  Status SaveLog(std::string_view id, std::size_t first, std::span<const JobEvent> events,
                 const JobSnapshot& snapshot) EXCLUDES(mu_);
  // Stores the job as `snapshot` with an end event (a job failed at start).
  Status SaveEnd(std::string_view id, const JobSnapshot& snapshot) EXCLUDES(mu_);
  Result<std::map<std::size_t, std::string>> Pages(std::string_view id) EXCLUDES(mu_);
  Result<std::vector<JobEvent>> Events(std::string_view id) EXCLUDES(mu_);
  // Pages of `id` started and not stored, with how many times each was started.
  Result<std::map<std::size_t, int>> Reading(std::string_view id) EXCLUDES(mu_);
  // Forgets every page being read: the server stopped them itself (a clean shutdown).
  Status ClearReading() EXCLUDES(mu_);
  // Removes job `id` and everything stored with it.
  Status Delete(std::string_view id) EXCLUDES(mu_);
  // Removes the jobs that finished before `before_ms` (ms since the epoch); their ids.
  Result<std::vector<std::string>> DeleteFinishedBefore(std::int64_t before_ms) EXCLUDES(mu_);
  // Every job's id and upload size.
  Result<std::map<std::string, std::int64_t>> Uploads() EXCLUDES(mu_);

  // `PRAGMA integrity_check`'s verdict: "ok", or what is wrong.
  Result<std::string> IntegrityCheck() EXCLUDES(mu_);
  // How many jobs are in each state ("queued", "running", ...), and pages stored.
  Result<std::map<std::string, std::int64_t>> Counts() EXCLUDES(mu_);
  // Rewrites the file without its free pages (VACUUM). REQUIRES: no server uses it.
  Status Vacuum() EXCLUDES(mu_);

  // Milliseconds since the epoch, as times are stored.
  static std::int64_t ToMs(std::chrono::system_clock::time_point t);
  static std::chrono::system_clock::time_point FromMs(std::int64_t ms);

 private:
  explicit JobDatabase(sqlite3* db) : db_(db) {}

  // Runs `sql` (statements without parameters or results).
  Status Exec(const char* sql) REQUIRES(mu_);
  // Ends the transaction: COMMIT when `status` is ok (its failure returned), else ROLLBACK and
  // `status`.
  Status Commit(const Status& status) REQUIRES(mu_);

  Mutex mu_;  // guards db_ (one connection, one transaction at a time)
  sqlite3* db_ GUARDED_BY(mu_);
};

}  // namespace ocr::jobs
