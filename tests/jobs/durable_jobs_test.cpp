// The durable job store (jobs/sqlite_jobs.h) with the real models on a real scheduler and a real
// SQLite database in a temporary folder: a finished job is served by the next store over the
// folder, a job stopped halfway resumes from its first unread page and reads the same pages as an
// uninterrupted run, a page being read at two deaths fails its job, and the folder's lock, a
// damaged database, the spool limit, a full disk, DELETE and expiry. Killing the real server
// binary: tests/deploy/durable_jobs_test.py.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "jobs/job_database.h"
#include "jobs/job_test_fixture.h"
#include "jobs/sqlite_jobs.h"
#include "support/exact_lines.h"
#include "support/status_matchers.h"

namespace ocr::jobs {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class DurableJobsTest : public DocumentJobsTest {
 protected:
  void SetUp() override {
    DocumentJobsTest::SetUp();
    char pattern[] = "/tmp/onnxocr-durable-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }

  void TearDown() override {
    DocumentJobsTest::TearDown();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // A store over the folder, as a server opens it at start (Start() resumes what was left).
  std::unique_ptr<SqliteJobs> OpenStore(
      JobLimits limits = {}, std::function<void(const document::DocumentPage&)> page_read = {},
      std::int64_t spool_max_bytes = std::int64_t{1} << 30) {
    auto folder = JobFolder::Open(dir_);
    EXPECT_OK(folder);
    if (!folder.ok())
      return nullptr;
    auto store = std::make_unique<SqliteJobs>(
        SqliteJobsConfig{*folder, spool_max_bytes}, limits, Workers(nullptr, std::move(page_read)),
        scheduler_->worker_count(), std::vector<std::string>{"ppocrv4"}, document::InputLimits{});
    store->Start();
    return store;
  }

  // The job `id` once it ended (or as it is after 60 s).
  static Result<JobInfo> WaitForEnd(SqliteJobs& store, const std::string& id) {
    Result<JobInfo> job = Status(StatusCode::kUnavailable, "not yet");
    WaitFor([&] {
      job = store.Find(id);
      return job.ok() && IsFinished(job->snapshot.state);
    });
    return job;
  }

  // Every page's lines, exactly.
  static std::vector<std::string> ExactPages(const document::DocumentResult& result) {
    std::vector<std::string> pages;
    for (const document::DocumentPage& page : result.pages)
      pages.push_back(testing::ExactLines(page));
    return pages;
  }

  fs::path dir_;
};

TEST_F(DurableJobsTest, AFinishedJobIsServedByTheNextStoreOverTheFolder) {
  std::string id;
  std::vector<std::string> read;
  {
    auto store = OpenStore();
    auto created = store->Create(Input());
    ASSERT_OK(created);
    id = *created;
    EXPECT_TRUE(fs::exists(dir_ / "spool" / id));
    auto job = WaitForEnd(*store, id);
    ASSERT_OK(job);
    ASSERT_EQ(job->snapshot.state, JobState::kSucceeded) << job->snapshot.error.ToString();
    auto outcome = store->Outcome(id);
    ASSERT_OK(outcome);
    ASSERT_NE(outcome->document, nullptr);
    read = ExactPages(*outcome->document);
  }
  auto store = OpenStore();
  auto job = store->Find(id);
  ASSERT_OK(job);
  EXPECT_EQ(job->snapshot.state, JobState::kSucceeded);
  EXPECT_EQ(job->snapshot.pages_done, 3);
  EXPECT_EQ(job->answer.format, document::OutputFormat::kMarkdown);
  auto outcome = store->Outcome(id);
  ASSERT_OK(outcome);
  ASSERT_NE(outcome->document, nullptr);
  EXPECT_EQ(ExactPages(*outcome->document), read);
  EXPECT_EQ(TextOf(outcome->document->pages[2]), "Charlie303");

  // The event log as it was written: progress and each page once, then the end.
  auto view = store->Follow(id, 0);
  ASSERT_OK(view);
  std::vector<std::size_t> pages;
  for (const JobEvent& e : (*view)->EventsSince(0)) {
    if (e.kind == JobEvent::Kind::kPage) {
      pages.push_back(e.index);
      EXPECT_EQ(testing::ExactLines((*view)->page(e.index)), read[e.index]);
    }
  }
  EXPECT_EQ(pages, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ((*view)->EventsSince(0).back().kind, JobEvent::Kind::kEnd);

  // The upload, for the searchable PDF and the page images.
  auto source = store->Source(id);
  ASSERT_OK(source);
  EXPECT_EQ(source->file, std::string(tiff_.begin(), tiff_.end()));

  // DELETE forgets it, upload and all.
  ASSERT_OK(store->Delete(id));
  EXPECT_EQ(store->Find(id).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir_ / "spool" / id));
}

TEST_F(DurableJobsTest, AJobStoppedHalfwayResumesFromItsFirstUnreadPage) {
  const std::string text = "Invoice 2026-11 for 4,120.50\nPaid by card on 27 November";
  std::vector<std::string> texts;
  for (int i = 0; i < 12; ++i)
    texts.push_back(text + "\nPage " + std::to_string(i + 1));
  const std::vector<std::uint8_t> twelve = image::testing::RenderTextTiff(texts, 20);
  ASSERT_FALSE(twelve.empty());

  // The uninterrupted run, in memory.
  LocalJobs memory({}, Workers(), scheduler_->worker_count());
  auto whole_id = memory.Create(InputOf(twelve));
  ASSERT_OK(whole_id);
  ASSERT_TRUE(WaitFor([&] {
    auto job = memory.Find(*whole_id);
    return job.ok() && IsFinished(job->snapshot.state);
  }));
  auto whole = memory.Outcome(*whole_id);
  ASSERT_OK(whole);
  ASSERT_NE(whole->document, nullptr);

  // The same document, stopped as a server stops once 4 pages were read, then resumed.
  std::atomic<int> reads{0};
  const auto count = [&reads](const document::DocumentPage& /*page*/) { ++reads; };
  std::string id;
  {
    auto store = OpenStore({}, count);
    auto created = store->Create(InputOf(twelve));
    ASSERT_OK(created);
    id = *created;
    ASSERT_TRUE(WaitFor([&] { return reads.load() >= 4; }));
    store->Abandon(Status(StatusCode::kUnavailable, "the server is shutting down"));
    ASSERT_TRUE(WaitFor([&] { return scheduler_->busy() == 0; }));
  }
  const int before = reads.load();
  ASSERT_LT(before, 12);
  auto store = OpenStore({}, count);
  auto job = WaitForEnd(*store, id);
  ASSERT_OK(job);
  ASSERT_EQ(job->snapshot.state, JobState::kSucceeded) << job->snapshot.error.ToString();
  // The pages read before were not read again (those stopped mid-read were).
  EXPECT_LE(reads.load(), 12 + scheduler_->worker_count());
  auto outcome = store->Outcome(id);
  ASSERT_OK(outcome);
  ASSERT_NE(outcome->document, nullptr);
  EXPECT_EQ(ExactPages(*outcome->document), ExactPages(*whole->document));

  // One page event per page, in order, across the two processes' logs.
  auto view = store->Follow(id, 0);
  ASSERT_OK(view);
  std::vector<std::size_t> pages;
  for (const JobEvent& e : (*view)->EventsSince(0)) {
    if (e.kind == JobEvent::Kind::kPage)
      pages.push_back(e.index);
  }
  ASSERT_EQ(pages.size(), 12u);
  for (std::size_t i = 0; i < pages.size(); ++i)
    EXPECT_EQ(pages[i], i);
}

TEST_F(DurableJobsTest, AJobWhosePageWasBeingReadAtTwoDeathsFails) {
  std::string id;
  {
    auto store = OpenStore();
    auto created = store->Create(Input());
    ASSERT_OK(created);
    id = *created;
    ASSERT_OK(WaitForEnd(*store, id));
  }
  // As two deaths mid-page leave the database: the job unfinished, page 2 started twice.
  {
    auto database = JobDatabase::Open(dir_ / "jobs.sqlite");
    ASSERT_OK(database);
    JobSnapshot running;
    running.state = JobState::kRunning;
    running.pages_done = 1;
    ASSERT_OK((*database)->SaveLog(id, 100, {}, running));
    ASSERT_OK((*database)->PageStarting(id, 1));
    ASSERT_OK((*database)->PageStarting(id, 1));
  }
  auto store = OpenStore();
  auto job = store->Find(id);
  ASSERT_OK(job);
  EXPECT_EQ(job->snapshot.state, JobState::kFailed);
  EXPECT_THAT(job->snapshot.error.message(),
              HasSubstr("stopped unexpectedly each time it read page 2 of the job's 3"));
}

TEST_F(DurableJobsTest, OneServerPerFolderAndADamagedDatabaseIsNamed) {
  auto first = JobFolder::Open(dir_);
  ASSERT_OK(first);
  auto second = JobFolder::Open(dir_);
  EXPECT_EQ(second.status().code(), StatusCode::kIoError);
  EXPECT_THAT(second.status().message(), HasSubstr("another onnxocr server uses the job folder"));
  first = Status(StatusCode::kCancelled, "closed");

  const fs::path damaged = dir_ / "damaged";
  fs::create_directories(damaged);
  std::ofstream(damaged / "jobs.sqlite") << std::string(8192, 'x');
  auto opened = JobFolder::Open(damaged);
  EXPECT_EQ(opened.status().code(), StatusCode::kIoError);
  EXPECT_THAT(opened.status().message(), HasSubstr((damaged / "jobs.sqlite").string()));
  EXPECT_THAT(opened.status().message(), HasSubstr("move it away"));
}

TEST_F(DurableJobsTest, TheSpoolLimitRefusesUploadsAndExpiryFreesThem) {
  JobLimits limits;
  limits.ttl = std::chrono::seconds(1);
  // Room for one upload of the TIFF, not two.
  auto store = OpenStore(limits, {}, static_cast<std::int64_t>(tiff_.size() * 3 / 2));
  auto first = store->Create(Input());
  ASSERT_OK(first);
  auto second = store->Create(Input());
  EXPECT_EQ(second.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(second.status().message(), HasSubstr("the job spool is full"));
  ASSERT_OK(WaitForEnd(*store, *first));
  EXPECT_EQ(store->spool_bytes(), static_cast<std::int64_t>(tiff_.size()));

  // --job-ttl after its end, the job and its upload are gone, and the room is back.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  store->Sweep();
  EXPECT_EQ(store->Find(*first).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir_ / "spool" / *first));
  EXPECT_EQ(store->spool_bytes(), 0);
  EXPECT_OK(store->Create(Input()));
}

// A full disk refuses the upload as a retryable 503 and leaves nothing behind: the spool's
// temporary file is /dev/full here, whose every write fails with ENOSPC.
TEST(SpoolTest, AFullDiskRefusesTheUploadAndLeavesNothing) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full";
  char pattern[] = "/tmp/onnxocr-spool-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  auto spool = Spool::Open(dir);
  ASSERT_OK(spool);
  const std::string id(32, 'a');
  fs::create_symlink("/dev/full", dir / (id + ".part"));
  const Status written = spool->Write(id, std::string(1 << 16, 'x'));
  EXPECT_EQ(written.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(written.message(), HasSubstr("the disk under --data-dir is full"));
  EXPECT_FALSE(fs::exists(dir / id));
  EXPECT_FALSE(fs::is_symlink(dir / (id + ".part")));
  EXPECT_TRUE(spool->Ids().empty());
  // An upload that fits is whole once it has its name, and maps back byte for byte.
  ASSERT_OK(spool->Write(id, "%PDF-1.4 whole"));
  auto mapped = spool->Map(id);
  ASSERT_OK(mapped);
  EXPECT_EQ((*mapped)->bytes(), "%PDF-1.4 whole");
  EXPECT_EQ(spool->Ids(), std::vector<std::string>{id});
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace
}  // namespace ocr::jobs
