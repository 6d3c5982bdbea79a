#include "jobs/redis_jobs.h"

#include <algorithm>
#include <map>
#include <utility>

#include "jobs/internal/redis_claim.h"
#include "jobs/internal/redis_scripts.h"
#include "jobs/page_codec.h"

namespace ocr::jobs {
namespace {

using internal::JobKey;
using internal::StateFrom;
using internal::TimeOf;
using internal::ToInt;
using SysClock = std::chrono::system_clock;
using std::chrono::milliseconds;

// A reachable Redis answers a connect on a private network in well under this.
constexpr milliseconds kConnectTimeout{500};
// While Redis is unreachable, one connect attempt per this; other calls fail at once.
constexpr milliseconds kRetryAfter{1000};

// HGETALL's flat array as a map.
std::map<std::string, std::string, std::less<>> FieldsOf(const RedisReply& reply) {
  std::map<std::string, std::string, std::less<>> fields;
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2)
    fields[reply.elements[i].str] = reply.elements[i + 1].str;
  return fields;
}

Status NotFound(std::string_view id) {
  return {StatusCode::kNotFound, "no job " + std::string(id)};
}

}  // namespace

// A job in Redis as this replica follows it for an event stream: its log from `base` on and the
// pages of its page events, read by the claim loop.
class RedisJobs::FollowedJob final : public JobView {
 public:
  FollowedJob(const JobInfo& job, std::size_t base)
      : id_(job.id), list_words_(job.answer.list_words), base_(base), snapshot_(job.snapshot) {}

  const std::string& id() const override { return id_; }

  bool list_words() const override { return list_words_; }

  JobSnapshot Snapshot() const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return snapshot_;
  }

  std::vector<JobEvent> EventsSince(std::size_t cursor) const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    const std::size_t from = std::max(cursor, base_) - base_;
    if (from >= events_.size())
      return {};
    return {events_.begin() + static_cast<std::ptrdiff_t>(from), events_.end()};
  }

  std::size_t event_count() const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return base_ + events_.size();
  }

  const document::DocumentPage& page(std::size_t index) const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return pages_.at(index);  // std::map: the reference stays valid as pages are added
  }

  std::uint64_t Watch(std::function<void()> wake) override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    watchers_.emplace_back(next_watcher_, std::move(wake));
    return next_watcher_++;
  }

  void Unwatch(std::uint64_t handle) override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    std::erase_if(watchers_, [handle](const auto& w) { return w.first == handle; });
  }

  bool ended() const EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return ended_;
  }

  // Raw entries of the log, read by the loop from `position()` on.
  std::size_t position() const EXCLUDES(mu_) { return event_count(); }

  // Adds what the loop read: events (with the pages they name) and the job as it is now.
  void Add(const std::vector<JobEvent>& events,
           std::map<std::size_t, document::DocumentPage>&& pages, const JobSnapshot& snapshot)
      EXCLUDES(mu_) {
    std::vector<std::function<void()>> wake;
    {
      MutexLock lock(&mu_);
      for (auto& [index, page] : pages)
        pages_.emplace(index, std::move(page));
      for (const JobEvent& e : events) {
        events_.push_back(e);
        ended_ = ended_ || e.kind == JobEvent::Kind::kEnd;
      }
      snapshot_ = snapshot;
      for (const auto& [handle, fn] : watchers_)
        wake.push_back(fn);
    }
    for (const auto& fn : wake)
      fn();
  }

 private:
  const std::string id_;
  const bool list_words_;
  const std::size_t base_;
  mutable Mutex mu_;  // guards the members below
  JobSnapshot snapshot_ GUARDED_BY(mu_);
  std::vector<JobEvent> events_ GUARDED_BY(mu_);
  std::map<std::size_t, document::DocumentPage> pages_ GUARDED_BY(mu_);
  bool ended_ GUARDED_BY(mu_) = false;
  std::vector<std::pair<std::uint64_t, std::function<void()>>> watchers_ GUARDED_BY(mu_);
  std::uint64_t next_watcher_ GUARDED_BY(mu_) = 1;
};

RedisJobs::RedisJobs(RedisJobsConfig config, JobLimits limits, PageWorkers workers, int window,
                     std::vector<std::string> model_names, document::InputLimits input_limits)
    : config_(std::move(config)),
      limits_(limits),
      workers_(std::move(workers)),
      window_(std::max(1, window)),
      model_names_(std::move(model_names)),
      input_limits_(input_limits),
      replica_(NewJobId().substr(0, 12)),
      pool_(config_.endpoint, kConnectTimeout, kRetryAfter),
      inbox_(std::make_shared<Inbox>()) {}

RedisJobs::~RedisJobs() {
  Stop();
}

JobStoreFacts RedisJobs::Facts() const {
  return {true,
          config_.endpoint.Redacted(),
          std::chrono::duration<double>(config_.lease).count(),
          config_.max_result_bytes,
          {}};
}

