#include "jobs/sqlite_jobs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include <spdlog/spdlog.h>

#include "jobs/document_memory.h"
#include "jobs/job_spec_codec.h"
#include "jobs/page_codec.h"

namespace ocr::jobs {
namespace {

using SysClock = std::chrono::system_clock;

// A page that was being read each of this many times the server died is not read again.
constexpr int kFatalStarts = 2;

Status NoSuchJob(std::string_view id) {
  return {StatusCode::kNotFound, "no job " + std::string(id)};
}

// The job's state as its row holds it, with the shape of its answer from its spec.
Result<JobInfo> InfoOfRow(const JobRow& row) {
  OCR_ASSIGN_OR_RETURN(const SharedJobSpec spec, DecodeJobSpec(row.spec));
  JobInfo info{row.id, row.snapshot, spec.answer};
  const SysClock::time_point end = row.snapshot.finished.value_or(SysClock::now());
  info.seconds = std::max(0.0, std::chrono::duration<double>(end - row.snapshot.created).count());
  return info;
}

// Takes the folder's lock; its descriptor. Errors: kIoError, saying what to do.
Result<int> LockFolder(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / "lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status(StatusCode::kIoError, "cannot open " + path.string() + ": " +
                                            std::generic_category().message(errno) +
                                            " (--data-dir must be writable)");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status(StatusCode::kIoError,
                  "another onnxocr server uses the job folder " + folder.string() +
                      " (--data-dir); give each server its own folder, or share jobs between "
                      "servers with --redis");
  }
  return fd;
}

}  // namespace

// Writes a job's progress to the database as it happens.
class SqliteJobs::Journal final : public JobJournal {
 public:
  Journal(std::string id, std::shared_ptr<JobDatabase> database,
          std::shared_ptr<std::atomic<bool>> quiet)
      : id_(std::move(id)), database_(std::move(database)), quiet_(std::move(quiet)) {}

  void PageStarting(std::size_t index) override {
    if (!quiet_->load())
      Check(database_->PageStarting(id_, index));
  }

  void PageRead(std::size_t index, const document::DocumentPage& page) override {
    Check(database_->SavePage(id_, index, EncodePage(page)));
  }

  void Logged(std::size_t first, std::span<const JobEvent> events,
              const JobSnapshot& job) override {
    if (!quiet_->load())
      Check(database_->SaveLog(id_, first, events, job));
  }

  // Whether every write reached the database (a full disk, say, stopped none).
  bool complete() const { return complete_.load(); }

 private:
  // The job goes on in memory, which answers for it while the database lacks something; after a
  // restart, what was not stored is read again.
  void Check(const Status& status) {
    if (status.ok())
      return;
    complete_.store(false);
    spdlog::error("job {}: {}", id_, status.message());
  }

  const std::string id_;
  const std::shared_ptr<JobDatabase> database_;
  const std::shared_ptr<std::atomic<bool>> quiet_;
  std::atomic<bool> complete_{true};
};

// A finished job as the database holds it: its whole log and pages; nothing is added.
class SqliteJobs::StoredView final : public JobView {
 public:
  StoredView(JobInfo info, std::vector<JobEvent> events,
             std::map<std::size_t, document::DocumentPage> pages)
      : info_(std::move(info)), events_(std::move(events)), pages_(std::move(pages)) {}

  const std::string& id() const override { return info_.id; }

  JobSnapshot Snapshot() const override { return info_.snapshot; }

  std::vector<JobEvent> EventsSince(std::size_t cursor) const override {
    if (cursor >= events_.size())
      return {};
    return {events_.begin() + static_cast<std::ptrdiff_t>(cursor), events_.end()};
  }

  std::size_t event_count() const override { return events_.size(); }

  const document::DocumentPage& page(std::size_t index) const override { return pages_.at(index); }

  bool list_words() const override { return info_.answer.list_words; }

  std::uint64_t Watch(std::function<void()> /*wake*/) override { return 0; }

  void Unwatch(std::uint64_t /*handle*/) override {}

 private:
  const JobInfo info_;
  const std::vector<JobEvent> events_;
  const std::map<std::size_t, document::DocumentPage> pages_;
};

