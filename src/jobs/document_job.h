// DocumentJob: one long document read page by page on the scheduler's workers at background
// priority, so interactive requests go first (sched/scheduler.h). What both the asynchronous jobs
// (POST /jobs) and the streamed answers (POST /ocr with stream=true) run.
//
// Pages run as separate scheduler jobs, at most `window` at once (the worker count): a job alone
// keeps every worker busy, and several jobs interleave their pages instead of queueing whole
// documents. Finished pages are kept in page order; every change is an event in one ordered log
// (progress, then the pages that became contiguous, then the end), which watchers read from their
// own cursor: the transport turns it into NDJSON lines or Server-Sent Events.
//
// Lifecycle: queued -> running (a first page started) -> succeeded | failed | cancelled. The
// document reader is freed when the job ends; the upload and the results when it is destroyed
// (a searchable PDF is made from the upload, and viewers draw its pages).
// Thread-safety: every public member is safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "document/answer.h"
#include "document/document.h"
#include "jobs/job_view.h"
#include "pipeline/pipeline.h"
#include "sched/memory_budget.h"
#include "sched/scheduler.h"

namespace ocr::jobs {

// Where pages run: the scheduler's workers; group g reads with group_pipelines[g][pipeline].
// REQUIRES: the scheduler, pipelines and budget outlive every job.
struct PageWorkers {
  sched::Scheduler* scheduler = nullptr;
  std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines;
  // Called after each page read, on its worker (the server's metrics); may be empty.
  std::function<void(const document::DocumentPage& page)> page_read;
  // Where the memory that pages, uploads and results hold is reserved (null: no budget).
  sched::MemoryBudget* memory_budget = nullptr;
};

// Where a durable store writes down a job's progress as it happens (jobs/sqlite_jobs.h), so a
// restart goes on from there. Calls come from the job's workers and from Cancel's caller.
class JobJournal {
 public:
  virtual ~JobJournal() = default;
  // Page `index` starts being read.
  virtual void PageStarting(std::size_t index) = 0;
  // Page `index` was read; before the events that tell of it.
  virtual void PageRead(std::size_t index, const document::DocumentPage& page) = 0;
  // The log grew by `events`, from position `first` on; `job` is the job after them. Called with
  // the job's lock held, in the log's order, each event once.
  virtual void Logged(std::size_t first, std::span<const JobEvent> events,
                      const JobSnapshot& job) = 0;
};

// What a job had done when the server stopped (jobs/sqlite_jobs.h): it goes on from there. A new
// job of a durable store starts from nothing done but the time it was stored.
struct JobProgress {
  std::chrono::system_clock::time_point created;
  std::optional<std::chrono::system_clock::time_point> started;
  std::vector<JobEvent> events;                         // its log so far
  std::map<std::size_t, document::DocumentPage> pages;  // the pages read, by index
};

// Everything a job needs, made by the route that admits it.
struct JobSpec {
  std::shared_ptr<const void> upload;  // owns the bytes the reader reads
  std::string_view file;               // the document inside *upload
  std::unique_ptr<document::PageReader> reader;
  std::size_t pipeline = 0;  // index of the model set in each group's list
  // How the answer is shaped (GET /jobs/{id}/result, the stream's last line).
  document::AnswerShape answer;
  // Released when the job ends (pages in flight) and when it is destroyed (upload, results).
  std::optional<sched::MemoryBudget::Lease> work_lease;
  std::optional<sched::MemoryBudget::Lease> result_lease;
  std::shared_ptr<JobJournal> journal;  // null: the job lives in memory only
  std::optional<JobProgress> resumed;   // what a durable store's job had done
};

class DocumentJob final : public JobView, public std::enable_shared_from_this<DocumentJob> {
 public:
  using Clock = std::chrono::steady_clock;

  // Not started yet: Start() submits the first pages. At most `window` pages run at once, on
  // `workers`.
  DocumentJob(std::string id, JobSpec spec, Clock::time_point deadline, PageWorkers workers,
              int window);
  ~DocumentJob();
  DocumentJob(const DocumentJob&) = delete;
  DocumentJob& operator=(const DocumentJob&) = delete;

  // Submits up to `window` pages; later pages are submitted as earlier ones finish. A resumed
  // job reads only the pages it had not read. `work_lease` (if any) replaces the spec's.
  void Start(std::optional<sched::MemoryBudget::Lease> work_lease = std::nullopt) EXCLUDES(mu_);