Status RedisJobs::Health() const {
  if (pool_.healthy())
    return Status::Ok();
  return Explained(Status(StatusCode::kUnavailable, pool_.last_error()));
}

Status RedisJobs::Explained(const Status& status) const {
  if (status.code() != StatusCode::kUnavailable)
    return status;
  return {StatusCode::kUnavailable,
          "the job store is unavailable: " + pool_.last_error() +
              "; job routes answer again by themselves when Redis is back, and POST /ocr works "
              "meanwhile"};
}

int RedisJobs::in_flight() const {
  return in_flight_.load();
}

Result<RedisReply> RedisJobs::Eval(std::string_view script,
                                   const std::vector<std::string_view>& args) {
  const std::string text = std::string(internal::kPrelude) + std::string(script);
  std::vector<std::string_view> command = {"EVAL", text, "0"};
  command.insert(command.end(), args.begin(), args.end());
  return pool_.Command(command);
}

Result<std::string> RedisJobs::Create(JobInput input) {
  // The document was opened to refuse a bad one at once and count its pages; the replicas that
  // read its pages open it again from Redis.
  SharedJobSpec spec;
  spec.model = std::move(input.model);
  spec.answer = input.answer;
  spec.options = std::move(input.options);
  Result<std::string> id = Submit(input.file, spec, input.reader->page_count(),
                                  static_cast<int>(input.reader->pages().size()));
  if (!id.ok())
    return Explained(id.status());
  return id;
}

Result<std::string> RedisJobs::Submit(std::string_view upload, const SharedJobSpec& spec,
                                      int page_count, int pages_total) {
  const std::string id = NewJobId();
  const std::string max_jobs = std::to_string(limits_.max_jobs);
  const std::string ttl = std::to_string(milliseconds(limits_.ttl).count());
  const std::string timeout = std::to_string(milliseconds(limits_.timeout).count());
  const std::string pages = std::to_string(page_count);
  const std::string total = std::to_string(pages_total);
  const std::string spec_json = EncodeJobSpec(spec);
  const std::string max_bytes = std::to_string(config_.max_result_bytes);
  OCR_ASSIGN_OR_RETURN(RedisReply admitted,
                       Eval(internal::kCreate, {id, max_jobs, ttl, timeout, pages, total, spec_json,
                                                max_bytes, upload}));
  if (admitted.integer == 0) {
    return Status(StatusCode::kResourceExhausted,
                  std::to_string(limits_.max_jobs) +
                      " jobs are unfinished across the replicas (--max-jobs); retry later");
  }
  inbox_->Poke();  // this replica may have idle workers: claim now
  return id;
}

Result<RedisJobs::StoredJob> RedisJobs::Lookup(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(RedisReply reply, pool_.Command({"HGETALL", JobKey(id)}));
  const auto f = FieldsOf(reply);
  if (f.empty())
    return NotFound(id);
  auto get = [&f](std::string_view name) -> std::string_view {
    const auto it = f.find(name);
    return it == f.end() ? std::string_view() : std::string_view(it->second);
  };
  StoredJob job;
  OCR_ASSIGN_OR_RETURN(job.spec, DecodeJobSpec(get("spec")));
  JobInfo& info = job.info;
  info.id = std::string(id);
  info.answer = job.spec.answer;
  JobSnapshot& s = info.snapshot;
  s.state = StateFrom(get("state"));
  s.page_count = static_cast<int>(ToInt(get("page_count")));
  s.pages_total = static_cast<int>(ToInt(get("pages_total")));
  s.pages_done = static_cast<int>(ToInt(get("pages_done")));
  s.created = TimeOf(get("created")).value_or(SysClock::time_point());
  s.started = TimeOf(get("started"));
  s.finished = TimeOf(get("finished"));
  if (!get("error_code").empty())
    s.error = Status(internal::CodeFromStored(get("error_code")), std::string(get("error")));
  const SysClock::time_point end = s.finished.value_or(SysClock::now());
  info.seconds = std::max(0.0, std::chrono::duration<double>(end - s.created).count());
  return job;
}

Result<JobInfo> RedisJobs::Find(std::string_view id) {
  Result<StoredJob> job = Lookup(id);
  if (!job.ok())
    return Explained(job.status());
  return std::move(job->info);
}

Result<JobInfo> RedisJobs::Delete(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(JobInfo before, Find(id));
  Result<RedisReply> state =
      Eval(internal::kDelete, {id, "cancelled by DELETE /jobs/" + std::string(id)});
  if (!state.ok())
    return Explained(state.status());
  if (state->nil())
    return NotFound(id);
  if (!IsFinished(StateFrom(state->str))) {
    Result<JobInfo> after = Find(id);
    if (after.ok())
      return after;
  }
  return before;
}

