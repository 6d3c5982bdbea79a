// Recognition stage: crops -> text, in batches of similar aspect ratio, greedy CTC (unsure words
// read against a lexicon).
// Crop sizing: each batch's input width is BatchWidth (from RecOptions below), and each crop is
// scaled into it at the model's height by FillCropInput/ResizedWidth (pipeline/model_input.h).
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
#include "pipeline/model_input.h"
#include "pipeline/rec/ctc_decode.h"
#include "pipeline/rec/lexicon_correction.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

// Defaults chosen by measurement (docs/benchmarks/throughput.md, "Recognition batch shapes"): one
// crop per call at its own width costs about 40% less CPU than the reference's batches of 6 padded
// to at least 320 px, and the batches then spread over idle cores one crop at a time.
struct RecOptions {
  int batch_size = 1;  // the reference: 6
  // Narrowest input, pixels at the model's height. The reference pads every batch to at least
  // 320 px (a 6.7:1 line), so a batch of short words costs as much as a batch of lines.
  int min_width = 48;  // the reference: 320
  // Widths are rounded up to a multiple of this, so fewer distinct input shapes reach ONNX
  // Runtime. 1 = exact, as the reference.
  int width_multiple = 8;
  // Widest input, in pixels at the model's height; wider lines are squeezed to fit. Bounds the
  // cost and memory of one absurdly wide crop (3200 px at height 48, as PP-OCRv5 does).
  int max_width = 3200;
  // Crops are cut where a run of background is at least this many crop heights wide and read in
  // pieces (rec/blank_gaps.h); 0 reads every crop whole, as the reference does. A detected line
  // is about 1.5 times its letters' height, so one crop height is about three letters: wider
  // than a word space, narrower than a form's empty field.
  float blank_gap = 1.0f;
  // Unsure Latin words that are no English word are read again against the lexicon
  // (rec/lexicon_correction.h); off: the recognizer's best path, as the reference reads.
  bool lexicon = true;

  // The reference pipeline's shapes (batches of 6, at least 320 px, exact widths): its outputs
  // are reproduced line for line with these, which the parity test checks.
  static RecOptions Reference() {
    RecOptions r;
    r.batch_size = 6;
    r.min_width = 320;
    r.width_multiple = 1;
    r.blank_gap = 0;
    r.lexicon = false;
    return r;
  }
};

class TextRecognizer {
 public:
  // `charset`: class k's text, charset[0] the blank. input_height: the model's (48).
  // fixed_width: the model's input width when static, else 0 (dynamic; 320 is the minimum).
  // `normalization`: its family's (model_family.h).
  // REQUIRES: `model` and `charset` outlive this recognizer.
  TextRecognizer(const engine::Model& model, std::span<const std::string> charset, int input_height,
                 int fixed_width, const Normalization& normalization)
      : model_(model),
        charset_(charset),
        latin_(LatinClassesOf(charset)),
        height_(input_height),
        fixed_width_(fixed_width),
        normalization_(normalization) {}

  // One result per crop, in the order of `crops`, each read in the pieces options.blank_gap
  // leaves. Batches run on `runner`; none starts once `stop` is requested (kCancelled).
  Result<std::vector<DecodedText>> Recognize(std::span<const cv::Mat> crops,
                                             const RecOptions& options, StageTimes& times,
                                             TaskRunner& runner,
                                             const std::stop_token& stop = {}) const;

  // The padded input width for a batch whose widest aspect ratio is max_wh_ratio.
  int BatchWidth(double max_wh_ratio, const RecOptions& options) const;

 private:
  // One result per crop, each read whole.
  Result<std::vector<DecodedText>> RecognizeWhole(std::span<const cv::Mat> crops,
                                                  const RecOptions& options, StageTimes& times,
                                                  TaskRunner& runner,
                                                  const std::stop_token& stop) const;

  const engine::Model& model_;
  std::span<const std::string> charset_;
  LatinClasses latin_;  // for the lexicon
  int height_;
  int fixed_width_;
  Normalization normalization_;
};

}  // namespace ocr::pipeline