Result<std::shared_ptr<JobFolder>> JobFolder::Open(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return Status(StatusCode::kIoError, "cannot create the job folder " + path.string() +
                                            " (--data-dir): " + error.message());
  }
  OCR_ASSIGN_OR_RETURN(const int lock_fd, LockFolder(path));
  Result<std::unique_ptr<JobDatabase>> database = JobDatabase::Open(path / "jobs.sqlite");
  Result<Spool> spool = Spool::Open(path / "spool");
  if (!database.ok() || !spool.ok()) {
    ::close(lock_fd);
    return database.ok() ? spool.status() : database.status();
  }
  return std::shared_ptr<JobFolder>(
      new JobFolder(path, lock_fd, std::move(database).value(), std::move(spool).value()));
}

JobFolder::~JobFolder() {
  ::close(lock_fd_);
}

SqliteJobs::SqliteJobs(SqliteJobsConfig config, JobLimits limits, PageWorkers workers, int window,
                       std::vector<std::string> model_names, document::InputLimits input_limits,
                       std::function<std::size_t()> others)
    : config_(std::move(config)),
      limits_(limits),
      workers_(std::move(workers)),
      window_(std::max(1, window)),
      model_names_(std::move(model_names)),
      input_limits_(input_limits),
      others_(std::move(others)),
      database_(config_.folder->database()),
      spool_(config_.folder->spool()) {
  Result<std::map<std::string, std::int64_t>> uploads = database_->Uploads();
  if (!uploads.ok()) {
    spdlog::error("jobs: {}", uploads.status().message());
    return;
  }
  // Uploads without a job: written by a server that died before it stored the job.
  for (const std::string& id : spool_.Ids()) {
    if (!uploads->contains(id))
      spool_.Remove(id);
  }
  MutexLock lock(&mu_);
  for (const auto& [id, bytes] : *uploads)
    spool_bytes_ += bytes;
  uploads_.insert(uploads->begin(), uploads->end());
}

SqliteJobs::~SqliteJobs() {
  Abandon(Status(StatusCode::kUnavailable, "the server is shutting down"));
}

JobStoreFacts SqliteJobs::Facts() const {
  JobStoreFacts facts;
  facts.data_dir = config_.folder->path().string();
  return facts;
}

std::int64_t SqliteJobs::spool_bytes() const {
  MutexLock lock(&mu_);
  return spool_bytes_;
}

std::size_t SqliteJobs::UnfinishedLocked() const {
  std::size_t n = 0;
  for (const auto& [id, job] : live_)
    n += job->finished_at() ? 0 : 1;
  return n;
}

std::size_t SqliteJobs::unfinished() const {
  MutexLock lock(&mu_);
  return UnfinishedLocked();
}

Status SqliteJobs::AdmitLocked(std::size_t others) const {
  return Admission(admitting_, UnfinishedLocked() + others, limits_.max_jobs);
}

Status SqliteJobs::CanAdmit() const {
  const std::size_t others = Others();
  MutexLock lock(&mu_);
  return AdmitLocked(others);
}

