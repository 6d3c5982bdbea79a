#include "engine/ort_model.h"

#include <fstream>
#include <memory>
#include <stop_token>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_paths.h"

namespace ocr::engine {
namespace {

class OrtModelTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<Model>> LoadDetector() {
    return LoadOrtModel(runtime_, testing::DefaultModelDir() / "det" / "det.onnx", {});
  }

  Runtime runtime_;
};

// A tensor of `shape` with every element `value`.
Tensor Filled(std::vector<std::int64_t> shape, float value) {
  Tensor t;
  t.data.assign(static_cast<size_t>(Tensor::NumElements(shape)), value);
  t.shape = std::move(shape);
  return t;
}

TEST_F(OrtModelTest, ReportsLibraryVersion) {
  EXPECT_EQ(Runtime::Version().rfind("1.", 0), 0u) << Runtime::Version();
}

TEST_F(OrtModelTest, LoadsDetectorAndReadsShapes) {
  auto model = LoadDetector();
  ASSERT_OK(model);
  const auto& in = (*model)->input_shape();
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[1], 3);
  // The DB detector takes any height and width.
  EXPECT_LT(in[2], 0);
  EXPECT_LT(in[3], 0);
}

TEST_F(OrtModelTest, RunsAndReturnsProbabilityMap) {
  auto model = LoadDetector();
  ASSERT_OK(model);
  auto out = (*model)->Run(Filled({1, 3, 64, 96}, 0.0f));
  ASSERT_OK(out);
  EXPECT_EQ(out->shape, (std::vector<std::int64_t>{1, 1, 64, 96}));
  for (float p : out->data) {
    ASSERT_GE(p, 0.0f);
    ASSERT_LE(p, 1.0f);
  }
}

TEST_F(OrtModelTest, StopEndsARunAndTheModelServesTheNextOne) {
  auto model = LoadDetector();
  ASSERT_OK(model);
  // Stopped before it starts: the run ends at its first operator.
  const Tensor small = Filled({1, 3, 64, 96}, 0.0f);
  std::stop_source before;
  before.request_stop();
  auto out = (*model)->Run(small, before.get_token());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kCancelled);

  // Stopped from another thread while running: a detection pass over 2560 x 2560 pixels takes
  // seconds on one thread; the stop comes after 100 ms.
  const Tensor large = Filled({1, 3, 2560, 2560}, 0.5f);
  std::stop_source during;
  std::jthread stopper([&during] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    during.request_stop();
  });
  out = (*model)->Run(large, during.get_token());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kCancelled);

  EXPECT_OK((*model)->Run(small));  // each run has its own terminate flag
}

TEST_F(OrtModelTest, WrongInputRankIsAnErrorNotACrash) {
  auto model = LoadDetector();
  ASSERT_OK(model);
  auto out = (*model)->Run(Filled({3, 64}, 0.0f));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInternal);
  EXPECT_NE(out.status().message().find("det.onnx"), std::string::npos);
}

TEST_F(OrtModelTest, MissingFileNamesTheFile) {
  auto model = LoadOrtModel(runtime_, "/nonexistent/det.onnx", {});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_NE(model.status().message().find("/nonexistent/det.onnx"), std::string::npos);
  EXPECT_NE(model.status().message().find("not found"), std::string::npos);
}

TEST_F(OrtModelTest, CorruptFileIsRefused) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "corrupt.onnx";
  std::ofstream(path) << "this is not a protobuf";
  auto model = LoadOrtModel(runtime_, path, {});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_NE(model.status().message().find("corrupt.onnx"), std::string::npos);
}

}  // namespace
}  // namespace ocr::engine
