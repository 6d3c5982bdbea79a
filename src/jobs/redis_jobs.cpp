#include "jobs/redis_jobs.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <exception>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "jobs/page_codec.h"

namespace ocr::jobs {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using SysClock = std::chrono::system_clock;
using std::chrono::milliseconds;

// The claim loop's period when nothing wakes it (a page finished, a job submitted here): the
// longest an idle replica takes to notice a new job's pages.
constexpr milliseconds kTick{100};
// How often a replica asks whether the jobs it works on were cancelled or failed elsewhere.
constexpr milliseconds kCancelPoll{200};
// How often a replica puts expired leases back and fails jobs past --job-timeout (every replica
// does; the scripts are idempotent).
constexpr milliseconds kReapEvery{1000};
// How often followed jobs (GET /jobs/{id}/events) read their new events.
constexpr milliseconds kFollowPoll{100};
// A reachable Redis answers a connect on a private network in well under this.
constexpr milliseconds kConnectTimeout{500};
// While Redis is unreachable, one connect attempt per this; other calls fail at once.
constexpr milliseconds kRetryAfter{1000};
// Documents a replica keeps open (upload + PDF structure) for the next pages of their jobs.
constexpr std::size_t kOpenDocuments = 4;
// At shutdown, how long pages stopped mid-read get to return before their claims are handed back.
constexpr milliseconds kStopWait{5000};
// A page read while Redis is down is kept this long for Redis to come back; after it, its lease
// has long expired and another replica reads the page.
constexpr milliseconds kKeepUnstored{60'000};

// Shared by every script: the key prefix, Redis's clock (so replicas' clocks never matter) and
// the one way a job ends (its log's end event, its keys' expiry, its upload freed).
constexpr std::string_view kPrelude = R"lua(
local P = 'onnxocr:'
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live(state) return state == 'queued' or state == 'running' end
local function finish(id, state, code, message)
  local j = P .. 'job:' .. id
  redis.call('HSET', j, 'state', state, 'finished', now_ms(), 'error_code', code, 'error', message)
  redis.call('RPUSH', j .. ':events', 'e')
  redis.call('SREM', P .. 'unfinished', id)
  redis.call('DEL', j .. ':upload')
  local ttl = tonumber(redis.call('HGET', j, 'ttl_ms'))
  redis.call('PEXPIRE', j, ttl)
  redis.call('PEXPIRE', j .. ':events', ttl)
  redis.call('PEXPIRE', j .. ':pages', ttl)
end
-- "<id>:<index>[:<claim>]" -> id, index
local function task_of(member)
  local a = string.find(member, ':', 1, true)
  local b = string.find(member, ':', a + 1, true)
  return string.sub(member, 1, a - 1), string.sub(member, a + 1, (b or 0) - 1)
end
local function pending(id, index)
  local j = P .. 'job:' .. id
  return live(redis.call('HGET', j, 'state')) and redis.call('HEXISTS', j .. ':pages', index) == 0
end
)lua";

// ARGV: id, max_jobs, ttl_ms, timeout_ms, page_count, pages_total, spec, max_result_bytes,
// upload. 1 admitted, 0 at --max-jobs.
constexpr std::string_view kCreate = R"lua(
local id = ARGV[1]
if redis.call('SCARD', P .. 'unfinished') >= tonumber(ARGV[2]) then return 0 end
local j = P .. 'job:' .. id
local now = now_ms()
local expire = tonumber(ARGV[3]) + tonumber(ARGV[4])
redis.call('HSET', j, 'state', 'queued', 'created', now, 'page_count', ARGV[5],
           'pages_total', ARGV[6], 'pages_done', 0, 'next_emit', 0, 'result_bytes', 0,
           'max_result_bytes', ARGV[8], 'spec', ARGV[7], 'ttl_ms', ARGV[3],
           'deadline', now + tonumber(ARGV[4]), 'error_code', '', 'error', '')
redis.call('PEXPIRE', j, expire)
redis.call('SET', j .. ':upload', ARGV[9], 'PX', expire)
for i = 0, tonumber(ARGV[6]) - 1 do redis.call('RPUSH', P .. 'queue', id .. ':' .. i) end
redis.call('SADD', P .. 'unfinished', id)
return 1
)lua";

