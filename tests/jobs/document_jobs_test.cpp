// Long documents in process, with the real models on a real scheduler: the in-memory LocalJobs
// and its DocumentJobs (pages in order, the event log, cancellation, limits, expiry, the memory
// they reserve), and the pages a replica claims from Redis within its memory budget (against a
// real redis-server; skipped with a message when it is not installed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <opencv2/core/utility.hpp>

#include "common/text.h"
#include "image/test_images.h"
#include "jobs/job_test_fixture.h"
#include "jobs/local_jobs.h"
#include "jobs/redis_jobs.h"
#include "sched/memory_budget.h"
#include "sched/scheduler.h"
#include "support/default_pipeline.h"
#include "support/exact_lines.h"
#include "support/redis_process.h"
#include "support/status_matchers.h"

namespace ocr::jobs {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST_F(DocumentJobsTest, AJobReadsEveryPageInOrderAndLogsEachOnce) {
  sched::MemoryBudget budget(std::int64_t{2} << 30);
  LocalJobs store({}, Workers(&budget), scheduler_->worker_count());
  auto id = store.Create(Input());
  ASSERT_OK(id);
  EXPECT_TRUE(IsJobId(*id));
  EXPECT_GT(budget.reserved(), 0);  // the pages in flight, the upload and the results

  auto view = store.Follow(*id, 0);
  ASSERT_OK(view);
  ASSERT_TRUE(WaitFor([&] { return IsFinished((*view)->Snapshot().state); }));
  const JobSnapshot snap = (*view)->Snapshot();
  EXPECT_EQ(snap.state, JobState::kSucceeded) << snap.error.ToString();
  EXPECT_EQ(snap.page_count, 3);
  EXPECT_EQ(snap.pages_total, 3);
  EXPECT_EQ(snap.pages_done, 3);
  ASSERT_TRUE(snap.started && snap.finished);

  // Three progress events, each page once in order, then one end.
  std::vector<std::size_t> pages;
  int progress = 0;
  const std::vector<JobEvent> events = (*view)->EventsSince(0);
  for (const JobEvent& e : events) {
    if (e.kind == JobEvent::Kind::kProgress) {
      EXPECT_EQ(e.pages_done, ++progress);
    }
    if (e.kind == JobEvent::Kind::kPage)
      pages.push_back(e.index);
  }
  EXPECT_EQ(progress, 3);
  EXPECT_EQ(pages, (std::vector<std::size_t>{0, 1, 2}));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, JobEvent::Kind::kEnd);
  EXPECT_EQ((*view)->EventsSince(events.size()).size(), 0u);

