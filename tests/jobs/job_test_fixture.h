// What the tests of long documents in process share (document_jobs_test, durable_jobs_test): the
// real models on a real two-worker scheduler, a three-page TIFF, and documents opened as a route
// opens them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core/utility.hpp>

#include "common/text.h"
#include "image/test_images.h"
#include "jobs/document_job.h"
#include "jobs/job_backend.h"
#include "sched/memory_budget.h"
#include "sched/scheduler.h"
#include "support/default_pipeline.h"
#include "support/status_matchers.h"

namespace ocr::jobs {

// The text of a page's lines, spaces removed (the recognizer's spacing is not under test).
inline std::string TextOf(const document::DocumentPage& page) {
  std::string text;
  for (const pipeline::TextLine& line : page.lines)
    text += line.text;
  std::erase(text, ' ');
  return text;
}

// Waits up to 60 s for `done`.
template <typename Done>
bool WaitFor(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class DocumentJobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tiff_ = image::testing::RenderTextTiff({"Alpha 101", "Bravo 202", "Charlie 303"});
    if (tiff_.empty())
      GTEST_SKIP() << "pango-view not installed (scripts/bootstrap installs pango1.0-tools)";
    // As the server does before it serves: OpenCV runs its loops on the calling worker (no TBB
    // pool, whose hand-offs ThreadSanitizer cannot see inside the uninstrumented libraries), and
    // the models' first runs (and OpenCV's lazily made singletons) happen on one thread, before
    // the workers share the pipeline.
    cv::setNumThreads(0);
    ASSERT_OK(testing::DefaultPipeline().WarmUp());
    auto scheduler = sched::Scheduler::Start({sched::WorkerGroupPlan{0, {-1, -1}}},
                                             sched::SchedulerConfig{8, /*pin_threads=*/false});
    ASSERT_OK(scheduler);
    scheduler_ = std::move(scheduler).value();
  }

  void TearDown() override {
    if (scheduler_)
      scheduler_->Stop();
  }

  PageWorkers Workers(sched::MemoryBudget* budget = nullptr,
                      std::function<void(const document::DocumentPage&)> page_read = {}) {
    return {scheduler_.get(), {{&testing::DefaultPipeline()}}, std::move(page_read), budget};
  }

  // The TIFF opened as a route opens it.
  JobInput Input(document::DocumentOptions options = {}) { return InputOf(tiff_, options); }

  // `bytes` opened as a route opens them.
  static JobInput InputOf(const std::vector<std::uint8_t>& bytes,
                          document::DocumentOptions options = {}) {
    JobInput input;
    input.upload = std::make_unique<const std::string>(bytes.begin(), bytes.end());
    input.file = *input.upload;
    auto reader = document::PageReader::Open(AsBytes(input.file), options);
    EXPECT_OK(reader);
    input.reader = std::move(reader).value();
    input.model = "ppocrv4";
    input.answer.format = document::OutputFormat::kMarkdown;
    input.options = options;
    return input;
  }

  std::vector<std::uint8_t> tiff_;
  std::unique_ptr<sched::Scheduler> scheduler_;
};

}  // namespace ocr::jobs