// ARGV: lease_ms, claim name. {id, index, lease member, spec, ms to the job's deadline} or nil.
// Pages of jobs that ended, or already read, are dropped from the queue on the way.
constexpr std::string_view kClaim = R"lua(
local now = now_ms()
for n = 1, 64 do
  local task = redis.call('LPOP', P .. 'queue')
  if not task then return false end
  local id, index = task_of(task)
  if pending(id, index) then
    local j = P .. 'job:' .. id
    if redis.call('HGET', j, 'state') == 'queued' then
      redis.call('HSET', j, 'state', 'running', 'started', now)
    end
    local member = task .. ':' .. ARGV[2]
    redis.call('ZADD', P .. 'leases', now + tonumber(ARGV[1]), member)
    local left = tonumber(redis.call('HGET', j, 'deadline')) - now
    return {id, index, member, redis.call('HGET', j, 'spec'), left}
  end
end
return false
)lua";

// ARGV: lease_ms, lease members. Only leases still held are renewed.
constexpr std::string_view kRenew = R"lua(
local expiry = now_ms() + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', P .. 'leases', 'XX', expiry, ARGV[i]) end
return 0
)lua";

// Expired leases back to the queue's head; jobs past their deadline failed; ids of ended or
// vanished jobs out of the unfinished set.
constexpr std::string_view kReap = R"lua(
local now = now_ms()
local expired = redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', now, 'LIMIT', 0, 256)
for _, member in ipairs(expired) do
  redis.call('ZREM', P .. 'leases', member)
  local id, index = task_of(member)
  if pending(id, index) then redis.call('LPUSH', P .. 'queue', id .. ':' .. index) end
end
for _, id in ipairs(redis.call('SMEMBERS', P .. 'unfinished')) do
  local j = P .. 'job:' .. id
  if not live(redis.call('HGET', j, 'state')) then
    redis.call('SREM', P .. 'unfinished', id)
  elseif tonumber(redis.call('HGET', j, 'deadline')) < now then
    finish(id, 'failed', 'deadline_exceeded',
           'the document took longer than --job-timeout; its work was stopped')
  end
end
return #expired
)lua";

// ARGV: lease members given up (shutdown, a stopped read): their pages back to the queue's head.
constexpr std::string_view kRelease = R"lua(
for i = 1, #ARGV do
  if redis.call('ZREM', P .. 'leases', ARGV[i]) == 1 then
    local id, index = task_of(ARGV[i])
    if pending(id, index) then redis.call('LPUSH', P .. 'queue', id .. ':' .. index) end
  end
end
return 0
)lua";

// ARGV: lease member, page. Stores the page once, logs progress and the pages now contiguous,
// ends the job after its last page. 1 stored, 0 not needed (the job ended, or read elsewhere).
constexpr std::string_view kComplete = R"lua(
local id, index = task_of(ARGV[1])
redis.call('ZREM', P .. 'leases', ARGV[1])
local j = P .. 'job:' .. id
if not live(redis.call('HGET', j, 'state')) then return 0 end
local pages = j .. ':pages'
if redis.call('HSETNX', pages, index, ARGV[2]) == 0 then return 0 end
local ttl = redis.call('PTTL', j)
if ttl > 0 then redis.call('PEXPIRE', pages, ttl) end
local limit = tonumber(redis.call('HGET', j, 'max_result_bytes'))
if redis.call('HINCRBY', j, 'result_bytes', #ARGV[2]) > limit then
  finish(id, 'failed', 'resource_exhausted', 'the results of this document passed ' ..
         math.floor(limit / 1048576) .. ' MB (--max-job-result-mb); send fewer pages at once')
  return 1
end
local events = j .. ':events'
redis.call('RPUSH', events, 'p' .. redis.call('HINCRBY', j, 'pages_done', 1))
local total = tonumber(redis.call('HGET', j, 'pages_total'))
local next = tonumber(redis.call('HGET', j, 'next_emit'))
while next < total and redis.call('HEXISTS', pages, next) == 1 do
  redis.call('RPUSH', events, 'g' .. next)
  next = next + 1
end
redis.call('HSET', j, 'next_emit', next)
if ttl > 0 then redis.call('PEXPIRE', events, ttl) end
if next == total then finish(id, 'succeeded', '', '') end
return 1
)lua";

