#include "jobs/document_job.h"

#include <exception>
#include <utility>

#include <spdlog/spdlog.h>

namespace ocr::jobs {

std::string_view StateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

namespace {

using SysClock = std::chrono::system_clock;

SysClock::time_point CreatedAt(const JobSpec& spec) {
  return spec.resumed ? spec.resumed->created : SysClock::now();
}

}  // namespace

DocumentJob::DocumentJob(std::string id, JobSpec spec, Clock::time_point deadline,
                         PageWorkers workers, int window)
    : id_(std::move(id)),
      spec_(std::move(spec)),
      deadline_(deadline),
      created_(CreatedAt(spec_)),
      created_steady_(Clock::now() -
                      std::chrono::duration_cast<Clock::duration>(SysClock::now() - created_)),
      workers_(std::move(workers)),
      window_(std::max(1, window)),
      page_count_(spec_.reader->page_count()),
      pages_total_(spec_.reader->pages().size()) {
  MutexLock lock(&mu_);
  done_.assign(pages_total_, false);
  result_.page_count = page_count_;
  result_.pages.resize(pages_total_);
  if (spec_.resumed) {
    JobProgress& before = *spec_.resumed;
    started_ = before.started;
    state_ = started_ ? JobState::kRunning : JobState::kQueued;
    events_ = std::move(before.events);
    journaled_ = events_.size();
    for (const JobEvent& e : events_)
      next_emit_ += e.kind == JobEvent::Kind::kPage ? 1 : 0;
    for (auto& [index, page] : before.pages) {
      if (index < pages_total_ && !done_[index]) {
        result_.pages[index] = std::move(page);
        done_[index] = true;
        ++pages_done_;
      }
    }
    spec_.resumed.reset();  // taken over whole
  }
}

DocumentJob::~DocumentJob() = default;

void DocumentJob::Start(std::optional<sched::MemoryBudget::Lease> work_lease) {
  {
    MutexLock lock(&mu_);
    if (work_lease) {
      spec_.work_lease.reset();
      spec_.work_lease.emplace(std::move(*work_lease));
    }
    // A resumed job may have read pages whose events it had not logged, or all of them.
    EmitReadPages();
    if (!IsFinished(state_))
      SubmitNext();
    ReleaseInputsWhenIdle();
    Journal();
  }
  Notify();
}

void DocumentJob::SubmitNext() {
  while (!IsFinished(state_) && in_flight_ < window_) {
    while (next_submit_ < pages_total_ && done_[next_submit_])
      ++next_submit_;  // read before a restart
    if (next_submit_ == pages_total_)
      break;
    const std::size_t index = next_submit_++;
    sched::Job job;
    job.priority = sched::Priority::kBackground;
    job.deadline = deadline_;
    job.cancel = stop_.get_token();
    // The page holds the job alive until it ran or was dropped.
    job.run = [self = shared_from_this(), index](sched::WorkerContext& worker) {
      self->RunPage(index, worker);
    };
    job.dropped = [self = shared_from_this(), index](const Status& why) {
      self->PageFinished(index, why);
    };
    ++in_flight_;
    if (Status submitted = workers_.scheduler->Submit(std::move(job)); !submitted.ok()) {
      // Only after Stop(): the server is going away.
      --in_flight_;
      Finish(JobState::kCancelled, submitted);
    }
  }
}

void DocumentJob::RunPage(std::size_t index, const sched::WorkerContext& worker) {
  const pipeline::Pipeline* pipe = nullptr;
  const document::PageReader* reader = nullptr;
  {
    MutexLock lock(&mu_);
    if (state_ == JobState::kQueued) {
      state_ = JobState::kRunning;
      started_ = std::chrono::system_clock::now();
    }
    pipe = workers_.group_pipelines.at(static_cast<std::size_t>(worker.group)).at(spec_.pipeline);
    reader = spec_.reader.get();  // freed only when no page is in flight
  }
  if (spec_.journal && reader != nullptr)
    spec_.journal->PageStarting(index);
  Result<document::DocumentPage> page = Cancelled();
  try {
    if (reader != nullptr)
      page = reader->Read(index, *pipe, stop_.get_token(), &worker.runner);
  } catch (const std::exception& e) {
    // The page must still be accounted for, or the job would never end.
    page = Status(StatusCode::kInternal, std::string("reading a page threw: ") + e.what());
  }
  PageFinished(index, std::move(page));
}

void DocumentJob::PageFinished(std::size_t index, Result<document::DocumentPage> page) {
  if (page.ok() && workers_.page_read)
    workers_.page_read(*page);
  if (page.ok() && spec_.journal)
    spec_.journal->PageRead(index, *page);
  {
    MutexLock lock(&mu_);
    --in_flight_;
    if (!IsFinished(state_)) {
      if (!page.ok()) {
        const bool timed_out =
            page.status().code() == StatusCode::kDeadlineExceeded || Clock::now() > deadline_;
        if (page.status().code() == StatusCode::kCancelled && !timed_out) {
          Finish(JobState::kCancelled, page.status());
        } else if (timed_out) {
          Finish(JobState::kFailed,
                 Status(StatusCode::kDeadlineExceeded,
                        "the document took longer than --job-timeout; its work was stopped"));
        } else {
          Finish(JobState::kFailed, page.status());
        }
      } else {
        result_.pages[index] = std::move(page).value();
        done_[index] = true;
        ++pages_done_;
        events_.push_back({JobEvent::Kind::kProgress, 0, pages_done_});
        EmitReadPages();
        SubmitNext();
      }
    }
    ReleaseInputsWhenIdle();
    Journal();
  }
  Notify();
}

void DocumentJob::EmitReadPages() {
  if (IsFinished(state_))
    return;
  while (next_emit_ < pages_total_ && done_[next_emit_])
    events_.push_back({JobEvent::Kind::kPage, next_emit_++, pages_done_});
  if (next_emit_ == pages_total_)
    Finish(JobState::kSucceeded, Status::Ok());
}

void DocumentJob::Journal() {
  if (!spec_.journal || journaled_ == events_.size())
    return;
  const std::span<const JobEvent> added(events_.begin() + static_cast<std::ptrdiff_t>(journaled_),
                                        events_.end());
  spec_.journal->Logged(journaled_, added, SnapshotLocked());
  journaled_ = events_.size();
}

void DocumentJob::Cancel(const Status& why) {
  {
    MutexLock lock(&mu_);
    if (IsFinished(state_))
      return;
    const bool stopped =
        why.code() == StatusCode::kCancelled || why.code() == StatusCode::kUnavailable;
    Finish(stopped ? JobState::kCancelled : JobState::kFailed, why);
    ReleaseInputsWhenIdle();
    Journal();
  }
  Notify();
}

void DocumentJob::Finish(JobState state, const Status& why) {
  if (IsFinished(state_))
    return;
  state_ = state;
  error_ = why;
  finished_ = std::chrono::system_clock::now();
  finished_steady_ = Clock::now();
  events_.push_back({JobEvent::Kind::kEnd, 0, pages_done_});
  stop_.request_stop();  // pages in flight stop; queued ones are dropped
  if (state != JobState::kSucceeded)
    spdlog::info("job {}: {} after {} of {} pages: {}", id_, StateName(state), pages_done_,
                 pages_total_, why.message());
}

void DocumentJob::ReleaseInputsWhenIdle() {
  if (IsFinished(state_) && in_flight_ == 0) {
    spec_.reader.reset();
    spec_.work_lease.reset();
  }
}

void DocumentJob::Notify() {
  std::vector<std::function<void()>> wake;
  {
    MutexLock lock(&mu_);
    for (const auto& [handle, fn] : watchers_)
      wake.push_back(fn);
  }
  for (const auto& fn : wake)
    fn();
}

JobSnapshot DocumentJob::Snapshot() const {
  MutexLock lock(&mu_);
  return SnapshotLocked();
}

JobSnapshot DocumentJob::SnapshotLocked() const {
  return {state_,    page_count_, static_cast<int>(pages_total_), pages_done_, created_, started_,
          finished_, error_};
}

std::optional<DocumentJob::Clock::time_point> DocumentJob::finished_at() const {
  MutexLock lock(&mu_);
  return finished_steady_;
}

std::size_t DocumentJob::event_count() const {
  MutexLock lock(&mu_);
  return events_.size();
}

std::vector<JobEvent> DocumentJob::EventsSince(std::size_t cursor) const {
  MutexLock lock(&mu_);
  if (cursor >= events_.size())
    return {};
  return {events_.begin() + static_cast<std::ptrdiff_t>(cursor), events_.end()};
}

const document::DocumentPage& DocumentJob::page(std::size_t index) const {
  return result_.pages.at(index);
}

const document::DocumentResult& DocumentJob::result() const {
  return result_;
}

double DocumentJob::seconds() const {
  MutexLock lock(&mu_);
  const Clock::time_point end = finished_steady_.value_or(Clock::now());
  return std::chrono::duration<double>(end - created_steady_).count();
}

std::uint64_t DocumentJob::Watch(std::function<void()> wake) {
  MutexLock lock(&mu_);
  const std::uint64_t handle = next_watcher_++;
  watchers_.emplace_back(handle, std::move(wake));
  return handle;
}

void DocumentJob::Unwatch(std::uint64_t handle) {
  MutexLock lock(&mu_);
  std::erase_if(watchers_, [handle](const auto& w) { return w.first == handle; });
}

}  // namespace ocr::jobs
