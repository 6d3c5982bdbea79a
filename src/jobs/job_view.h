// JobView: what the transport reads of a long document's job to answer its status and stream its
// events, whichever store holds it: a DocumentJob running in this process (jobs/document_job.h)
// or a job in Redis followed by this replica (jobs/redis_jobs.h). Also the job's states and
// events, shared by both.
// Thread-safety: implementations are safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "document/document.h"

namespace ocr::jobs {

// Lifecycle: queued -> running (a first page started) -> succeeded | failed | cancelled.
enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };

// "queued", "running", "succeeded", "failed", "cancelled".
std::string_view StateName(JobState state);

inline bool IsFinished(JobState state) {
  return state != JobState::kQueued && state != JobState::kRunning;
}

struct JobEvent {
  enum class Kind { kProgress, kPage, kEnd };
  Kind kind = Kind::kProgress;
  std::size_t index = 0;  // kPage: which of the job's pages (0 .. pages_total - 1)
  int pages_done = 0;     // kProgress: pages finished so far
};

struct JobSnapshot {
  JobState state = JobState::kQueued;
  int page_count = 0;   // pages in the document
  int pages_total = 0;  // pages this job reads (the page_range's)
  int pages_done = 0;
  std::chrono::system_clock::time_point created;
  std::optional<std::chrono::system_clock::time_point> started;
  std::optional<std::chrono::system_clock::time_point> finished;
  Status error;  // failed: why; cancelled: kCancelled or kDeadlineExceeded
};

class JobView {
 public:
  virtual ~JobView() = default;

  virtual const std::string& id() const = 0;
  virtual JobSnapshot Snapshot() const = 0;
  // Events from `cursor` on (the log only grows): progress after each page, a page once it and
  // every page before it are read, one end. Page i may be read with page() once a kPage event
  // for it was returned.
  virtual std::vector<JobEvent> EventsSince(std::size_t cursor) const = 0;
  virtual std::size_t event_count() const = 0;
  virtual const document::DocumentPage& page(std::size_t index) const = 0;
  // Whether pages carry word boxes (return_word_boxes).
  virtual bool list_words() const = 0;
  // `wake` runs after new events, on the thread that added them, without the view's lock held.
  // Returns a handle for Unwatch.
  virtual std::uint64_t Watch(std::function<void()> wake) = 0;
  virtual void Unwatch(std::uint64_t handle) = 0;
};

}  // namespace ocr::jobs