// ARGV: lease member, error code, message. Fails the page's job.
constexpr std::string_view kFail = R"lua(
local id = task_of(ARGV[1])
redis.call('ZREM', P .. 'leases', ARGV[1])
if live(redis.call('HGET', P .. 'job:' .. id, 'state')) then finish(id, 'failed', ARGV[2], ARGV[3]) end
return 0
)lua";

// ARGV: id, message. Cancels an unfinished job or deletes a finished one; its state before, or
// nil when there is no such job.
constexpr std::string_view kDelete = R"lua(
local j = P .. 'job:' .. ARGV[1]
local state = redis.call('HGET', j, 'state')
if not state then return false end
if live(state) then
  finish(ARGV[1], 'cancelled', 'cancelled', ARGV[2])
else
  redis.call('DEL', j, j .. ':pages', j .. ':events', j .. ':upload')
end
return state
)lua";

// ARGV: job ids. Their states ("" for a job that is gone).
constexpr std::string_view kStates = R"lua(
local out = {}
for i = 1, #ARGV do out[i] = redis.call('HGET', P .. 'job:' .. ARGV[i], 'state') or '' end
return out
)lua";

std::string JobKey(std::string_view id) {
  return "onnxocr:job:" + std::string(id);
}

// A Status's code as stored with a failed job (StatusCodeName, which the scripts write too), and
// back, so a job failed on one replica reads the same on another.
std::string StoredCode(StatusCode code) {
  return std::string(StatusCodeName(code));
}

StatusCode CodeFromStored(std::string_view name) {
  for (int c = 0; c <= static_cast<int>(StatusCode::kInternal); ++c) {
    const auto code = static_cast<StatusCode>(c);
    if (StatusCodeName(code) == name)
      return code;
  }
  return StatusCode::kInternal;
}

std::int64_t ToInt(std::string_view text) {
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

std::optional<SysClock::time_point> TimeOf(std::string_view ms) {
  const std::int64_t v = ToInt(ms);
  if (v <= 0)
    return std::nullopt;
  return SysClock::time_point(milliseconds(v));
}

JobState StateFrom(std::string_view name) {
  for (JobState s : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded, JobState::kFailed,
                     JobState::kCancelled}) {
    if (StateName(s) == name)
      return s;
  }
  return JobState::kFailed;
}

std::string EncodeSpec(const SharedJobSpec& spec) {
  const document::DocumentOptions& o = spec.options;
  const Json j = {{"model", spec.model},
                  {"format", document::OutputFormatName(spec.format)},
                  {"paginate", spec.paginate},
                  {"cls", o.ocr.use_cls},
                  {"drop_score", o.ocr.drop_score},
                  {"word_boxes", o.ocr.word_boxes},
                  {"det_limit_side_len", o.ocr.det.limit_side_len},
                  {"det_limit_type", pipeline::LimitTypeName(o.ocr.det.limit_type)},
                  {"text_normalization", o.ocr.text_normalization},
                  {"force_ocr", o.force_ocr},
                  {"page_range", o.page_range}};
  return j.dump();
}