Result<JobOutcome> RedisJobs::Outcome(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(JobInfo info, Find(id));
  JobOutcome outcome;
  outcome.info = std::move(info);
  const JobSnapshot& snap = outcome.info.snapshot;
  if (snap.state != JobState::kSucceeded)
    return outcome;
  Result<RedisReply> reply = pool_.Command({"HGETALL", JobKey(id) + ":pages"});
  if (!reply.ok())
    return Explained(reply.status());
  std::map<std::size_t, std::string> stored;
  for (auto& [index, text] : FieldsOf(*reply))
    stored.emplace(static_cast<std::size_t>(ToInt(index)), std::move(text));
  OCR_ASSIGN_OR_RETURN(outcome.document,
                       DecodeDocument(snap.page_count, snap.pages_total, stored, "Redis"));
  return outcome;
}

Result<JobSource> RedisJobs::Source(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(JobInfo info, Find(id));
  Result<RedisReply> upload = pool_.Command({"GET", JobKey(id) + ":upload"});
  if (!upload.ok())
    return Explained(upload.status());
  if (upload->nil())
    return Status(StatusCode::kUnavailable, "the job's document is gone from Redis");
  auto bytes = std::make_shared<const std::string>(std::move(upload->str));
  const std::string_view file = *bytes;
  return JobSource{std::move(info), std::move(bytes), file};
}

Result<std::shared_ptr<JobView>> RedisJobs::Follow(std::string_view id, std::size_t cursor) {
  OCR_ASSIGN_OR_RETURN(JobInfo job, Find(id));
  Result<RedisReply> length = pool_.Command({"LLEN", JobKey(id) + ":events"});
  if (!length.ok())
    return Explained(length.status());
  // An id past the log (made up, or from another job) resumes from its end.
  const std::size_t base = std::min(cursor, static_cast<std::size_t>(length->integer));
  auto followed = std::make_shared<FollowedJob>(job, base);
  UpdateOne(*followed);  // what is there now, so a finished job's stream is complete at once
  MutexLock lock(&followed_mu_);
  followed_.push_back(followed);
  return std::shared_ptr<JobView>(followed);
}

void RedisJobs::UpdateOne(FollowedJob& job) {
  const std::string key = JobKey(job.id());
  Result<RedisReply> log =
      pool_.Command({"LRANGE", key + ":events", std::to_string(job.position()), "-1"});
  if (!log.ok())
    return;  // Redis is down: the stream waits (its heartbeats go on)
  std::vector<JobEvent> events;
  std::map<std::size_t, document::DocumentPage> pages;
  for (const RedisReply& entry : log->elements) {
    const std::string_view e = entry.str;
    JobEvent event;
    if (e.starts_with('p')) {
      event.pages_done = static_cast<int>(ToInt(e.substr(1)));
    } else if (e.starts_with('g')) {
      event.kind = JobEvent::Kind::kPage;
      event.index = static_cast<std::size_t>(ToInt(e.substr(1)));
      Result<RedisReply> stored =
          pool_.Command({"HGET", key + ":pages", std::to_string(event.index)});
      if (!stored.ok())
        break;  // read the rest next time
      Result<document::DocumentPage> page = DecodePage(stored->str);
      if (!page.ok())
        break;
      pages.emplace(event.index, std::move(page).value());
    } else {
      event.kind = JobEvent::Kind::kEnd;
    }
    events.push_back(event);
  }
  Result<StoredJob> now = Lookup(job.id());
  JobSnapshot snapshot = job.Snapshot();
  if (now.ok()) {
    snapshot = now->info.snapshot;
  } else if (now.status().code() == StatusCode::kNotFound && !job.ended() &&
             (events.empty() || events.back().kind != JobEvent::Kind::kEnd)) {
    // The job's keys are gone before its end: deleted, expired, or lost with Redis's data.
    snapshot.state = JobState::kFailed;
    snapshot.error = Status(StatusCode::kUnavailable,
                            "the job is gone from the job store (Redis restarted without its "
                            "data, or the job expired); send the document again");
    events.push_back({JobEvent::Kind::kEnd, 0, snapshot.pages_done});
  } else if (!now.ok()) {
    return;
  }
  if (!events.empty() || snapshot.state != job.Snapshot().state)
    job.Add(events, std::move(pages), snapshot);
}

void RedisJobs::UpdateFollowed() {
  std::vector<std::shared_ptr<FollowedJob>> live;
  {
    MutexLock lock(&followed_mu_);
    std::erase_if(followed_, [](const std::weak_ptr<FollowedJob>& w) { return w.expired(); });
    for (const auto& weak : followed_) {
      if (auto job = weak.lock(); job && !job->ended())
        live.push_back(std::move(job));
    }
  }
  for (const auto& job : live)
    UpdateOne(*job);
}

}  // namespace ocr::jobs
