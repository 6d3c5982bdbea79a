#include "pipeline/pipeline.h"

#include <algorithm>
#include <cstdint>

#include <opencv2/imgproc.hpp>

#include "common/check.h"
#include "common/clock.h"
#include "pipeline/geometry.h"
#include "pipeline/rec/word_spaces.h"
#include "pipeline/vertical_chains.h"
#include "pipeline/word_boxes.h"

namespace ocr::pipeline {

Pipeline::Pipeline(const ModelSet& models)
    : models_(models),
      detector_(*models.det),
      recognizer_(*models.rec, models.charset, models.rec_height, models.rec_width) {
  if (models.cls)
    classifier_.emplace(*models.cls, models.cls_height, models.cls_width);
}

Status Pipeline::WarmUp() const {
  cv::Mat page(160, 480, CV_8UC3, cv::Scalar(255, 255, 255));
  cv::putText(page, "Warm up 2026", cv::Point(20, 60), cv::FONT_HERSHEY_SIMPLEX, 1.2,
              cv::Scalar(0, 0, 0), 2);
  cv::putText(page, "ONNX Runtime", cv::Point(20, 130), cv::FONT_HERSHEY_SIMPLEX, 1.2,
              cv::Scalar(0, 0, 0), 2);
  const Status status = Run(page, OcrOptions{}).status();
  if (!status.ok()) {
    return Status(StatusCode::kModelLoadFailed,
                  "model set " + models_.name + " fails on a test page: " + status.message());
  }
  return Status::Ok();
}

Result<OcrResult> Pipeline::Run(const cv::Mat& image, const OcrOptions& options,
                                const std::stop_token& stop, TaskRunner* runner) const {
  OCR_CHECK(image.type() == CV_8UC3 && !image.empty());
  InlineTaskRunner inline_runner;
  TaskRunner& batches = runner != nullptr ? *runner : inline_runner;
  OcrResult result;
  StageTimes& times = result.times;
  OCR_ASSIGN_OR_RETURN(std::vector<Quad> boxes, detector_.Detect(image, options.det, times, stop));
  if (stop.stop_requested())
    return Cancelled();

  Stopwatch watch;
  std::vector<cv::Mat> crops;
  std::vector<Quad> kept;
  crops.reserve(boxes.size());
  kept.reserve(boxes.size());
  for (const Quad& box : boxes) {
    cv::Mat crop = CropTextLine(image, box);
    if (crop.empty())
      continue;
    crops.push_back(std::move(crop));
    kept.push_back(box);
  }
  // Each chain of pieces of a vertical line is read once more as a whole, after the pieces.
  const size_t detected = crops.size();
  std::vector<VerticalChain> chains;
  if (options.join_vertical_pieces) {
    for (VerticalChain& chain : VerticalChains(kept)) {
      cv::Mat crop = CropTextLine(image, chain.box);
      if (crop.empty())
        continue;
      crops.push_back(std::move(crop));
      kept.push_back(chain.box);
      chains.push_back(std::move(chain));
    }
  }
  times.crop_ms += watch.LapMs();

  std::vector<std::uint8_t> flipped(crops.size(), 0);
  if (options.use_cls && classifier_ && !crops.empty()) {
    std::vector<std::uint8_t> vertical(kept.size());
    for (size_t i = 0; i < kept.size(); ++i)
      vertical[i] = CropGeometryOf(kept[i]).rotated90 ? 1 : 0;
    OCR_ASSIGN_OR_RETURN(flipped,
                         classifier_->Classify(crops, vertical, options.cls, times, batches, stop));
  }
  OCR_ASSIGN_OR_RETURN(std::vector<DecodedText> texts,
                       recognizer_.Recognize(crops, options.rec, times, batches, stop));
  if (options.text_normalization) {
    for (DecodedText& text : texts)
      InsertWordSpaces(text);
  }
  // A chain's reading replaces its pieces', in the first piece's place, when the recognizer is at
  // least as sure of it as of theirs (their characters' mean confidence).
  std::vector<std::uint8_t> replaced(detected, 0);
  std::vector<size_t> whole_at(detected, 0);  // 1 + the chain's entry, at its first piece
  for (size_t k = 0; k < chains.size(); ++k) {
    const DecodedText& whole = texts[detected + k];
    double sum = 0;
    size_t chars = 0;
    for (size_t m : chains[k].members) {
      sum += static_cast<double>(texts[m].confidence) *
             static_cast<double>(texts[m].char_offsets.size());
      chars += texts[m].char_offsets.size();
    }
    const double pieces = chars > 0 ? sum / static_cast<double>(chars) : 0.0;
    if (whole.text.empty() || whole.confidence < pieces)
      continue;
    for (size_t m : chains[k].members)
      replaced[m] = 1;
    whole_at[*std::min_element(chains[k].members.begin(), chains[k].members.end())] =
        detected + k + 1;
  }
  auto emit = [&](size_t i) {
    if (texts[i].text.empty() || texts[i].confidence < options.drop_score)
      return;
    TextLine line{texts[i].text, texts[i].confidence, kept[i], {}};
    if (options.word_boxes)
      line.words = LocateWords(texts[i], kept[i], flipped[i] != 0);
    result.lines.push_back(std::move(line));
  };
  for (size_t i = 0; i < detected; ++i) {
    if (whole_at[i] != 0)
      emit(whole_at[i] - 1);
    if (replaced[i] == 0)
      emit(i);
  }
  return result;
}

}  // namespace ocr::pipeline