Result<SqliteJobs::Pending> SqliteJobs::Prepare(const JobRow& row,
                                                std::optional<JobProgress> progress) {
  OCR_ASSIGN_OR_RETURN(SharedJobSpec shared, DecodeJobSpec(row.spec));
  OCR_ASSIGN_OR_RETURN(const std::size_t pipeline, ModelIndex(shared, model_names_));
  OCR_ASSIGN_OR_RETURN(std::shared_ptr<const MappedUpload> upload, spool_.Map(row.id));
  shared.options.limits = input_limits_;
  const std::string_view bytes = upload->bytes();
  JobSpec spec;
  OCR_ASSIGN_OR_RETURN(
      spec.reader,
      document::PageReader::Open(
          {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, shared.options));
  OCR_ASSIGN_OR_RETURN(const std::int64_t in_flight, spec.reader->EstimateBytes(window_));
  upload->Evict();
  const std::int64_t need =
      in_flight + static_cast<std::int64_t>(spec.reader->pages().size()) * kResultBytesPerPage;
  spec.upload = std::move(upload);
  spec.file = bytes;
  spec.pipeline = pipeline;
  spec.answer = shared.answer;
  spec.journal = std::make_shared<Journal>(row.id, database_, quiet_);
  spec.resumed = std::move(progress);
  // --job-timeout counts from admission, across restarts.
  const auto left = std::chrono::duration_cast<DocumentJob::Clock::duration>(
      row.snapshot.created + limits_.timeout - SysClock::now());
  return Pending{std::make_shared<DocumentJob>(row.id, std::move(spec),
                                               DocumentJob::Clock::now() + left, workers_, window_),
                 need};
}

Result<std::string> SqliteJobs::Create(JobInput input) {
  const auto size = static_cast<std::int64_t>(input.file.size());
  const std::size_t others = Others();
  {
    MutexLock lock(&mu_);
    OCR_RETURN_IF_ERROR(AdmitLocked(others));
    if (spool_bytes_ + size > config_.spool_max_bytes) {
      return Status(StatusCode::kResourceExhausted,
                    "the job spool is full (" + std::to_string(spool_bytes_ >> 20) + " of " +
                        std::to_string(config_.spool_max_bytes >> 20) +
                        " MB, --spool-max-gb); retry when jobs have finished");
    }
    spool_bytes_ += size;  // reserved now, so that two uploads cannot both take the last room
  }
  const auto give_back = [this, size] {
    MutexLock lock(&mu_);
    spool_bytes_ -= size;
  };
  const auto pages = static_cast<std::int64_t>(input.reader->pages().size());
  Result<std::int64_t> need = input.reader->EstimateBytes(window_);
  Status fits = need.ok() ? FitsBudget(workers_.memory_budget, *need + pages * kResultBytesPerPage)
                          : need.status();
  if (!fits.ok()) {
    give_back();
    return fits;
  }
  JobRow row;
  row.id = NewJobId();
  row.snapshot.created = SysClock::now();
  row.snapshot.page_count = input.reader->page_count();
  row.snapshot.pages_total = static_cast<int>(pages);
  row.upload_bytes = size;
  SharedJobSpec shared;
  shared.model = std::move(input.model);
  shared.answer = input.answer;
  shared.options = std::move(input.options);
  row.spec = EncodeJobSpec(shared);
  Status stored = spool_.Write(row.id, input.file);
  if (stored.ok())
    stored = database_->Insert(row);
  // Nothing done yet, but the job's creation time is the stored one.
  Result<Pending> job = stored.ok()
                            ? Prepare(row, JobProgress{row.snapshot.created, std::nullopt, {}, {}})
                            : Result<Pending>(stored);
  if (!job.ok()) {
    (void)database_->Delete(row.id);
    spool_.Remove(row.id);
    give_back();
    return job.status();
  }
  {
    MutexLock lock(&mu_);
    live_.emplace(row.id, job->job);
    waiting_.push_back(std::move(job).value());
    uploads_.emplace(row.id, size);
  }
  StartWaiting();
  return row.id;
}

void SqliteJobs::StartWaiting() {
  std::vector<std::pair<std::shared_ptr<DocumentJob>, std::optional<sched::MemoryBudget::Lease>>>
      start;
  std::vector<std::pair<std::shared_ptr<DocumentJob>, Status>> refused;
  {
    MutexLock lock(&mu_);
    while (!waiting_.empty() && admitting_) {
      const std::shared_ptr<DocumentJob> job = waiting_.front().job;
      if (job->finished_at()) {  // cancelled while it waited
        waiting_.pop_front();
        continue;
      }
      auto lease = ReserveBytes(workers_.memory_budget, waiting_.front().bytes);
      if (!lease.ok() && lease.status().code() == StatusCode::kResourceExhausted)
        break;  // its turn comes when memory is free; the jobs after it wait too
      waiting_.pop_front();
      if (lease.ok())
        start.emplace_back(job, std::move(*lease));
      else
        refused.emplace_back(job, lease.status());
    }
  }
  for (auto& [job, why] : refused)
    job->Cancel(why);  // more than the whole budget (--memory-budget-mb changed since admission)
  for (auto& [job, lease] : start)
    job->Start(std::move(lease));
}

std::shared_ptr<DocumentJob> SqliteJobs::Live(std::string_view id) const {
  MutexLock lock(&mu_);
  const auto it = live_.find(id);
  return it == live_.end() ? nullptr : it->second;
}

Result<SqliteJobs::Found> SqliteJobs::Lookup(std::string_view id) {
  if (std::shared_ptr<DocumentJob> job = Live(id))
    return Found{InfoOf(*job), std::move(job)};
  OCR_ASSIGN_OR_RETURN(const std::optional<JobRow> row, database_->Find(id));
  if (!row)
    return NoSuchJob(id);
  const auto& finished = row->snapshot.finished;
  if (finished && SysClock::now() - *finished > limits_.ttl)
    return NoSuchJob(id);  // expired; Sweep removes it
  OCR_ASSIGN_OR_RETURN(JobInfo info, InfoOfRow(*row));
  return Found{std::move(info), nullptr};
}

Result<JobInfo> SqliteJobs::Find(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(Found job, Lookup(id));
  return std::move(job.info);
}

Result<JobInfo> SqliteJobs::Delete(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(Found job, Lookup(id));
  if (job.live && !job.live->finished_at()) {
    job.live->Cancel(Status(StatusCode::kCancelled, "cancelled by DELETE /jobs/" + job.info.id));
    return InfoOf(*job.live);
  }
  // A finished job: its result and upload are forgotten.
  OCR_RETURN_IF_ERROR(database_->Delete(id));
  spool_.Remove(id);
  std::shared_ptr<DocumentJob> forgotten;  // destroyed outside the lock
  MutexLock lock(&mu_);
  if (const auto it = live_.find(id); it != live_.end()) {
    forgotten = std::move(it->second);
    live_.erase(it);
  }
  if (const auto it = uploads_.find(id); it != uploads_.end()) {
    spool_bytes_ -= it->second;
    uploads_.erase(it);
  }
  return std::move(job.info);
}

Result<JobOutcome> SqliteJobs::Outcome(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(Found job, Lookup(id));
  JobOutcome outcome;
  outcome.info = std::move(job.info);
  const JobSnapshot& snap = outcome.info.snapshot;
  if (snap.state != JobState::kSucceeded)
    return outcome;
  if (job.live) {
    // Shares the job's ownership: the pages live as long as either.
    outcome.document =
        std::shared_ptr<const document::DocumentResult>(job.live, &job.live->result());
    return outcome;
  }
  OCR_ASSIGN_OR_RETURN(const auto stored, database_->Pages(id));
  OCR_ASSIGN_OR_RETURN(outcome.document, DecodeDocument(snap.page_count, snap.pages_total, stored,
                                                        "the job database"));
  return outcome;
}

Result<JobSource> SqliteJobs::Source(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(Found job, Lookup(id));
  if (job.live)
    return JobSource{std::move(job.info), job.live->spec().upload, job.live->spec().file};
  OCR_ASSIGN_OR_RETURN(std::shared_ptr<const MappedUpload> upload, spool_.Map(id));
  const std::string_view file = upload->bytes();
  return JobSource{std::move(job.info), std::move(upload), file};
}

Result<std::shared_ptr<JobView>> SqliteJobs::Follow(std::string_view id, std::size_t /*cursor*/) {
  OCR_ASSIGN_OR_RETURN(Found job, Lookup(id));
  if (job.live)
    return std::shared_ptr<JobView>(std::move(job.live));  // its whole log is in memory
  OCR_ASSIGN_OR_RETURN(std::vector<JobEvent> events, database_->Events(id));
  OCR_ASSIGN_OR_RETURN(const auto stored, database_->Pages(id));
  std::map<std::size_t, document::DocumentPage> pages;
  for (const auto& [index, text] : stored) {
    OCR_ASSIGN_OR_RETURN(document::DocumentPage page, DecodePage(text));
    pages.emplace(index, std::move(page));
  }
  // A page event whose page is not stored would name nothing: the log ends before it.
  const auto missing = std::find_if(events.begin(), events.end(), [&pages](const JobEvent& e) {
    return e.kind == JobEvent::Kind::kPage && !pages.contains(e.index);
  });
  events.erase(missing, events.end());
  return std::shared_ptr<JobView>(
      std::make_shared<StoredView>(std::move(job.info), std::move(events), std::move(pages)));
}

void SqliteJobs::Start() {
  Result<std::vector<JobRow>> rows = database_->Unfinished();
  if (!rows.ok()) {
    spdlog::error("jobs: cannot read the unfinished jobs: {}", rows.status().message());
    return;
  }
  for (const JobRow& row : *rows)
    Resume(row);
  StartWaiting();
}

void SqliteJobs::Resume(const JobRow& row) {
  JobSnapshot end = row.snapshot;
  end.state = JobState::kFailed;
  end.finished = SysClock::now();
  Result<std::map<std::size_t, int>> reading = database_->Reading(row.id);
  if (reading.ok()) {
    for (const auto& [index, starts] : *reading) {
      if (starts >= kFatalStarts) {
        end.error = Status(StatusCode::kInternal,
                           "the server stopped unexpectedly each time it read page " +
                               std::to_string(index + 1) + " of the job's " +
                               std::to_string(row.snapshot.pages_total) +
                               "; it is not read again (the document may be what stops it)");
      }
    }
  }
  Result<Pending> job = end.error;
  if (end.error.ok()) {
    JobProgress progress{row.snapshot.created, row.snapshot.started, {}, {}};
    Result<std::vector<JobEvent>> events = database_->Events(row.id);
    Result<std::map<std::size_t, std::string>> pages = database_->Pages(row.id);
    if (events.ok() && pages.ok()) {
      progress.events = std::move(events).value();
      for (const auto& [index, text] : *pages) {
        Result<document::DocumentPage> page = DecodePage(text);
        if (page.ok())  // else it is read again
          progress.pages.emplace(index, std::move(page).value());
      }
      job = Prepare(row, std::move(progress));
    } else {
      job = events.ok() ? pages.status() : events.status();
    }
  }
  if (!job.ok()) {
    const Status& why = job.status();
    end.error =
        why.code() == StatusCode::kInternal
            ? why
            : Status(why.code(), "the job could not resume after a restart: " + why.message());
    spdlog::warn("job {}: {}", row.id, end.error.message());
    if (Status saved = database_->SaveEnd(row.id, end); !saved.ok())
      spdlog::error("job {}: {}", row.id, saved.message());
    return;
  }
  spdlog::info("job {}: resumed after a restart ({} of {} pages read before)", row.id,
               job->job->Snapshot().pages_done, row.snapshot.pages_total);
  MutexLock lock(&mu_);
  live_.emplace(row.id, job->job);
  waiting_.push_back(std::move(job).value());
}

void SqliteJobs::Sweep() {
  StartWaiting();
  const auto now = DocumentJob::Clock::now();
  std::vector<std::shared_ptr<DocumentJob>> late;
  std::vector<std::shared_ptr<DocumentJob>> dropped;  // destroyed outside the lock
  {
    MutexLock lock(&mu_);
    for (auto it = live_.begin(); it != live_.end();) {
      const DocumentJob& job = *it->second;
      const auto finished = job.finished_at();
      // Once the database has it whole, it answers for it; else memory does until the ttl.
      if (finished && (static_cast<const Journal&>(*job.spec().journal).complete() ||
                       now - *finished > limits_.ttl)) {
        dropped.push_back(std::move(it->second));
        it = live_.erase(it);
        continue;
      }
      if (!finished && now > job.deadline())
        late.push_back(it->second);
      ++it;
    }
  }
  for (const auto& job : late) {
    job->Cancel(Status(StatusCode::kDeadlineExceeded,
                       "the document took longer than --job-timeout (" +
                           std::to_string(limits_.timeout.count()) + " s); its work was stopped"));
  }
  const auto ttl = std::chrono::duration_cast<std::chrono::milliseconds>(limits_.ttl);
  Result<std::vector<std::string>> expired =
      database_->DeleteFinishedBefore(JobDatabase::ToMs(SysClock::now()) - ttl.count());
  if (!expired.ok()) {
    spdlog::error("jobs: {}", expired.status().message());
    return;
  }
  for (const std::string& id : *expired) {
    spool_.Remove(id);
    MutexLock lock(&mu_);
    if (const auto it = uploads_.find(id); it != uploads_.end()) {
      spool_bytes_ -= it->second;
      uploads_.erase(it);
    }
  }
}

bool SqliteJobs::Idle() const {
  MutexLock lock(&mu_);
  for (const auto& entry : live_) {
    const std::shared_ptr<DocumentJob>& job = entry.second;
    const bool waiting =
        std::ranges::any_of(waiting_, [&job](const Pending& p) { return p.job == job; });
    if (!waiting && job->Snapshot().state == JobState::kRunning)
      return false;
  }
  return true;
}

void SqliteJobs::StopAdmitting() {
  MutexLock lock(&mu_);
  admitting_ = false;
}

void SqliteJobs::Abandon(const Status& why) {
  quiet_->store(true);
  std::vector<std::shared_ptr<DocumentJob>> all;
  {
    MutexLock lock(&mu_);
    admitting_ = false;
    for (const auto& [id, job] : live_)
      all.push_back(job);
  }
  for (const auto& job : all)
    job->Cancel(why);
  // The pages stopped now were stopped by this server, not by a crash.
  if (Status cleared = database_->ClearReading(); !cleared.ok())
    spdlog::error("jobs: {}", cleared.message());
}

}  // namespace ocr::jobs
