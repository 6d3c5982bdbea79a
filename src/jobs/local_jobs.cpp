#include "jobs/local_jobs.h"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "jobs/document_memory.h"

namespace ocr::jobs {
namespace {

Status NoSuchJob(std::string_view id) {
  return {StatusCode::kNotFound, "no job " + std::string(id)};
}

}  // namespace

JobInfo InfoOf(const DocumentJob& job) {
  const JobSpec& spec = job.spec();
  JobInfo info{job.id(), job.Snapshot(), spec.answer};
  info.seconds = job.seconds();
  return info;
}

Status Admission(bool admitting, std::size_t unfinished, std::size_t max_jobs) {
  if (!admitting)
    return Status(StatusCode::kUnavailable, "the server is draining; it takes no new documents");
  if (unfinished >= max_jobs) {
    return Status(StatusCode::kResourceExhausted,
                  "all " + std::to_string(max_jobs) +
                      " places for documents in progress are taken (--max-jobs); retry later");
  }
  return Status::Ok();
}

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

LocalJobs::LocalJobs(JobLimits limits, PageWorkers workers, int window,
                     std::function<std::size_t()> others)
    : limits_(limits), workers_(std::move(workers)), window_(window), others_(std::move(others)) {}

LocalJobs::~LocalJobs() {
  Abandon(Status(StatusCode::kCancelled, "the server is shutting down"));
}

std::size_t LocalJobs::UnfinishedLocked() const {
  std::size_t n = 0;
  for (const auto& [id, entry] : jobs_)
    n += entry.job->finished_at() ? 0 : 1;
  return n;
}

Status LocalJobs::AdmitLocked(std::size_t others) const {
  return Admission(admitting_, UnfinishedLocked() + others, limits_.max_jobs);
}

Status LocalJobs::CanAdmit() const {
  const std::size_t others = Others();
  MutexLock lock(&mu_);
  return AdmitLocked(others);
}

Result<std::shared_ptr<DocumentJob>> LocalJobs::Start(JobInput input, bool listed) {
  OCR_RETURN_IF_ERROR(CanAdmit());  // before the estimate: a refusal costs nothing
  const auto pages = static_cast<std::int64_t>(input.reader->pages().size());
  // The pages in flight are held until the last page is read. The upload and the results are
  // held until the job is freed: a searchable PDF is made from the upload when the result is asked
  // for, and viewers draw its pages (GET /jobs/{id}/pages/{n}/image).
  OCR_ASSIGN_OR_RETURN(auto work_lease,
                       ReserveDocumentMemory(workers_.memory_budget, *input.reader, window_));
  const auto upload_bytes = static_cast<std::int64_t>(input.upload->size());
  OCR_ASSIGN_OR_RETURN(auto result_lease, ReserveBytes(workers_.memory_budget,
                                                       pages * kResultBytesPerPage + upload_bytes));
  JobSpec spec;
  spec.upload = std::move(input.upload);
  spec.file = input.file;
  spec.reader = std::move(input.reader);
  spec.pipeline = input.pipeline;
  spec.answer = input.answer;
  if (work_lease)
    spec.work_lease.emplace(std::move(*work_lease));
  if (result_lease)
    spec.result_lease.emplace(std::move(*result_lease));
  std::shared_ptr<DocumentJob> job;
  const std::size_t others = Others();
  {
    MutexLock lock(&mu_);
    OCR_RETURN_IF_ERROR(AdmitLocked(others));
    std::string id = NewJobId();
    job = std::make_shared<DocumentJob>(
        id, std::move(spec), DocumentJob::Clock::now() + limits_.timeout, workers_, window_);
    jobs_.emplace(std::move(id), Entry{job, listed});
  }
  job->Start();
  return job;
}

Result<std::string> LocalJobs::Create(JobInput input) {
  OCR_ASSIGN_OR_RETURN(const std::shared_ptr<DocumentJob> job,
                       Start(std::move(input), /*listed=*/true));
  return job->id();
}

Result<std::shared_ptr<DocumentJob>> LocalJobs::Lookup(std::string_view id) const {
  MutexLock lock(&mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.listed)
    return NoSuchJob(id);
  const auto finished = it->second.job->finished_at();
  if (finished && DocumentJob::Clock::now() - *finished > limits_.ttl)
    return NoSuchJob(id);  // expired; Sweep frees it
  return it->second.job;
}

Result<JobInfo> LocalJobs::Find(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(const std::shared_ptr<DocumentJob> job, Lookup(id));
  return InfoOf(*job);
}

Result<JobInfo> LocalJobs::Delete(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(const std::shared_ptr<DocumentJob> job, Lookup(id));
  if (job->finished_at()) {
    // A finished job: its result is freed (its watchers keep their reference until they end).
    std::shared_ptr<DocumentJob> forgotten;  // destroyed outside the lock
    MutexLock lock(&mu_);
    if (const auto it = jobs_.find(id); it != jobs_.end()) {
      forgotten = std::move(it->second.job);
      jobs_.erase(it);
    }
  } else {
    job->Cancel(Status(StatusCode::kCancelled, "cancelled by DELETE /jobs/" + job->id()));
  }
  return InfoOf(*job);
}

Result<JobOutcome> LocalJobs::Outcome(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(const std::shared_ptr<DocumentJob> job, Lookup(id));
  JobOutcome outcome;
  outcome.info = InfoOf(*job);
  if (outcome.info.snapshot.state == JobState::kSucceeded) {
    // Shares the job's ownership: the pages live as long as either.
    outcome.document = std::shared_ptr<const document::DocumentResult>(job, &job->result());
  }
  return outcome;
}

Result<JobSource> LocalJobs::Source(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(const std::shared_ptr<DocumentJob> job, Lookup(id));
  return JobSource{InfoOf(*job), job->spec().upload, job->spec().file};
}

Result<std::shared_ptr<JobView>> LocalJobs::Follow(std::string_view id, std::size_t /*cursor*/) {
  OCR_ASSIGN_OR_RETURN(std::shared_ptr<DocumentJob> job, Lookup(id));
  return std::shared_ptr<JobView>(std::move(job));  // its whole log is in memory
}

void LocalJobs::Sweep() {
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

void LocalJobs::StopAdmitting() {
  MutexLock lock(&mu_);
  admitting_ = false;
}

void LocalJobs::Abandon(const Status& why) {
  std::vector<std::shared_ptr<DocumentJob>> all;
  {
    MutexLock lock(&mu_);
    for (const auto& [id, entry] : jobs_)
      all.push_back(entry.job);
  }
  for (const auto& job : all)
    job->Cancel(why);
}

std::size_t LocalJobs::unfinished() const {
  MutexLock lock(&mu_);
  return UnfinishedLocked();
}

}  // namespace ocr::jobs