Result<SharedJobSpec> DecodeSpec(std::string_view text) {
  try {
    const Json j = Json::parse(text);
    SharedJobSpec spec;
    spec.model = j.at("model").get<std::string>();
    OCR_ASSIGN_OR_RETURN(spec.format,
                         document::ParseOutputFormat(j.at("format").get<std::string>()));
    spec.paginate = j.at("paginate").get<bool>();
    spec.options.ocr.use_cls = j.at("cls").get<bool>();
    spec.options.ocr.drop_score = j.at("drop_score").get<float>();
    spec.options.ocr.word_boxes = j.at("word_boxes").get<bool>();
    // Absent from the specs of replicas older than these options: the defaults they read with.
    pipeline::DetOptions& det = spec.options.ocr.det;
    det.limit_side_len = j.value("det_limit_side_len", pipeline::DetOptions{}.limit_side_len);
    if (det.limit_side_len < pipeline::kMinDetLimitSideLen ||
        det.limit_side_len > pipeline::kMaxDetSide) {
      return Status(StatusCode::kInternal, "a job's det_limit_side_len is out of range");
    }
    const std::optional<pipeline::LimitType> type =
        pipeline::ParseLimitType(j.value("det_limit_type", std::string("max")));
    if (!type)
      return Status(StatusCode::kInternal, "a job's det_limit_type is unknown");
    det.limit_type = *type;
    spec.options.ocr.text_normalization = j.value("text_normalization", false);
    spec.options.force_ocr = j.at("force_ocr").get<bool>();
    spec.options.page_range = j.at("page_range").get<std::string>();
    return spec;
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal,
                  std::string("a stored job spec does not decode (") + e.what() + ")");
  }
}

// HGETALL's flat array as a map.
std::map<std::string, std::string, std::less<>> FieldsOf(const RedisReply& reply) {
  std::map<std::string, std::string, std::less<>> fields;
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2)
    fields[reply.elements[i].str] = reply.elements[i + 1].str;
  return fields;
}

Result<SharedJob> JobFromFields(std::string_view id,
                                const std::map<std::string, std::string, std::less<>>& f) {
  auto get = [&f](std::string_view name) -> std::string_view {
    const auto it = f.find(name);
    return it == f.end() ? std::string_view() : std::string_view(it->second);
  };
  SharedJob job;
  job.id = std::string(id);
  JobSnapshot& s = job.snapshot;
  s.state = StateFrom(get("state"));
  s.page_count = static_cast<int>(ToInt(get("page_count")));
  s.pages_total = static_cast<int>(ToInt(get("pages_total")));
  s.pages_done = static_cast<int>(ToInt(get("pages_done")));
  s.created = TimeOf(get("created")).value_or(SysClock::time_point());
  s.started = TimeOf(get("started"));
  s.finished = TimeOf(get("finished"));
  if (!get("error_code").empty())
    s.error = Status(CodeFromStored(get("error_code")), std::string(get("error")));
  OCR_ASSIGN_OR_RETURN(job.spec, DecodeSpec(get("spec")));
  const SysClock::time_point end = s.finished.value_or(SysClock::now());
  job.seconds = std::max(0.0, std::chrono::duration<double>(end - s.created).count());
  return job;
}

Status NotFound(std::string_view id) {
  return {StatusCode::kNotFound, "no job " + std::string(id)};
}

}  // namespace

// A page claimed by this replica: the lease it holds, the document it reads, its stop.
struct RedisJobs::Claim {
  std::string member;  // the lease's member in onnxocr:leases
  std::string id;
  std::size_t index = 0;
  std::shared_ptr<OpenDocument> document;
  std::stop_source stop;
};

struct RedisJobs::OpenDocument {
  std::string upload;
  SharedJobSpec spec;
  std::size_t pipeline = 0;
  std::unique_ptr<document::PageReader> reader;
  Clock::time_point used;
};

struct RedisJobs::Completion {
  std::string member;
  Result<document::DocumentPage> page;
  Clock::time_point read_at;
};

// Where workers leave the pages they read for the loop to store; held by the pages' callbacks
// too, so a page that returns after the loop stopped touches nothing freed.
struct RedisJobs::Inbox {
  Mutex mu;
  CondVar wake;
  std::vector<Completion> completions GUARDED_BY(mu);
  bool poke GUARDED_BY(mu) = false;  // a job was submitted, or Stop(): run the loop now

  void Put(Completion c) EXCLUDES(mu) {
    {
      MutexLock lock(&mu);
      completions.push_back(std::move(c));
    }
    wake.Signal();
  }
};

