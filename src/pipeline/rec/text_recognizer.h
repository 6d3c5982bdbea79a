// Recognition stage: crops -> text, in batches of similar aspect ratio, greedy CTC.
// Thread-safety: Recognize() is const and safe to call concurrently.
#pragma once

#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "common/task_runner.h"
#include "engine/model.h"
#include "pipeline/rec/ctc_decode.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

struct RecOptions {
  int batch_size = 6;
  // Narrowest batch input, pixels at the model's height. The reference pads every batch to at
  // least 320 px (a 6.7:1 line), so a batch of short words costs as much as a batch of lines.
  int min_width = 320;
  // Batch widths are rounded up to a multiple of this, so few distinct input shapes reach ONNX
  // Runtime (its per-shape caches and allocations stay bounded). 1 = exact, as the reference.
  int width_multiple = 1;
  // Widest input, in pixels at the model's height; wider lines are squeezed to fit. Bounds the
  // cost and memory of one absurdly wide crop (3200 px at height 48, as PP-OCRv5 does).
  int max_width = 3200;
};

class TextRecognizer {
 public:
  // `charset`: class k's text, charset[0] the blank. input_height: the model's (48).
  // fixed_width: the model's input width when static, else 0 (dynamic; 320 is the minimum).
  // REQUIRES: `model` and `charset` outlive this recognizer.
  TextRecognizer(const engine::Model& model, std::span<const std::string> charset, int input_height,
                 int fixed_width)
      : model_(model), charset_(charset), height_(input_height), fixed_width_(fixed_width) {}

  // One result per crop, in the order of `crops`. Batches run on `runner`; none starts once
  // `stop` is requested (kCancelled).
  Result<std::vector<DecodedText>> Recognize(std::span<const cv::Mat> crops,
                                             const RecOptions& options, StageTimes& times,
                                             TaskRunner& runner,
                                             const std::stop_token& stop = {}) const;

  // The padded input width for a batch whose widest aspect ratio is max_wh_ratio.
  int BatchWidth(double max_wh_ratio, const RecOptions& options) const;

 private:
  const engine::Model& model_;
  std::span<const std::string> charset_;
  int height_;
  int fixed_width_;
};

}  // namespace ocr::pipeline
