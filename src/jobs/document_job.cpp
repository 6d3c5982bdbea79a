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

DocumentJob::DocumentJob(std::string id, JobSpec spec, Clock::time_point deadline,
                         PageWorkers workers, int window)
    : id_(std::move(id)),
      spec_(std::move(spec)),
      deadline_(deadline),
      workers_(std::move(workers)),
      window_(std::max(1, window)),
      page_count_(spec_.reader->page_count()),
      pages_total_(spec_.reader->pages().size()) {
  MutexLock lock(&mu_);
  done_.assign(pages_total_, false);
  result_.page_count = page_count_;
  result_.pages.resize(pages_total_);
}

DocumentJob::~DocumentJob() = default;

void DocumentJob::Start() {
  MutexLock lock(&mu_);
  SubmitNext();
}

void DocumentJob::SubmitNext() {
  while (!IsFinished(state_) && in_flight_ < window_ && next_submit_ < pages_total_) {
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
        while (next_emit_ < pages_total_ && done_[next_emit_])
          events_.push_back({JobEvent::Kind::kPage, next_emit_++, pages_done_});
        if (next_emit_ == pages_total_)
          Finish(JobState::kSucceeded, Status::Ok());
        else
          SubmitNext();
      }
    }
    ReleaseInputsWhenIdle();
  }
  Notify();
}

void DocumentJob::Cancel(const Status& why) {
  {
    MutexLock lock(&mu_);
    if (IsFinished(state_))
      return;
    if (why.code() == StatusCode::kDeadlineExceeded)
      Finish(JobState::kFailed, why);
    else
      Finish(JobState::kCancelled, why);
    ReleaseInputsWhenIdle();
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
