// RedisJobs' claim loop: the pages this replica claims from the queue, reads on its scheduler,
// stores, renews and hands back (the protocol is in redis_jobs.h).
#include <algorithm>
#include <array>
#include <exception>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "jobs/document_memory.h"
#include "jobs/internal/redis_claim.h"
#include "jobs/internal/redis_scripts.h"
#include "jobs/page_codec.h"
#include "jobs/redis_jobs.h"

namespace ocr::jobs {
namespace {

using Clock = std::chrono::steady_clock;
using internal::JobKey;
using internal::ToInt;
using std::chrono::milliseconds;

// The claim loop's period when nothing wakes it (a page finished, a job submitted here): the
// longest an idle replica takes to notice a new job's pages, or to claim again after the memory
// budget was full.
constexpr milliseconds kTick{100};
// How often a replica asks whether the jobs it works on were cancelled or failed elsewhere.
constexpr milliseconds kCancelPoll{200};
// How often a replica puts expired leases back and fails jobs past --job-timeout (every replica
// does; the scripts are idempotent).
constexpr milliseconds kReapEvery{1000};
// How often followed jobs (GET /jobs/{id}/events) read their new events.
constexpr milliseconds kFollowPoll{100};
// Documents a replica keeps open (upload + PDF structure) for the next pages of their jobs.
constexpr std::size_t kOpenDocuments = 4;
// At shutdown, how long pages stopped mid-read get to return before their claims are handed back.
constexpr milliseconds kStopWait{5000};
// A page read while Redis is down is kept this long for Redis to come back; after it, its lease
// has long expired and another replica reads the page.
constexpr milliseconds kKeepUnstored{60'000};

}  // namespace

void RedisJobs::Start() {
  loop_ = std::jthread([this](const std::stop_token& stop) { Loop(stop); });
}

void RedisJobs::StopAdmitting() {
  claiming_.store(false);  // pages in flight finish; other replicas take the rest
}

void RedisJobs::Abandon(const Status& /*why*/) {
  Stop();  // the pages go back to the queue: the jobs go on elsewhere
}

void RedisJobs::Stop() {
  claiming_.store(false);
  if (!loop_.joinable())
    return;
  loop_.request_stop();
  inbox_->Poke();
  loop_.join();
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
    Result<RedisReply> reply = Eval(internal::kClaim, {lease, name});
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
      in_flight_.fetch_sub(1);
      if (why.code() == StatusCode::kResourceExhausted) {
        (void)Eval(internal::kRelease, {claim.member});  // the budget is full: claim later
        return;
      }
      if (why.code() == StatusCode::kCancelled || why.code() == StatusCode::kUnavailable) {
        // The job ended, or Redis went: not the page's fault.
        (void)Eval(internal::kRelease, {claim.member});
      } else {
        spdlog::warn("job {}: cannot read its document here: {}", claim.id, why.message());
        (void)Eval(internal::kFail,
                   {claim.member, internal::StoredCode(why.code()), why.message()});
      }
      continue;
    }
    claim.document = std::move(document).value();
    if (!StartPage(std::move(claim), Clock::now() + left))
      return;
  }
}