  auto outcome = store.Outcome(*id);
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->info.answer.format, document::OutputFormat::kMarkdown);
  ASSERT_NE(outcome->document, nullptr);
  ASSERT_EQ(outcome->document->pages.size(), 3u);
  EXPECT_EQ(TextOf(outcome->document->pages[0]), "Alpha101");
  EXPECT_EQ(TextOf(outcome->document->pages[1]), "Bravo202");
  EXPECT_EQ(TextOf(outcome->document->pages[2]), "Charlie303");
  EXPECT_FALSE(outcome->document->pages[0].blocks.empty());  // laid out for any format

  // Only the results' memory is held once the job ended; forgetting it frees that too (the
  // outcome's pages stay valid while it is held).
  const std::int64_t results = budget.reserved();
  EXPECT_GT(results, 0);
  auto forgotten = store.Delete(*id);
  ASSERT_OK(forgotten);
  EXPECT_EQ(forgotten->snapshot.state, JobState::kSucceeded);
  EXPECT_EQ(store.Find(*id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(TextOf(outcome->document->pages[2]), "Charlie303");
  view->reset();
  outcome = Status(StatusCode::kCancelled, "dropped");
  // The last page's worker may still hold the job for a moment after it logged the end (the
  // scheduler frees a page's closure after it ran), so the results are freed soon, not at once.
  EXPECT_TRUE(WaitFor([&] { return budget.reserved() == 0; })) << budget.reserved();
}

// One page reads the same, to the bit, however the work around it is spread: alone on the
// workers, 16 times at once as interactive requests, and as each page of a 20-page document read
// as a job beside them (its pages and every page's batches landing on different workers each
// time).
TEST_F(DocumentJobsTest, APageReadsTheSameUnderAnyConcurrency) {
  const std::string text = "Invoice 2026-11 for 4,120.50\nPaid by card on 27 November\nThank you";
  const std::vector<std::uint8_t> one = image::testing::RenderTextTiff({text}, 20);
  const std::vector<std::uint8_t> twenty =
      image::testing::RenderTextTiff(std::vector<std::string>(20, text), 20);
  ASSERT_FALSE(one.empty());
  ASSERT_FALSE(twenty.empty());
  // A request as the synchronous route runs it: one interactive job, its batches spread.
  auto request = [&](std::promise<Result<document::DocumentResult>>& done) {
    sched::Job job;
    job.run = [&](sched::WorkerContext& worker) {
      done.set_value(document::ReadDocument(std::span<const std::uint8_t>(one),
                                            testing::DefaultPipeline(), {}, {}, &worker.runner));
    };
    job.dropped = [&](const Status& why) { done.set_value(why); };
    return scheduler_->Submit(std::move(job));
  };
  std::promise<Result<document::DocumentResult>> alone_done;
  ASSERT_OK(request(alone_done));
  const Result<document::DocumentResult> alone = alone_done.get_future().get();
  ASSERT_OK(alone);
  ASSERT_EQ(alone->pages.size(), 1u);
  const std::string expected = testing::ExactLines(alone->pages[0]);
  ASSERT_EQ(alone->pages[0].lines.size(), 3u) << expected;

  LocalJobs store({}, Workers(), scheduler_->worker_count());
  auto id = store.Create(InputOf(twenty));
  ASSERT_OK(id);
  std::vector<std::promise<Result<document::DocumentResult>>> requests(16);
  for (auto& done : requests) {
    // The queue holds 8: wait for a place as a client would retry.
    while (!request(done).ok())
      std::this_thread::sleep_for(1ms);
  }
  for (auto& done : requests) {
    const Result<document::DocumentResult> read = done.get_future().get();
    ASSERT_OK(read);
    ASSERT_EQ(read->pages.size(), 1u);
    EXPECT_EQ(testing::ExactLines(read->pages[0]), expected);
  }
  auto view = store.Follow(*id, 0);
  ASSERT_OK(view);
  ASSERT_TRUE(WaitFor([&] { return IsFinished((*view)->Snapshot().state); }));
  auto outcome = store.Outcome(*id);
  ASSERT_OK(outcome);
  ASSERT_NE(outcome->document, nullptr) << (*view)->Snapshot().error.ToString();
  ASSERT_EQ(outcome->document->pages.size(), 20u);
  for (const document::DocumentPage& page : outcome->document->pages)
    EXPECT_EQ(testing::ExactLines(page), expected) << "page " << page.page;
}

TEST_F(DocumentJobsTest, DeleteCancelsAnUnfinishedJobAndItsPagesStop) {
  LocalJobs store({}, Workers(), 1);  // one page at a time: the rest wait
  auto id = store.Create(Input());
  ASSERT_OK(id);
  auto cancelled = store.Delete(*id);
  ASSERT_OK(cancelled);
  EXPECT_EQ(cancelled->snapshot.state, JobState::kCancelled);
  EXPECT_THAT(cancelled->snapshot.error.message(), HasSubstr("DELETE"));
  EXPECT_LT(cancelled->snapshot.pages_done, 3);
  ASSERT_TRUE(WaitFor([&] { return store.Idle(); }));
  auto outcome = store.Outcome(*id);  // still listed until it expires or is deleted again
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->document, nullptr);
  ASSERT_OK(store.Delete(*id));
  EXPECT_EQ(store.Find(*id).status().code(), StatusCode::kNotFound);
}

TEST_F(DocumentJobsTest, MaxJobsCountsStreamsButOnlyJobsAreListed) {
  JobLimits limits;
  limits.max_jobs = 2;
  LocalJobs store(limits, Workers(), 1);
  auto stream = store.Start(Input(), /*listed=*/false);
  ASSERT_OK(stream);
  EXPECT_EQ(store.Find((*stream)->id()).status().code(), StatusCode::kNotFound);
  auto job = store.Create(Input());
  ASSERT_OK(job);
  EXPECT_EQ(store.CanAdmit().code(), StatusCode::kResourceExhausted);
  const auto refused = store.Create(Input());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("--max-jobs"));

  // Draining: nothing new, and Abandon stops what runs.
  store.StopAdmitting();
  EXPECT_EQ(store.CanAdmit().code(), StatusCode::kUnavailable);
  store.Abandon(Status(StatusCode::kUnavailable, "shutting down"));
  ASSERT_TRUE(WaitFor([&] { return store.Idle(); }));
  auto left = store.Find(*job);
  ASSERT_OK(left);
  EXPECT_EQ(left->snapshot.state, JobState::kCancelled);
  EXPECT_EQ(left->snapshot.error.message(), "shutting down");
}

TEST_F(DocumentJobsTest, JobsPastTheirTimeoutFailAndExpireAfterTheirTtl) {
  JobLimits limits;
  limits.timeout = 0s;  // every page is past the job's deadline
  limits.ttl = 0s;
  LocalJobs store(limits, Workers(), 1);
  // The job itself: with a ttl of 0 it may expire from the store as soon as it failed.
  auto job = store.Start(Input(), /*listed=*/true);
  ASSERT_OK(job);
  ASSERT_TRUE(WaitFor([&] {
    store.Sweep();
    return IsFinished((*job)->Snapshot().state);
  }));
  EXPECT_EQ((*job)->Snapshot().state, JobState::kFailed);
  EXPECT_EQ((*job)->Snapshot().error.code(), StatusCode::kDeadlineExceeded);
  std::this_thread::sleep_for(10ms);
  store.Sweep();
  EXPECT_EQ(store.Find((*job)->id()).status().code(), StatusCode::kNotFound);
}