  // Stops the job (queued or running): its pages in flight stop at their next check (between
  // recognition batches), pages not started never run. `why`: kCancelled (DELETE, a stream's
  // client hung up) or kUnavailable (shutdown) cancel it; any other (kDeadlineExceeded for
  // --job-timeout) fails it. No effect once finished.
  void Cancel(const Status& why) EXCLUDES(mu_);

  const std::string& id() const override { return id_; }

  bool list_words() const override { return spec_.answer.list_words; }

  Clock::time_point deadline() const { return deadline_; }

  const JobSpec& spec() const { return spec_; }

  JobSnapshot Snapshot() const override EXCLUDES(mu_);
  // When the job ended (steady clock), for expiry; nullopt while unfinished.
  std::optional<Clock::time_point> finished_at() const EXCLUDES(mu_);

  // Events from `cursor` on (the log only grows). Page i may be read with page() once a kPage
  // event for it was returned.
  std::vector<JobEvent> EventsSince(std::size_t cursor) const override EXCLUDES(mu_);
  std::size_t event_count() const override EXCLUDES(mu_);
  const document::DocumentPage& page(std::size_t index) const override;

  // The whole document. REQUIRES: the job succeeded.
  const document::DocumentResult& result() const;
  // Seconds from creation to the end (or to now while unfinished).
  double seconds() const EXCLUDES(mu_);

  // `wake` runs after each new event, on the thread that added it (a worker or a caller of
  // Cancel), without the job's lock held. Returns a handle for Unwatch.
  std::uint64_t Watch(std::function<void()> wake) override EXCLUDES(mu_);
  void Unwatch(std::uint64_t handle) override EXCLUDES(mu_);

 private:
  // Hands pages to the scheduler while fewer than the window are in flight.
  void SubmitNext() REQUIRES(mu_);
  void RunPage(std::size_t index, const sched::WorkerContext& worker) EXCLUDES(mu_);
  void PageFinished(std::size_t index, Result<document::DocumentPage> page) EXCLUDES(mu_);
  // Page events for the pages read in order from next_emit_ on; the end once all are read.
  void EmitReadPages() REQUIRES(mu_);
  // Ends the job in `state` (and `why`) unless it ended already: the end event, the stop.
  void Finish(JobState state, const Status& why) REQUIRES(mu_);
  // Hands the events not yet journaled to the journal.
  void Journal() REQUIRES(mu_);
  JobSnapshot SnapshotLocked() const REQUIRES(mu_);
  // Frees the reader and the pages' memory once the job ended and no page reads them.
  void ReleaseInputsWhenIdle() REQUIRES(mu_);
  void Notify() EXCLUDES(mu_);

  const std::string id_;
  JobSpec spec_;  // reader and work_lease reset when the job ends; the rest is immutable
  const Clock::time_point deadline_;
  const std::chrono::system_clock::time_point created_;  // now, or when a resumed job was
  const Clock::time_point created_steady_;               // admitted before the restart
  std::stop_source stop_;
  const PageWorkers workers_;
  const int window_;
  const int page_count_;
  const std::size_t pages_total_;

  mutable Mutex mu_;  // guards the members below up to result_
  JobState state_ GUARDED_BY(mu_) = JobState::kQueued;
  Status error_ GUARDED_BY(mu_);
  std::optional<std::chrono::system_clock::time_point> started_ GUARDED_BY(mu_);
  std::optional<std::chrono::system_clock::time_point> finished_ GUARDED_BY(mu_);
  std::optional<Clock::time_point> finished_steady_ GUARDED_BY(mu_);
  std::size_t next_submit_ GUARDED_BY(mu_) = 0;  // the next page to hand to the scheduler
  int in_flight_ GUARDED_BY(mu_) = 0;            // pages submitted and not finished
  std::vector<bool> done_ GUARDED_BY(mu_);
  std::size_t next_emit_ GUARDED_BY(mu_) = 0;  // the first page without its kPage event
  int pages_done_ GUARDED_BY(mu_) = 0;
  std::vector<JobEvent> events_ GUARDED_BY(mu_);
  std::size_t journaled_ GUARDED_BY(mu_) = 0;  // events handed to the journal
  std::vector<std::pair<std::uint64_t, std::function<void()>>> watchers_ GUARDED_BY(mu_);
  std::uint64_t next_watcher_ GUARDED_BY(mu_) = 1;
  // Written by the worker that read page i before its kPage event; immutable afterwards.
  document::DocumentResult result_;
};

}  // namespace ocr::jobs