bool RedisJobs::StartPage(Claim claim, Clock::time_point deadline) {
  // One page of the document in flight here; the budget is never exceeded: a page it cannot
  // hold now goes back to the queue's head (another replica may read it), and this replica
  // claims again when one of its pages is done (or at the next tick).
  Result<std::optional<sched::MemoryBudget::Lease>> lease =
      ReserveDocumentMemory(workers_.memory_budget, *claim.document->reader, 1);
  if (!lease.ok()) {
    const Status& why = lease.status();
    in_flight_.fetch_sub(1);
    if (why.code() == StatusCode::kResourceExhausted) {
      (void)Eval(internal::kRelease, {claim.member});
      return false;
    }
    // Too large for the whole budget (or unreadable): no replica with this budget reads it.
    (void)Eval(internal::kFail, {claim.member, internal::StoredCode(why.code()), why.message()});
    return true;
  }
  if (lease->has_value())
    claim.page_lease.emplace(std::move(**lease));
  sched::Job job;
  job.priority = sched::Priority::kBackground;
  job.deadline = deadline;
  job.cancel = claim.stop.get_token();
  // The page holds what it uses (the inbox, the document, the pipelines' list), nothing of this
  // object: it may return after Stop() stopped waiting for it.
  const std::shared_ptr<Inbox> inbox = inbox_;
  job.run = [inbox, member = claim.member, document = claim.document, index = claim.index,
             stop = claim.stop.get_token(), groups = workers_.group_pipelines,
             page_read = workers_.page_read](sched::WorkerContext& worker) mutable {
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
    // The document (and its upload's lease on the budget) is let go before the page is handed
    // in: from then on the replica may finish the job and be destroyed with its budget, while
    // this job object lives on in the scheduler a moment longer.
    document.reset();
    inbox->Put({member, std::move(page), Clock::now()});
  };
  job.dropped = [inbox, member = claim.member](const Status& why) {
    inbox->Put({member, why, Clock::now()});
  };
  const std::string member = claim.member;
  claims_.emplace(member, std::move(claim));
  if (Status submitted = workers_.scheduler->Submit(std::move(job)); !submitted.ok())
    inbox_->Put({member, submitted, Clock::now()});
  return true;
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
      stored = Eval(internal::kComplete, {c.member, page}).status();
    } else if (c.page.status().code() == StatusCode::kCancelled) {
      // Stopped here (cancelled elsewhere, or shutting down): back to the queue if still needed.
      stored = Eval(internal::kRelease, {c.member}).status();
    } else {
      const Status& why = c.page.status();
      const bool timed_out = why.code() == StatusCode::kDeadlineExceeded;
      const std::string message =
          timed_out ? "the document took longer than --job-timeout; its work was stopped"
                    : why.message();
      if (why.code() == StatusCode::kInternal)
        spdlog::error("job page {}: {}", c.member, why.ToString());
      stored =
          Eval(internal::kFail, {c.member, internal::StoredCode(why.code()), message}).status();
    }
    if (stored.code() == StatusCode::kUnavailable && Clock::now() - c.read_at < kKeepUnstored &&
        !loop_.get_stop_token().stop_requested()) {
      unstored.push_back(std::move(c));  // Redis is down: try again when it is back
      continue;
    }
    if (!stored.ok() && stored.code() != StatusCode::kUnavailable)
      spdlog::warn("job store: storing page {} failed: {}", c.member, stored.message());
    claims_.erase(c.member);  // and its memory with it
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
  (void)Eval(internal::kRenew, args);
}

void RedisJobs::PollCancellations() {
  std::set<std::string> ids;
  for (const auto& [member, claim] : claims_)
    ids.insert(claim.id);
  // Documents of jobs that ended are dropped too.
  for (const auto& [id, document] : documents_)
    ids.insert(id);
  if (ids.empty())
    return;
  std::vector<std::string_view> args(ids.begin(), ids.end());
  Result<RedisReply> states = Eval(internal::kStates, args);
  if (!states.ok() || states->elements.size() != ids.size())
    return;
  std::size_t i = 0;
  for (const std::string& id : ids) {
    const std::string& state = states->elements[i++].str;
    if (!state.empty() && !IsFinished(internal::StateFrom(state)))
      continue;
    for (auto& [member, claim] : claims_) {
      if (claim.id == id)
        claim.stop.request_stop();
    }
    documents_.erase(id);  // claims still reading it hold their own reference
  }
}

void RedisJobs::Reap() {
  Result<RedisReply> reaped = Eval(internal::kReap, {});
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
  if (Eval(internal::kRelease, members).ok())
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
  OCR_ASSIGN_OR_RETURN(document->spec, DecodeJobSpec(spec_json));
  OCR_ASSIGN_OR_RETURN(document->pipeline, ModelIndex(document->spec, model_names_));
  OCR_ASSIGN_OR_RETURN(RedisReply upload, pool_.Command({"GET", JobKey(id) + ":upload"}));
  if (upload.nil())
    return Status(StatusCode::kCancelled, "the job's upload is gone (the job expired)");
  // The upload is held while the document is open; its pages' memory is reserved per claim.
  OCR_ASSIGN_OR_RETURN(
      auto upload_lease,
      ReserveBytes(workers_.memory_budget, static_cast<std::int64_t>(upload.str.size())));
  if (upload_lease)
    document->upload_lease.emplace(std::move(*upload_lease));
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