TEST_F(DocumentJobsTest, AJobReservesItsMemoryOrIsRefused) {
  // Each page in flight is estimated at the models' working set (96 MB) and its pixels.
  sched::MemoryBudget small(std::int64_t{64} << 20);
  LocalJobs too_small({}, Workers(&small), 2);
  const auto huge = too_small.Create(Input());
  EXPECT_EQ(huge.status().code(), StatusCode::kImageTooLarge);
  EXPECT_THAT(huge.status().message(), HasSubstr("--memory-budget-mb"));
  EXPECT_EQ(small.reserved(), 0);

  sched::MemoryBudget budget(std::int64_t{400} << 20);
  auto held = budget.TryReserve(std::int64_t{300} << 20);
  ASSERT_TRUE(held.has_value());
  LocalJobs busy({}, Workers(&budget), 2);
  const auto refused = busy.Create(Input());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(budget.reserved(), std::int64_t{300} << 20);
}

// With --redis, each page a replica claims reserves its memory first: a replica whose budget
// holds one page at a time reads one page at a time (instead of one per worker), and a page no
// budget of that size can hold fails its job instead of going round the queue for ever.
class RedisBudgetTest : public DocumentJobsTest {
 protected:
  void SetUp() override {
    if (!testing::HaveRedisServer())
      GTEST_SKIP() << testing::kRedisServer << " is not installed (scripts/bootstrap installs it)";
    DocumentJobsTest::SetUp();
    if (IsSkipped())
      return;
    ASSERT_TRUE(redis_.Start());
  }

  std::unique_ptr<RedisJobs> Replica(PageWorkers workers) {
    RedisJobsConfig config;
    config.endpoint.host = "127.0.0.1";
    config.endpoint.port = redis_.port();
    return std::make_unique<RedisJobs>(
        config, JobLimits{}, std::move(workers), scheduler_->worker_count(),
        std::vector<std::string>{"ppocrv4"}, document::InputLimits{});
  }

  // The job `id` once it ended (or as it is after 60 s).
  static Result<JobInfo> WaitForEnd(RedisJobs& replica, const std::string& id) {
    Result<JobInfo> job = Status(StatusCode::kUnavailable, "not yet");
    WaitFor([&] {
      job = replica.Find(id);
      return job.ok() && IsFinished(job->snapshot.state);
    });
    return job;
  }

  testing::RedisProcess redis_;
};

TEST_F(RedisBudgetTest, ClaimedPagesStayWithinTheMemoryBudget) {
  ASSERT_EQ(scheduler_->worker_count(), 2);
  // One page (96 MB of working set and its pixels) fits; two do not.
  sched::MemoryBudget budget(std::int64_t{150} << 20);
  std::atomic<int> most_in_flight{0};
  std::atomic<std::int64_t> most_reserved{0};
  RedisJobs* replica_ptr = nullptr;
  auto replica = Replica(Workers(&budget, [&](const document::DocumentPage& /*page*/) {
    // While a page is being finished: what this replica holds now.
    most_in_flight = std::max(most_in_flight.load(), replica_ptr->in_flight());
    most_reserved = std::max(most_reserved.load(), budget.reserved());
  }));
  replica_ptr = replica.get();
  auto id = replica->Create(Input());
  ASSERT_OK(id);
  replica->Start();
  const Result<JobInfo> job = WaitForEnd(*replica, *id);
  ASSERT_OK(job);
  EXPECT_EQ(job->snapshot.state, JobState::kSucceeded) << job->snapshot.error.ToString();
  EXPECT_EQ(most_in_flight.load(), 1);
  EXPECT_GT(most_reserved.load(), std::int64_t{96} << 20);  // the page was reserved
  EXPECT_LE(most_reserved.load(), budget.limit());
  auto outcome = replica->Outcome(*id);
  ASSERT_OK(outcome);
  ASSERT_NE(outcome->document, nullptr);
  ASSERT_EQ(outcome->document->pages.size(), 3u);
  EXPECT_EQ(TextOf(outcome->document->pages[1]), "Bravo202");
  replica.reset();
  EXPECT_EQ(budget.reserved(), 0);
}

TEST_F(RedisBudgetTest, APageLargerThanTheWholeBudgetFailsItsJob) {
  sched::MemoryBudget budget(std::int64_t{64} << 20);
  auto replica = Replica(Workers(&budget));
  auto id = replica->Create(Input());
  ASSERT_OK(id);
  replica->Start();
  const Result<JobInfo> job = WaitForEnd(*replica, *id);
  ASSERT_OK(job);
  EXPECT_EQ(job->snapshot.state, JobState::kFailed);
  EXPECT_EQ(job->snapshot.error.code(), StatusCode::kImageTooLarge);
  EXPECT_THAT(job->snapshot.error.message(), HasSubstr("--memory-budget-mb"));
  replica.reset();
  EXPECT_EQ(budget.reserved(), 0);
}

}  // namespace
}  // namespace ocr::jobs
