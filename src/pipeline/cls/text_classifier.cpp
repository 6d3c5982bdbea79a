#include "pipeline/cls/text_classifier.h"

#include <algorithm>

#include <opencv2/imgproc.hpp>

#include "common/clock.h"
#include "pipeline/batching.h"
#include "pipeline/model_input.h"

namespace ocr::pipeline {

void FollowPageDirection(std::vector<std::uint8_t>& flipped) {
  if (flipped.size() < kPageVoteMinLines)
    return;
  const auto turned = static_cast<double>(std::count(flipped.begin(), flipped.end(), 1));
  const auto lines = static_cast<double>(flipped.size());
  if (turned >= kPageVoteShare * lines)
    std::fill(flipped.begin(), flipped.end(), 1);
  else if (lines - turned >= kPageVoteShare * lines)
    std::fill(flipped.begin(), flipped.end(), 0);
}

Result<std::vector<std::uint8_t>> TextClassifier::Classify(std::vector<cv::Mat>& crops,
                                                           const ClsOptions& options,
                                                           StageTimes& times, TaskRunner& runner,
                                                           const std::stop_token& stop) const {
  std::vector<std::uint8_t> flipped(crops.size(), 0);
  const std::vector<size_t> order = OrderByAspectRatio(crops);
  const size_t plane = static_cast<size_t>(height_) * static_cast<size_t>(width_);
  auto run_batch = [&](size_t begin, size_t n, StageTimes& batch_times) -> Status {
    Stopwatch watch;
    engine::Tensor input;
    input.shape = {static_cast<std::int64_t>(n), 3, height_, width_};
    input.data.assign(n * 3 * plane, 0.0f);
    for (size_t i = 0; i < n; ++i)
      FillCropInput(crops[order[begin + i]], height_, width_, input.data.data() + i * 3 * plane);
    batch_times.cls_pre_ms += watch.LapMs();
    OCR_ASSIGN_OR_RETURN(engine::Tensor output, model_.Run(input, stop));
    batch_times.cls_infer_ms += watch.LapMs();
    batch_times.cls_calls += 1;
    if (output.shape.size() != 2 || output.shape[0] != static_cast<std::int64_t>(n) ||
        output.shape[1] < 2) {
      return Internal("direction model returned an unexpected shape");
    }
    const size_t labels = static_cast<size_t>(output.shape[1]);
    for (size_t i = 0; i < n; ++i) {
      const float* p = output.data.data() + i * labels;
      const size_t best = static_cast<size_t>(std::max_element(p, p + labels) - p);
      // Label 1 is "180" for both the v2 classifier and PP-LCNet.
      if (best == 1 && p[1] >= options.thresh) {
        flipped[order[begin + i]] = 1;
      }
    }
    return Status::Ok();
  };
  OCR_RETURN_IF_ERROR(ForEachBatch(crops.size(), static_cast<size_t>(options.batch_size), runner,
                                   stop, times, run_batch));
  if (options.page_vote)
    FollowPageDirection(flipped);
  for (size_t i = 0; i < crops.size(); ++i) {
    if (flipped[i] != 0)
      cv::rotate(crops[i], crops[i], cv::ROTATE_180);
  }
  return flipped;
}

}  // namespace ocr::pipeline
