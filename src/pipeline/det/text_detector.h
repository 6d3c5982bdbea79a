// Text detection stage: resize and normalize, run the DB model, post-process, order boxes.
// Thread-safety: Detect() is const and safe to call concurrently.
#pragma once

#include <stop_token>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "engine/model.h"
#include "pipeline/det/db_postprocess.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

enum class LimitType {
  kMax,  // scale down so the longer side is at most limit_side_len
  kMin,  // scale up so the shorter side is at least limit_side_len
};

struct DetOptions {
  int limit_side_len = 960;
  LimitType limit_type = LimitType::kMax;
  DbOptions db;
};

// The detector's input size for an image: scaled per the limit, both sides rounded to the
// nearest multiple of 32 (at least 32), as PaddleOCR's DetResizeForTest does.
cv::Size DetInputSize(int width, int height, const DetOptions& options);

class TextDetector {
 public:
  // REQUIRES: `model` outlives this detector.
  explicit TextDetector(const engine::Model& model) : model_(model) {}

  // Boxes in `image` pixels, ordered clockwise from the top-left, clipped to the image, boxes
  // with a side of 3 px or less dropped, sorted into reading order.
  // REQUIRES: image is CV_8UC3 and not empty.
  // Errors: kCancelled once `stop` is requested.
  Result<std::vector<Quad>> Detect(const cv::Mat& image, const DetOptions& options,
                                   StageTimes& times, const std::stop_token& stop = {}) const;

 private:
  const engine::Model& model_;
};

}  // namespace ocr::pipeline
