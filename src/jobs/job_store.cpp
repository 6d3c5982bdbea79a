#include "jobs/job_store.h"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace ocr::jobs {

std::string NewJobId() {
  std::array<std::uint8_t, 16> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n > 0)
      got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (const std::uint8_t b : bytes) {
    id += kHex[b >> 4];
    id += kHex[b & 15];
  }
  return id;
}

bool IsJobId(std::string_view id) {
  return id.size() == 32 && std::ranges::all_of(id, [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

JobStore::JobStore(JobLimits limits, PageWorkers workers, int window)
    : limits_(limits), workers_(std::move(workers)), window_(window) {}

JobStore::~JobStore() {
  CancelAll(Status(StatusCode::kCancelled, "the server is shutting down"));
}

std::size_t JobStore::UnfinishedLocked() const {
  std::size_t n = 0;
  for (const auto& [id, entry] : jobs_)
    n += entry.job->finished_at() ? 0 : 1;
  return n;
}

Status JobStore::AdmitLocked() const {
  if (!admitting_)
    return Status(StatusCode::kUnavailable, "the server is draining; it takes no new documents");
  if (UnfinishedLocked() >= limits_.max_jobs) {
    return Status(StatusCode::kResourceExhausted,
                  "all " + std::to_string(limits_.max_jobs) +
                      " places for documents in progress are taken (--max-jobs); retry later");
  }
  return Status::Ok();
}

Status JobStore::CanAdmit() const {
  MutexLock lock(&mu_);
  return AdmitLocked();
}

Result<std::shared_ptr<DocumentJob>> JobStore::Start(JobSpec spec, bool listed) {
  std::shared_ptr<DocumentJob> job;
  {
    MutexLock lock(&mu_);
    OCR_RETURN_IF_ERROR(AdmitLocked());
    std::string id = NewJobId();
    job = std::make_shared<DocumentJob>(
        id, std::move(spec), DocumentJob::Clock::now() + limits_.timeout, workers_, window_);
    jobs_.emplace(std::move(id), Entry{job, listed});
  }
  job->Start();
  return job;
}

std::shared_ptr<DocumentJob> JobStore::Find(std::string_view id) const {
  MutexLock lock(&mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.listed)
    return nullptr;
  const auto finished = it->second.job->finished_at();
  if (finished && DocumentJob::Clock::now() - *finished > limits_.ttl)
    return nullptr;  // expired; Sweep frees it
  return it->second.job;
}

void JobStore::Forget(std::string_view id) {
  std::shared_ptr<DocumentJob> job;  // destroyed outside the lock
  MutexLock lock(&mu_);
  if (const auto it = jobs_.find(id); it != jobs_.end()) {
    job = std::move(it->second.job);
    jobs_.erase(it);
  }
}

void JobStore::Sweep() {
  const auto now = DocumentJob::Clock::now();
  std::vector<std::shared_ptr<DocumentJob>> late;
  std::vector<std::shared_ptr<DocumentJob>> freed;  // destroyed outside the lock
  {
    MutexLock lock(&mu_);
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const auto finished = it->second.job->finished_at();
      if (finished && (!it->second.listed || now - *finished > limits_.ttl)) {
        freed.push_back(std::move(it->second.job));
        it = jobs_.erase(it);
        continue;
      }
      if (!finished && now > it->second.job->deadline())
        late.push_back(it->second.job);
      ++it;
    }
  }
  for (const auto& job : late) {
    job->Cancel(Status(StatusCode::kDeadlineExceeded,
                       "the document took longer than --job-timeout (" +
                           std::to_string(limits_.timeout.count()) + " s); its work was stopped"));
  }
}

void JobStore::StopAdmitting() {
  MutexLock lock(&mu_);
  admitting_ = false;
}

void JobStore::CancelAll(const Status& why) {
  std::vector<std::shared_ptr<DocumentJob>> all;
  {
    MutexLock lock(&mu_);
    for (const auto& [id, entry] : jobs_)
      all.push_back(entry.job);
  }
  for (const auto& job : all)
    job->Cancel(why);
}

std::size_t JobStore::unfinished() const {
  MutexLock lock(&mu_);
  return UnfinishedLocked();
}

}  // namespace ocr::jobs