// A job in Redis as this replica follows it for an event stream: its log from `base` on and the
// pages of its page events, read by the claim loop.
class RedisJobs::FollowedJob final : public JobView {
 public:
  FollowedJob(const SharedJob& job, std::size_t base)
      : id_(job.id),
        word_boxes_(job.spec.options.ocr.word_boxes),
        base_(base),
        snapshot_(job.snapshot) {}

  const std::string& id() const override { return id_; }

  bool word_boxes() const override { return word_boxes_; }

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
  const bool word_boxes_;
  const std::size_t base_;
  mutable Mutex mu_;
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

void RedisJobs::Start() {
  loop_ = std::jthread([this](const std::stop_token& stop) { Loop(stop); });
}

void RedisJobs::StopClaiming() {
  claiming_.store(false);
}

void RedisJobs::Stop() {
  claiming_.store(false);
  if (!loop_.joinable())
    return;
  loop_.request_stop();
  {
    MutexLock lock(&inbox_->mu);
    inbox_->poke = true;
  }
  inbox_->wake.SignalAll();
  loop_.join();
}

bool RedisJobs::available() const {
  return pool_.healthy();
}

std::string RedisJobs::unavailable_reason() const {
  return "the job store is unavailable: " + pool_.last_error();
}

int RedisJobs::in_flight() const {
  return in_flight_.load();
}

Result<RedisReply> RedisJobs::Eval(std::string_view script,
                                   const std::vector<std::string_view>& args) {
  const std::string text = std::string(kPrelude) + std::string(script);
  std::vector<std::string_view> command = {"EVAL", text, "0"};
  command.insert(command.end(), args.begin(), args.end());
  return pool_.Command(command);
}

Result<std::string> RedisJobs::Submit(std::string_view upload, const SharedJobSpec& spec,
                                      int page_count, int pages_total) {
  const std::string id = NewJobId();
  const std::string max_jobs = std::to_string(limits_.max_jobs);
  const std::string ttl = std::to_string(milliseconds(limits_.ttl).count());
  const std::string timeout = std::to_string(milliseconds(limits_.timeout).count());
  const std::string pages = std::to_string(page_count);
  const std::string total = std::to_string(pages_total);
  const std::string spec_json = EncodeSpec(spec);
  const std::string max_bytes = std::to_string(config_.max_result_bytes);
  OCR_ASSIGN_OR_RETURN(RedisReply admitted, Eval(kCreate, {id, max_jobs, ttl, timeout, pages, total,
                                                           spec_json, max_bytes, upload}));
  if (admitted.integer == 0) {
    return Status(StatusCode::kResourceExhausted,
                  std::to_string(limits_.max_jobs) +
                      " jobs are unfinished across the replicas (--max-jobs); retry later");
  }
  {
    MutexLock lock(&inbox_->mu);
    inbox_->poke = true;  // this replica may have idle workers: claim now
  }
  inbox_->wake.Signal();
  return id;
}

Result<SharedJob> RedisJobs::Find(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(RedisReply reply, pool_.Command({"HGETALL", JobKey(id)}));
  const auto fields = FieldsOf(reply);
  if (fields.empty())
    return NotFound(id);
  return JobFromFields(id, fields);
}

Result<SharedJob> RedisJobs::Delete(std::string_view id) {
  OCR_ASSIGN_OR_RETURN(SharedJob before, Find(id));
  OCR_ASSIGN_OR_RETURN(RedisReply state,
                       Eval(kDelete, {id, "cancelled by DELETE /jobs/" + std::string(id)}));
  if (state.nil())
    return NotFound(id);
  if (!IsFinished(StateFrom(state.str))) {
    Result<SharedJob> after = Find(id);
    if (after.ok())
      return after;
  }
  return before;
}

Result<document::DocumentResult> RedisJobs::ReadResult(const SharedJob& job) {
  OCR_ASSIGN_OR_RETURN(RedisReply reply, pool_.Command({"HGETALL", JobKey(job.id) + ":pages"}));
  const auto fields = FieldsOf(reply);
  document::DocumentResult result;
  result.page_count = job.snapshot.page_count;
  result.pages.resize(static_cast<std::size_t>(job.snapshot.pages_total));
  if (fields.size() != result.pages.size()) {
    return Status(StatusCode::kUnavailable, "the job's pages are gone from Redis (" +
                                                std::to_string(fields.size()) + " of " +
                                                std::to_string(result.pages.size()) + " left)");
  }
  for (const auto& [index, text] : fields) {
    const auto i = static_cast<std::size_t>(ToInt(index));
    if (i >= result.pages.size())
      return Status(StatusCode::kInternal, "a stored page index is out of range");
    OCR_ASSIGN_OR_RETURN(result.pages[i], DecodePage(text));
  }
  return result;
}

Result<std::shared_ptr<JobView>> RedisJobs::Follow(std::string_view id, std::size_t cursor) {
  OCR_ASSIGN_OR_RETURN(SharedJob job, Find(id));
  OCR_ASSIGN_OR_RETURN(RedisReply length, pool_.Command({"LLEN", JobKey(id) + ":events"}));
  // An id past the log (made up, or from another job) resumes from its end.
  const std::size_t base = std::min(cursor, static_cast<std::size_t>(length.integer));
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
  Result<SharedJob> now = Find(job.id());
  JobSnapshot snapshot = job.Snapshot();
  if (now.ok()) {
    snapshot = now->snapshot;
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

void RedisJobs::Loop(const std::stop_token& stop) {
  // What the loop does besides claiming, each on its own period.
  struct Periodic {
    milliseconds every;
    void (RedisJobs::*run)();
    Clock::time_point next;
  };

  std::array<Periodic, 4> periodic = {{
      {std::max(milliseconds(50), config_.lease / 4), &RedisJobs::RenewLeases, {}},
      {kCancelPoll, &RedisJobs::PollCancellations, {}},
      {kReapEvery, &RedisJobs::Reap, {}},
      {kFollowPoll, &RedisJobs::UpdateFollowed, {}},
  }};
  while (!stop.stop_requested()) {
    FinishPages();
    const Clock::time_point now = Clock::now();
    for (Periodic& task : periodic) {
      if (now >= task.next) {
        (this->*task.run)();
        task.next = now + task.every;
      }
    }
    ClaimPages();
    MutexLock lock(&inbox_->mu);
    if (inbox_->completions.empty() && !inbox_->poke)
      inbox_->wake.WaitFor(&inbox_->mu, kTick);
    inbox_->poke = false;
  }
  // Shutdown: stop what runs, store what finished, hand the rest back for other replicas.
  for (auto& [member, claim] : claims_)
    claim.stop.request_stop();
  const Clock::time_point give_up = Clock::now() + kStopWait;
  while (in_flight_.load() > static_cast<int>(0) && Clock::now() < give_up) {
    FinishPages();
    if (claims_.empty())
      break;
    MutexLock lock(&inbox_->mu);
    if (inbox_->completions.empty())
      inbox_->wake.WaitFor(&inbox_->mu, milliseconds(20));
  }
  HandBack();
}

void RedisJobs::ClaimPages() {
  const std::string lease = std::to_string(config_.lease.count());
  while (claiming_.load() && in_flight_.load() < window_) {
    const std::string name = replica_ + "-" + std::to_string(++claim_counter_);
    Result<RedisReply> reply = Eval(kClaim, {lease, name});
    if (!reply.ok()) {
      if (reply.status().code() != StatusCode::kUnavailable)
        spdlog::warn("job store: claiming a page failed: {}", reply.status().message());
      return;
    }
    if (reply->nil() || reply->elements.size() != 5)
      return;  // the queue is empty
    Claim claim;
    claim.id = reply->elements[0].str;
    claim.index = static_cast<std::size_t>(ToInt(reply->elements[1].str));
    claim.member = reply->elements[2].str;
    const milliseconds left(std::max<std::int64_t>(0, reply->elements[4].integer));
    in_flight_.fetch_add(1);
    Result<std::shared_ptr<OpenDocument>> document = OpenJob(claim.id, reply->elements[3].str);
    if (!document.ok()) {
      const Status& why = document.status();
      if (why.code() == StatusCode::kCancelled || why.code() == StatusCode::kUnavailable) {
        (void)Eval(kRelease, {claim.member});  // the job ended, or Redis went: not the page's fault
      } else {
        spdlog::warn("job {}: cannot read its document here: {}", claim.id, why.message());
        (void)Eval(kFail, {claim.member, StoredCode(why.code()), why.message()});
      }
      in_flight_.fetch_sub(1);
      continue;
    }
    claim.document = std::move(document).value();
    StartPage(std::move(claim), Clock::now() + left);
  }
}

void RedisJobs::StartPage(Claim claim, Clock::time_point deadline) {
  sched::Job job;
  job.priority = sched::Priority::kBackground;
  job.deadline = deadline;
  job.cancel = claim.stop.get_token();
  // The page holds what it uses (the inbox, the document, the pipelines' list), nothing of this
  // object: it may return after Stop() stopped waiting for it.
  const std::shared_ptr<Inbox> inbox = inbox_;
  job.run = [inbox, member = claim.member, document = claim.document, index = claim.index,
             stop = claim.stop.get_token(), groups = workers_.group_pipelines,
             page_read = workers_.page_read](sched::WorkerContext& worker) {
    Result<document::DocumentPage> page = Cancelled();
    try {
      const pipeline::Pipeline* pipe =
          groups.at(static_cast<std::size_t>(worker.group)).at(document->pipeline);
      page = document->reader->Read(index, *pipe, stop, &worker.runner);
    } catch (const std::exception& e) {
      page = Status(StatusCode::kInternal, std::string("reading a page threw: ") + e.what());
    }
    if (page.ok() && page_read)
      page_read(*page);
    inbox->Put({member, std::move(page), Clock::now()});
  };
  job.dropped = [inbox, member = claim.member](const Status& why) {
    inbox->Put({member, why, Clock::now()});
  };
  const std::string member = claim.member;
  claims_.emplace(member, std::move(claim));
  if (Status submitted = workers_.scheduler->Submit(std::move(job)); !submitted.ok())
    inbox_->Put({member, submitted, Clock::now()});
}

void RedisJobs::FinishPages() {
  std::vector<Completion> done;
  {
    MutexLock lock(&inbox_->mu);
    done.swap(inbox_->completions);
  }
  std::vector<Completion> unstored;
  for (Completion& c : done) {
    Status stored;
    if (c.page.ok()) {
      const std::string page = EncodePage(*c.page);
      stored = Eval(kComplete, {c.member, page}).status();
    } else if (c.page.status().code() == StatusCode::kCancelled) {
      // Stopped here (cancelled elsewhere, or shutting down): back to the queue if still needed.
      stored = Eval(kRelease, {c.member}).status();
    } else {
      const Status& why = c.page.status();
      const bool timed_out = why.code() == StatusCode::kDeadlineExceeded;
      const std::string message =
          timed_out ? "the document took longer than --job-timeout; its work was stopped"
                    : why.message();
      if (why.code() == StatusCode::kInternal)
        spdlog::error("job page {}: {}", c.member, why.ToString());
      stored = Eval(kFail, {c.member, StoredCode(why.code()), message}).status();
    }
    if (stored.code() == StatusCode::kUnavailable && Clock::now() - c.read_at < kKeepUnstored &&
        !loop_.get_stop_token().stop_requested()) {
      unstored.push_back(std::move(c));  // Redis is down: try again when it is back
      continue;
    }
    if (!stored.ok() && stored.code() != StatusCode::kUnavailable)
      spdlog::warn("job store: storing page {} failed: {}", c.member, stored.message());
    claims_.erase(c.member);
    in_flight_.fetch_sub(1);
  }
  if (!unstored.empty()) {
    MutexLock lock(&inbox_->mu);
    inbox_->completions.insert(inbox_->completions.begin(),
                               std::make_move_iterator(unstored.begin()),
                               std::make_move_iterator(unstored.end()));
  }
  // Documents no claim reads any more, beyond the few kept for their jobs' next pages.
  while (documents_.size() > kOpenDocuments) {
    auto oldest = documents_.end();
    for (auto it = documents_.begin(); it != documents_.end(); ++it) {
      if (it->second.use_count() == 1 &&
          (oldest == documents_.end() || it->second->used < oldest->second->used)) {
        oldest = it;
      }
    }
    if (oldest == documents_.end())
      break;
    documents_.erase(oldest);
  }
}

void RedisJobs::RenewLeases() {
  if (claims_.empty())
    return;
  std::vector<std::string_view> args = {};
  const std::string lease = std::to_string(config_.lease.count());
  args.push_back(lease);
  for (const auto& [member, claim] : claims_)
    args.push_back(member);
  (void)Eval(kRenew, args);
}

void RedisJobs::PollCancellations() {
  std::set<std::string> ids;
  for (const auto& [member, claim] : claims_)
    ids.insert(claim.id);
  // Documents of jobs that ended are dropped too (their uploads are gone from Redis).
  for (const auto& [id, document] : documents_)
    ids.insert(id);
  if (ids.empty())
    return;
  std::vector<std::string_view> args(ids.begin(), ids.end());
  Result<RedisReply> states = Eval(kStates, args);
  if (!states.ok() || states->elements.size() != ids.size())
    return;
  std::size_t i = 0;
  for (const std::string& id : ids) {
    const std::string& state = states->elements[i++].str;
    if (!state.empty() && !IsFinished(StateFrom(state)))
      continue;
    for (auto& [member, claim] : claims_) {
      if (claim.id == id)
        claim.stop.request_stop();
    }
    documents_.erase(id);  // claims still reading it hold their own reference
  }
}

void RedisJobs::Reap() {
  Result<RedisReply> reaped = Eval(kReap, {});
  if (reaped.ok() && reaped->integer > 0)
    spdlog::info("job store: {} expired page lease(s) put back in the queue", reaped->integer);
}

void RedisJobs::HandBack() {
  // Pages whose reads came back while stopping were handled by FinishPages; the rest go back.
  if (claims_.empty())
    return;
  std::vector<std::string_view> members;
  for (const auto& [member, claim] : claims_)
    members.push_back(member);
  if (Eval(kRelease, members).ok())
    spdlog::info("job store: handed {} page(s) back to the queue", members.size());
  in_flight_.fetch_sub(static_cast<int>(claims_.size()));
  claims_.clear();
}

Result<std::shared_ptr<RedisJobs::OpenDocument>> RedisJobs::OpenJob(const std::string& id,
                                                                    const std::string& spec_json) {
  if (auto it = documents_.find(id); it != documents_.end()) {
    it->second->used = Clock::now();
    return it->second;
  }
  auto document = std::make_shared<OpenDocument>();
  OCR_ASSIGN_OR_RETURN(document->spec, DecodeSpec(spec_json));
  const auto model = std::find(model_names_.begin(), model_names_.end(), document->spec.model);
  if (!document->spec.model.empty() && model == model_names_.end()) {
    return Status(StatusCode::kNotFound,
                  "the model set '" + document->spec.model + "' is not loaded on every replica");
  }
  document->pipeline =
      document->spec.model.empty() ? 0 : static_cast<std::size_t>(model - model_names_.begin());
  OCR_ASSIGN_OR_RETURN(RedisReply upload, pool_.Command({"GET", JobKey(id) + ":upload"}));
  if (upload.nil())
    return Status(StatusCode::kCancelled, "the job's upload is gone (the job ended)");
  document->upload = std::move(upload.str);
  document->spec.options.limits = input_limits_;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(document->upload.data());
  OCR_ASSIGN_OR_RETURN(
      document->reader,
      document::PageReader::Open({bytes, document->upload.size()}, document->spec.options));
  document->used = Clock::now();
  documents_.emplace(id, document);
  return document;
}

}  // namespace ocr::jobs
